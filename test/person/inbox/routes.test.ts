// The web inbox's server side on `hookmap up`: the page and its assets, sign
// in with the token or a one-time code, the HttpOnly SameSite cookie, sign
// out, and the cookie as a relay credential. Every attack tried as a test:
// another origin, a plain-text POST, a GET that would change state, a code
// replayed or expired, a cookie from a stopped session, a rotated token, a
// cookie presented without a browser's same-origin proof, a read-only or
// revoked token.
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startUp, type Up } from '../../../engine/app/up.ts';
import { COOKIE } from '../../../engine/person/inbox/routes.ts';
import { InboxSessions, CODE_TTL_MS } from '../../../engine/person/inbox/sessions.ts';
import { authorizerCredentials } from '../../../engine/person/inbox/index.ts';
import { Authorizer, TokenSource } from '../../../engine/runtime/auth/authorizer.ts';
import { addToken, revokeToken } from '../../../engine/runtime/auth/tokens.ts';
import { tempDir } from '../../runtime/daemon/helpers.ts';

const TOKEN = 'inbox-routes-token';
const ups: Up[] = [];
const tmps: { done: () => void }[] = [];

afterAll(async () => {
  for (const u of ups) await u.close().catch(() => {});
  for (const t of tmps) t.done();
});

async function bare(token: string | null = TOKEN, home?: string): Promise<{ up: Up; url: string; home: string; origin: string }> {
  const tmp = tempDir('hookmap-inbox-routes-');
  tmps.push(tmp);
  const h = home ?? tmp.dir;
  const up = await startUp({ port: 0, ...(token === null ? { noAuth: true } : { token }), home: h, logDir: tmp.dir, agents: [] });
  ups.push(up);
  return { up, url: up.url, home: h, origin: up.url };
}

const sameOrigin = (origin: string) => ({ origin });
const json = { 'content-type': 'application/json' };

async function login(url: string, body: unknown, headers: Record<string, string> = {}) {
  const r = await fetch(`${url}/inbox/api/login`, { method: 'POST', headers: { ...json, origin: url, ...headers }, body: JSON.stringify(body) });
  const set = r.headers.get('set-cookie') ?? '';
  const cookie = /hookmap_inbox=([^;]*)/.exec(set)?.[1];
  return { status: r.status, body: (await r.json().catch(() => ({}))) as any, set, cookie };
}

const me = (url: string, cookie: string | undefined, headers: Record<string, string> = { 'sec-fetch-site': 'same-origin' }) =>
  fetch(`${url}/inbox/api/me`, { headers: { ...(cookie ? { cookie: `${COOKIE}=${cookie}` } : {}), ...headers } });

describe('the page', () => {
  it('is served at / with a strict CSP, never cached, its assets from this origin with ETags', async () => {
    const { url } = await bare();
    const r = await fetch(`${url}/`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/html/);
    expect(r.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(r.headers.get('content-security-policy')).toContain("connect-src 'self'");
    expect(r.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(r.headers.get('cache-control')).toBe('no-store');
    const html = await r.text();
    expect(html).toContain('<script type="module" crossorigin src="/inbox/assets/inbox.js"></script>');
    expect(html).not.toMatch(/https?:\/\//); // nothing fetched from the network
    const js = await fetch(`${url}/inbox/assets/inbox.js`);
    expect(js.headers.get('content-type')).toMatch(/^text\/javascript/);
    const etag = js.headers.get('etag')!;
    expect((await fetch(`${url}/inbox/assets/inbox.js`, { headers: { 'if-none-match': etag } })).status).toBe(304);
    expect((await fetch(`${url}/inbox/assets/inbox.css`)).headers.get('content-type')).toMatch(/^text\/css/);
    expect((await fetch(`${url}/inbox/assets/../../package.json`)).status).toBe(404);
  });
});

describe('sign in and out', () => {
  it('a wrong token gets 401 and no cookie; the right one an HttpOnly SameSite=Strict cookie holding no token', async () => {
    const { url } = await bare();
    const bad = await login(url, { token: 'nope' });
    expect(bad.status).toBe(401);
    expect(bad.set).toBe('');
    const ok = await login(url, { token: TOKEN });
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ name: 'owner', scopes: ['read', 'emit', 'control'] });
    expect(ok.set).toMatch(/^hookmap_inbox=[A-Za-z0-9_-]{40,}; Path=\/; HttpOnly; SameSite=Strict; Max-Age=\d+$/);
    expect(ok.set).not.toContain(TOKEN);
    const r = await me(url, ok.cookie);
    expect(r.status).toBe(200);
    expect(await r.json()).toEqual({ name: 'owner', scopes: ['read', 'emit', 'control'] });
  });

  it('the cookie counts only with a browser’s same-origin proof: Origin of this host, or Sec-Fetch-Site same-origin', async () => {
    const { url } = await bare();
    const { cookie } = await login(url, { token: TOKEN });
    expect((await me(url, cookie, {})).status).toBe(401); // no proof at all: a stolen cookie in a script is not enough
    expect((await me(url, cookie, { 'sec-fetch-site': 'cross-site' })).status).toBe(401);
    expect((await me(url, cookie, { 'sec-fetch-site': 'same-site' })).status).toBe(401); // another port on localhost is same-site, not same-origin
    // another origin never reaches the route: the server's guard refuses it (403), cookie or not
    expect((await me(url, cookie, { origin: 'http://evil.example' })).status).toBe(403);
    expect((await me(url, cookie, { origin: url.replace(/:\d+$/, ':1') })).status).toBe(403);
    expect((await me(url, cookie, { origin: 'null' })).status).toBe(403);
    expect((await me(url, cookie, sameOrigin(url))).status).toBe(200);
  });

  it('state changes are JSON POSTs from this origin only: text/plain, another origin and GET are refused', async () => {
    const { url } = await bare();
    const plain = await fetch(`${url}/inbox/api/login`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain', origin: url },
      body: JSON.stringify({ token: TOKEN }),
    });
    expect(plain.status).toBe(415);
    expect(plain.headers.get('set-cookie')).toBeNull();
    const form = await fetch(`${url}/inbox/api/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: url },
      body: `token=${TOKEN}`,
    });
    expect(form.status).toBe(415);
    const cross = await login(url, { token: TOKEN }, { origin: 'http://evil.example' });
    expect(cross.status).toBe(403);
    expect(cross.set).toBe('');
    for (const path of ['/inbox/api/login', '/inbox/api/logout', '/inbox/api/link']) expect((await fetch(`${url}${path}`)).status).toBe(404);
    const huge = await fetch(`${url}/inbox/api/login`, {
      method: 'POST',
      headers: { ...json, origin: url },
      body: JSON.stringify({ token: 'x'.repeat(10_000) }),
    });
    expect(huge.status).toBe(413);
    const garbage = await fetch(`${url}/inbox/api/login`, { method: 'POST', headers: { ...json, origin: url }, body: '{"token":' });
    expect(garbage.status).toBe(400);
  });

  it('sign out ends the session: the same cookie is refused afterwards', async () => {
    const { url } = await bare();
    const { cookie } = await login(url, { token: TOKEN });
    const out = await fetch(`${url}/inbox/api/logout`, { method: 'POST', headers: { ...json, origin: url, cookie: `${COOKIE}=${cookie}` }, body: '{}' });
    expect(out.status).toBe(204);
    expect(out.headers.get('set-cookie')).toMatch(/^hookmap_inbox=; .*Max-Age=0/);
    expect((await me(url, cookie)).status).toBe(401);
  });

  it('on a --no-auth (watch-only) server nobody can sign in, and the page says why', async () => {
    const { url } = await bare(null);
    const r = await login(url, { token: 'anything' });
    expect(r.status).toBe(401);
    expect(r.body.detail).toMatch(/--no-auth/);
    expect(((await (await me(url, undefined)).json()) as any).detail).toMatch(/--no-auth/);
  });
});

describe('one-time links (hookmap open)', () => {
  it('only a bearer token mints a code; the code signs in once, never twice', async () => {
    const { url } = await bare();
    expect((await fetch(`${url}/inbox/api/link`, { method: 'POST', headers: json, body: '{}' })).status).toBe(401);
    expect((await fetch(`${url}/inbox/api/link`, { method: 'POST', headers: { ...json, authorization: 'Bearer wrong' }, body: '{}' })).status).toBe(401);
    const { cookie } = await login(url, { token: TOKEN });
    expect(
      (await fetch(`${url}/inbox/api/link`, { method: 'POST', headers: { ...json, origin: url, cookie: `${COOKIE}=${cookie}` }, body: '{}' })).status,
    ).toBe(401); // a browser session cannot mint links
    const r = await fetch(`${url}/inbox/api/link`, { method: 'POST', headers: { ...json, authorization: `Bearer ${TOKEN}` }, body: '{}' });
    expect(r.status).toBe(200);
    const link = (await r.json()) as any;
    expect(link.path).toBe(`/#login=${link.code}`);
    expect(link.path).not.toContain(TOKEN);
    expect(link.expires_in).toBe(CODE_TTL_MS / 1000);
    const first = await login(url, { code: link.code });
    expect(first.status).toBe(200);
    expect((await me(url, first.cookie)).status).toBe(200);
    const again = await login(url, { code: link.code });
    expect(again.status).toBe(401);
    expect(again.body.detail).toMatch(/expired or was already used/);
  });

  it('`hookmap open --no-browser` prints the link; the token is not in it', async () => {
    const { url } = await bare();
    const { run } = await import('../../../engine/cli/commands/open.ts');
    const out: string[] = [];
    const orig = process.stdout.write.bind(process.stdout);
    const origErr = process.stderr.write.bind(process.stderr);
    (process.stdout as any).write = (c: string) => (out.push(String(c)), true);
    (process.stderr as any).write = () => true;
    let code: number;
    try {
      code = await run(['--url', url, '--token', TOKEN, '--no-browser']); // --token: a test process has no $HOOKMAP_HOME/token of this server
    } finally {
      (process.stdout as any).write = orig;
      (process.stderr as any).write = origErr;
    }
    expect(code).toBe(0);
    const printed = out.join('').trim();
    expect(printed).toMatch(new RegExp(`^${url}/#login=[A-Za-z0-9_-]{40,}$`));
    expect(printed).not.toContain(TOKEN);
    expect((await login(url, { code: printed.split('#login=')[1] })).status).toBe(200);
  });

  it('a code expires after its window', () => {
    let now = 1_000_000;
    const creds = authorizerCredentials(new Authorizer([new TokenSource({ ownerToken: TOKEN })]));
    const sessions = new InboxSessions(creds, undefined, () => now);
    const p = creds.byToken(TOKEN)!;
    const { code } = sessions.issueCode(p);
    now += CODE_TTL_MS + 1;
    expect(sessions.redeem(code)).toBeUndefined();
    const fresh = sessions.issueCode(p).code;
    now += CODE_TTL_MS - 1;
    expect(sessions.redeem(fresh)?.name).toBe('owner');
  });
});

describe('sessions across restarts and token changes', () => {
  it('persist hashed in $HOOKMAP_HOME (0600): a restart keeps the cookie; a new token ends it', async () => {
    const first = await bare();
    const { cookie } = await login(first.url, { token: TOKEN });
    const file = join(first.home, 'inbox-sessions.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const text = readFileSync(file, 'utf8');
    expect(text).not.toContain(cookie!);
    expect(text).not.toContain(TOKEN);
    await first.up.close();
    const again = await bare(TOKEN, first.home);
    expect((await me(again.url, cookie)).status).toBe(200);
    await again.up.close();
    const rotated = await bare('a-new-token', first.home);
    expect((await me(rotated.url, cookie)).status).toBe(401);
  });
});

describe('the cookie as a relay credential', () => {
  it('opens the relay’s HTTP and WebSocket for same-origin requests only', async () => {
    const { url } = await bare();
    const { cookie } = await login(url, { token: TOKEN });
    const c = `${COOKIE}=${cookie}`;
    expect((await fetch(`${url}/events`, { headers: { cookie: c, 'sec-fetch-site': 'same-origin' } })).status).toBe(200);
    expect((await fetch(`${url}/events`, { headers: { cookie: c, origin: 'http://evil.example' } })).status).toBe(403);
    expect((await fetch(`${url}/events`, { headers: { cookie: c } })).status).toBe(401);
    const ws = (origin: string) =>
      new Promise<string>((resolve) => {
        const s = new WebSocket(`${url.replace(/^http/, 'ws')}/socket`, { headers: { cookie: c, origin } });
        s.on('open', () => s.send(JSON.stringify({ type: 'hello', versions: ['0.1'], role: 'consumer', identity: {}, capabilities: {} })));
        s.on('message', (m) => {
          resolve(JSON.parse(String(m)).type);
          s.close();
        });
        s.on('unexpected-response', (_req, res) => resolve(`http ${res.statusCode}`));
        s.on('error', () => {});
      });
    expect(await ws(url)).toBe('hello');
    expect(await ws('http://evil.example')).toBe('http 403'); // the Host/Origin guard refuses a cross-site page first (engine/runtime/auth/guard.ts)
    expect(await ws(url.replace('127.0.0.1', 'localhost'))).toBe('http 403'); // another origin, even on this machine
  });
});

/** A same-origin WebSocket on the relay carrying only the inbox cookie: frames received, and how it closed. */
function cookieSocket(url: string, cookie: string): Promise<{ frames: any[]; closed: Promise<number>; send(f: unknown): void; close(): void }> {
  return new Promise((resolve, reject) => {
    const s = new WebSocket(`${url.replace(/^http/, 'ws')}/socket`, { headers: { cookie: `${COOKIE}=${cookie}`, origin: url } });
    const frames: any[] = [];
    const closed = new Promise<number>((r) => s.on('close', (code) => r(code)));
    s.on('message', (m) => frames.push(JSON.parse(String(m))));
    s.on('unexpected-response', (_req, res) => reject(new Error(`http ${res.statusCode}`)));
    s.on('error', () => {});
    s.on('open', () => {
      s.send(JSON.stringify({ type: 'hello', versions: ['0.1'], role: 'consumer', identity: { agent: 'hookmap-inbox', instance: 'test' }, capabilities: {} }));
      resolve({ frames, closed, send: (f) => s.send(JSON.stringify(f)), close: () => s.close() });
    });
  });
}

const waitFor = async <T>(what: string, fn: () => T | undefined | false): Promise<T> => {
  for (let i = 0; i < 500; i++) {
    const v = fn();
    if (v) return v;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`gave up waiting for ${what}`);
};

describe('named tokens: read-only, revoked', () => {
  it('a read-only token signs in with its own name and scopes; the relay refuses its commands sent over the cookie', async () => {
    const tmp = tempDir('hookmap-inbox-named-');
    tmps.push(tmp);
    const { token: readToken } = addToken(tmp.dir, 'alex', 'read');
    const { url } = await bare(TOKEN, tmp.dir);
    const r = await login(url, { token: readToken });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ name: 'alex', scopes: ['read'] });
    expect(await (await me(url, r.cookie)).json()).toEqual({ name: 'alex', scopes: ['read'] });
    const sock = await cookieSocket(url, r.cookie!);
    await waitFor('hello', () => sock.frames.find((f) => f.type === 'hello'));
    // what the page would send if its buttons were there (a hand-made request: the page hides them)
    sock.send({
      aep: '0.1',
      id: '01JREADONLY00000000000000',
      type: 'control.attention.respond',
      time: new Date().toISOString(),
      source: 'aep://test/agent/hookmap-inbox/x',
      agent: 'hookmap-inbox',
      session: 's1',
      subject: 'att-1',
      data: { answer: { option: 'allow' } },
    });
    const refusal = await waitFor('the refusal', () => sock.frames.find((f) => f.type !== 'hello'));
    expect(JSON.stringify(refusal)).toMatch(/'alex' may not send commands/);
    sock.close();
  });

  it('revoking the token a cookie was made from ends the session at once: the page’s open WebSocket is closed, the cookie refused', async () => {
    const tmp = tempDir('hookmap-inbox-revoke-');
    tmps.push(tmp);
    const { token: phoneToken } = addToken(tmp.dir, 'phone', 'control');
    const { url } = await bare(TOKEN, tmp.dir);
    const { cookie } = await login(url, { token: phoneToken });
    const sock = await cookieSocket(url, cookie!);
    await waitFor('hello', () => sock.frames.find((f) => f.type === 'hello'));
    expect(revokeToken(tmp.dir, 'phone')).toBe(true);
    expect(await sock.closed).toBeGreaterThanOrEqual(1000);
    expect((await me(url, cookie)).status).toBe(401);
    expect((await fetch(`${url}/events`, { headers: { cookie: `${COOKIE}=${cookie}`, 'sec-fetch-site': 'same-origin' } })).status).toBe(401);
    // the owner's own sign-in is untouched
    expect((await login(url, { token: TOKEN })).status).toBe(200);
  });

  it('signing out closes the WebSocket that cookie opened', async () => {
    const { url } = await bare();
    const { cookie } = await login(url, { token: TOKEN });
    const sock = await cookieSocket(url, cookie!);
    await waitFor('hello', () => sock.frames.find((f) => f.type === 'hello'));
    const out = await fetch(`${url}/inbox/api/logout`, { method: 'POST', headers: { ...json, origin: url, cookie: `${COOKIE}=${cookie}` }, body: '{}' });
    expect(out.status).toBe(204);
    expect(await sock.closed).toBeGreaterThanOrEqual(1000);
  });
});

describe('WebSocket upgrades and resets', () => {
  it('a client resetting its upgrade (to /socket, refused, or to a path nobody serves) does not take hookmap up down', async () => {
    const { url, up } = await bare();
    const { connect } = await import('node:net');
    for (const path of ['/socket', '/nowhere', '/surfaces/x/tee']) {
      await new Promise<void>((resolve) => {
        const s = connect(up.port, '127.0.0.1', () => {
          s.write(
            `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${up.port}\r\nUpgrade: websocket\r\nConnection: ` +
              `Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: ` +
              `13\r\n\r\n`,
          );
          setTimeout(() => {
            s.resetAndDestroy();
            resolve();
          }, 100);
        });
        s.on('error', () => {});
      });
    }
    await new Promise((r) => setTimeout(r, 200));
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
  });
});
