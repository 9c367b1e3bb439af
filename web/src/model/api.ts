// The inbox's own HTTP routes (engine/person/inbox/routes.ts): who am I, sign in
// with a token or a one-time code, sign out, the hooks that failed open.
// Every state change is a POST with a JSON body from this origin; the
// session lives in an HttpOnly cookie the script never sees.
import { parseMissed, type Missed } from './missed.ts';

export interface Principal {
  name: string;
  scopes: string[];
}

export type MeResult = { ok: true; me: Principal } | { ok: false; status: number; reason?: string };

async function json(res: Response): Promise<any> {
  try {
    return await res.json();
  } catch {
    return {};
  }
}

export async function me(): Promise<MeResult> {
  try {
    const res = await fetch('/inbox/api/me', { credentials: 'same-origin', cache: 'no-store' });
    const body = await json(res);
    if (res.ok && typeof body.name === 'string') return { ok: true, me: { name: body.name, scopes: Array.isArray(body.scopes) ? body.scopes : [] } };
    return { ok: false, status: res.status, reason: body.detail };
  } catch {
    return { ok: false, status: 0, reason: 'the hookmap server does not answer' };
  }
}

/** Hooks that failed open while hookmap was down; undefined when the server does not say (an older one, or offline). */
export async function failedOpen(): Promise<Missed | undefined> {
  try {
    const res = await fetch('/inbox/api/failed-open', { credentials: 'same-origin', cache: 'no-store' });
    return res.ok ? parseMissed(await json(res)) : undefined;
  } catch {
    return undefined;
  }
}

export async function login(cred: { token: string } | { code: string }): Promise<MeResult> {
  try {
    const res = await fetch('/inbox/api/login', {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(cred),
    });
    const body = await json(res);
    if (res.ok && typeof body.name === 'string') return { ok: true, me: { name: body.name, scopes: Array.isArray(body.scopes) ? body.scopes : [] } };
    return { ok: false, status: res.status, reason: body.detail };
  } catch {
    return { ok: false, status: 0, reason: 'the hookmap server does not answer' };
  }
}

export async function logout(): Promise<void> {
  await fetch('/inbox/api/logout', { method: 'POST', credentials: 'same-origin', headers: { 'content-type': 'application/json' }, body: '{}' }).catch(() => {});
}

/** A one-time login code in the fragment (`#login=...`): taken out of the address bar before anything else. */
export function takeLoginCode(): string | undefined {
  const m = /(?:^#|&)login=([A-Za-z0-9_-]{16,128})/.exec(location.hash);
  if (!m) return undefined;
  history.replaceState(null, '', location.pathname + location.search);
  return m[1];
}
