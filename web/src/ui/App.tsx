// The inbox application: sign-in (a one-time link from `hookmap open` in the
// fragment, or a token), then the signed-in shell: header (what waits, the
// connection, who is signed in, notifications, sign out), the sessions list
// beside the inbox or the open session on a wide screen, one column on a
// phone. Keyboard: a / d / t answer the focused card (or the first one).
import { useSignal, useSignalEffect } from '@preact/signals';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { login, logout, me as fetchMe, takeLoginCode, type Principal } from '../model/api.ts';
import { Connection } from '../model/connection.ts';
import { Store } from '../model/store.ts';
import { Ctx, useApp } from './context.ts';
import { Home } from './Home.tsx';
import { Login } from './Login.tsx';
import { SessionList } from './SessionList.tsx';
import { SessionView } from './SessionView.tsx';
import { RulesView } from './Rules.tsx';
import { HistoryView } from './History.tsx';
import { NavLinks, NewSessionView } from './NewSession.tsx';
import { DevicesView, InstallHint, NotifyToggle, useNotifications, usePresence } from './Push.tsx';

type Auth = { kind: 'checking' } | { kind: 'out'; reason?: string } | { kind: 'in'; me: Principal };

interface Live {
  store: Store;
  conn: Connection;
  /** Set while signed in: what to do when a link fails and the cookie turns out to be gone. */
  lost?: () => void;
}

function makeLive(): Live {
  const store = new Store();
  let checking = false;
  const live: Live = { store, conn: undefined as unknown as Connection };
  live.conn = new Connection({
    base: location.origin,
    host: location.host,
    store,
    onFailure: () => {
      if (checking || !live.lost) return;
      checking = true;
      void fetchMe().then((r) => {
        checking = false;
        if (!r.ok && (r.status === 401 || r.status === 403)) live.lost?.();
      });
    },
  });
  return live;
}

export function App() {
  const [auth, setAuth] = useState<Auth>({ kind: 'checking' });
  const [live, setLive] = useState<Live>(() => makeLive());
  useEffect(() => {
    void (async () => {
      const code = takeLoginCode();
      if (code) {
        const r = await login({ code });
        if (r.ok) return setAuth({ kind: 'in', me: r.me });
        return setAuth({ kind: 'out', reason: 'That sign-in link has expired or was already used: run `npx hookmap open` again, or paste the token.' });
      }
      // the cookie, if any, already opens the relay: connect while asking who it is
      live.conn.start();
      const r = await fetchMe();
      if (r.ok) return setAuth({ kind: 'in', me: r.me });
      live.conn.stop();
      setAuth({ kind: 'out', reason: r.status === 0 ? r.reason : undefined });
    })();
  }, []);
  if (auth.kind === 'checking') return <p class="loading">Loading…</p>;
  if (auth.kind === 'out')
    return (
      <Login
        reason={auth.reason}
        onIn={(me) => {
          setLive(makeLive());
          setAuth({ kind: 'in', me });
        }}
      />
    );
  return (
    <SignedIn
      live={live}
      me={auth.me}
      onOut={(reason) => {
        live.conn.stop();
        setAuth({ kind: 'out', reason });
      }}
    />
  );
}

function SignedIn({ live, me, onOut }: { live: Live; me: Principal; onOut: (reason?: string) => void }) {
  const ctx = useMemo(() => ({ store: live.store, conn: live.conn, me }), [live, me]);
  useEffect(() => {
    live.lost = () => onOut('Your session ended (signed out, or the token was revoked). Sign in again.');
    live.conn.start();
    const tick = setInterval(() => (live.store.clock.value = Date.now()), 1000);
    const wake = () => live.conn.nudge();
    document.addEventListener('visibilitychange', wake);
    window.addEventListener('online', wake);
    return () => {
      live.lost = undefined;
      live.conn.stop();
      clearInterval(tick);
      document.removeEventListener('visibilitychange', wake);
      window.removeEventListener('online', wake);
    };
  }, [live]);
  return (
    <Ctx.Provider value={ctx}>
      <Shell onOut={onOut} />
    </Ctx.Provider>
  );
}

function useRoute() {
  const parse = () => {
    const rules = /^#\/rules(?:\/(.+))?$/.exec(location.hash);
    if (rules) return { name: 'rules' as const, id: rules[1] ? safeDecode(rules[1]) : undefined };
    if (location.hash === '#/devices') return { name: 'devices' as const };
    if (location.hash === '#/history') return { name: 'history' as const };
    if (location.hash === '#/new') return { name: 'new' as const };
    const m = /^#\/s\/(.+)$/.exec(location.hash);
    if (!m) return { name: 'home' as const };
    try {
      return { name: 'session' as const, id: decodeURIComponent(m[1]) };
    } catch {
      return { name: 'home' as const };
    }
  };
  const route = useSignal(parse());
  useEffect(() => {
    const on = () => (route.value = parse());
    window.addEventListener('hashchange', on);
    return () => window.removeEventListener('hashchange', on);
  }, []);
  return route.value;
}

function safeDecode(s: string): string | undefined {
  try {
    return decodeURIComponent(s);
  } catch {
    return undefined;
  }
}

function useWide() {
  const q = useMemo(() => window.matchMedia('(min-width: 960px)'), []);
  const [wide, setWide] = useState(q.matches);
  useEffect(() => {
    const on = () => setWide(q.matches);
    q.addEventListener('change', on);
    return () => q.removeEventListener('change', on);
  }, [q]);
  return wide;
}

function Shell({ onOut }: { onOut: (reason?: string) => void }) {
  const { store, conn, me } = useApp();
  const route = useRoute();
  const wide = useWide();
  const status = conn.status.value;
  useSignalEffect(() => {
    store.attnRev.value;
    const n = store.waiting(store.clock.value).length;
    document.title = n ? `(${n}) hookmap inbox` : 'hookmap inbox';
  });
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => shortcut(e);
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);
  useNotifications();
  usePresence();
  const who = (
    <span class="who" title={`scopes: ${me.scopes.join(', ')}`}>
      {me.name}
      {me.scopes.includes('control') ? '' : ' (read-only)'}
    </span>
  );
  const links = <NavLinks route={route.name} control={me.scopes.includes('control')} />;
  const signOut = (
    <button
      type="button"
      class="btn btn-quiet"
      onClick={async () => {
        conn.stop();
        await logout();
        onOut('Signed out.');
      }}
    >
      Sign out
    </button>
  );
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <a href="#/" class="brand">
          hookmap <span>inbox</span>
          <WaitingBadge />
        </a>
        <span class={`conn conn-${status}`} role="status" aria-live="polite" data-conn={status}>
          <span class="dot" aria-hidden="true" />
          {status === 'live' ? 'live' : status === 'connecting' ? 'reconnecting…' : 'offline'}
        </span>
        {wide ? (
          <>
            {links}
            {who}
            <NotifyToggle />
            {signOut}
          </>
        ) : (
          <details class="menu">
            <summary class="btn btn-quiet" aria-label="Menu">
              ☰
            </summary>
            <div class="menu-body">
              {links}
              {who}
              <NotifyToggle />
              {signOut}
            </div>
          </details>
        )}
      </header>
      <div class={`layout${wide ? ' wide' : ''}`}>
        {wide ? (
          <aside class="side" aria-label="Sessions">
            <SessionList current={route.name === 'session' ? route.id : undefined} />
          </aside>
        ) : null}
        <main id="main" tabIndex={-1}>
          {(route.name === 'home' && !wide) || route.name === 'devices' ? <InstallHint /> : null}
          {route.name === 'session' ? (
            <SessionView id={route.id} wide={wide} key={route.id} />
          ) : route.name === 'rules' ? (
            <RulesView focus={route.id} />
          ) : route.name === 'devices' ? (
            <DevicesView />
          ) : route.name === 'history' ? (
            <HistoryView />
          ) : route.name === 'new' ? (
            <NewSessionView />
          ) : (
            <Home wide={wide} />
          )}
        </main>
      </div>
    </>
  );
}

/** What waits for the person, in the header (its own component: the shell does not re-render with it). */
function WaitingBadge() {
  const { store } = useApp();
  store.attnRev.value;
  const n = store.waiting(store.clock.value).length;
  return n ? (
    <span class="badge" aria-label={`${n} waiting for you`} data-badge={n}>
      {n}
    </span>
  ) : null;
}

/** a / d / t on the focused card, else on the first card that takes answers. */
function shortcut(e: KeyboardEvent): void {
  if (e.ctrlKey || e.metaKey || e.altKey || e.repeat) return;
  const key = e.key.toLowerCase();
  if (key !== 'a' && key !== 'd' && key !== 't') return;
  const t = e.target as HTMLElement | null;
  if (t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName))) return;
  const card = (t?.closest?.('[data-card][data-answerable]') as HTMLElement | null) ?? document.querySelector<HTMLElement>('main [data-card][data-answerable]');
  if (!card) return;
  const target = card.querySelector<HTMLElement>(`[data-key="${key}"]`);
  if (!target || (target as HTMLButtonElement).disabled) return;
  e.preventDefault();
  if (key === 't') target.focus();
  else target.click();
}
