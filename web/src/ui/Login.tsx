// Sign in: paste a hookmap token (the relay's, or a named one), or open the
// one-time link `hookmap open` prints. The token is posted once to this
// origin and exchanged for an HttpOnly cookie; it is never kept by the page.
import { useState } from 'preact/hooks';
import { login, type Principal } from '../model/api.ts';

export function Login({ reason, onIn }: { reason?: string; onIn: (me: Principal) => void }) {
  const [token, setToken] = useState('');
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  return (
    <main class="login">
      <h1>hookmap inbox</h1>
      <form
        class="login-form"
        onSubmit={async (e) => {
          e.preventDefault();
          if (!token.trim()) {
            setError('Paste a token first.');
            return;
          }
          setBusy(true);
          const r = await login({ token: token.trim() });
          setBusy(false);
          setToken('');
          if (r.ok) onIn(r.me);
          else setError(r.status === 401 ? 'That token is not valid here.' : (r.reason ?? `Sign-in failed (${r.status}).`));
        }}
      >
        {reason ? <p class="note">{reason}</p> : null}
        <label for="token">Token</label>
        <input
          id="token"
          type="password"
          autocomplete="off"
          spellcheck={false}
          value={token}
          aria-invalid={error ? 'true' : undefined}
          aria-describedby={error ? 'token-err' : 'token-help'}
          onInput={(e) => setToken((e.target as HTMLInputElement).value)}
        />
        {error ? (
          <p class="field-error" id="token-err" role="alert">
            {error}
          </p>
        ) : null}
        <p class="hint" id="token-help">
          Run <code>npx hookmap open</code> in a terminal for a one-time sign-in link, or paste the token hookmap up uses.
        </p>
        <button type="submit" class="btn btn-allow" disabled={busy}>
          Sign in
        </button>
      </form>
    </main>
  );
}
