// The owner token file replaced while `hookmap up` runs: clients holding the
// old token are cut off (the relay closes revoked connections) and the new
// token works at once, but up's own in-process links (its daemons' relay
// links, the operator log, bridges) must not be among the revoked: before,
// they presented the owner token read at start, the relay closed them on the
// change and refused every reconnect, and the stream went silent until up was
// restarted (events only in the logs). Now they hold an in-memory credential
// of their own, never written anywhere, which no file change revokes.
import { mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { upStack, watchAll, type UpStack, type Watcher } from '../helpers/up-stack.ts';
import { until } from '../runtime/daemon/helpers.ts';
import { startServe } from '../../engine/app/serve.ts';
import { Authorizer, TokenSource } from '../../engine/runtime/auth/authorizer.ts';
import { ensureOwnerToken } from '../../engine/runtime/auth/tokens.ts';
import { loadVendor } from '../../engine/core/descriptor/registry.ts';
import { createRelay } from '../../engine/runtime/relay/index.ts';
import { hookKeyHeaders } from '../../engine/runtime/auth/hook-key.mjs';

const stops: (() => unknown)[] = [];
afterEach(async () => {
  while (stops.length) await stops.pop()!();
});

// `home`: a served daemon with a home requires its hook key, as every shim presents it (engine/runtime/auth/hook-key.mjs)
const hook = (url: string, body: Record<string, unknown>, home?: string) =>
  fetch(`${url}/hooks/codex`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(home ? hookKeyHeaders(home) : {}) },
    body: JSON.stringify(body),
  });
const start = (session: string) => ({ hook_event_name: 'SessionStart', session_id: session, source: 'startup', model: 'gpt-5', cwd: '/w' });

const filesUnder = (dir: string): string[] =>
  readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });

/** What a careful operator does: a new file renamed over the old one (0600). */
function replaceToken(home: string, token: string): void {
  const file = join(home, 'token');
  writeFileSync(`${file}.new`, `${token}\n`, { mode: 0o600 });
  renameSync(`${file}.new`, file);
}

/** /healthz answers everyone; only a valid token gets the detail (sessions, the relay state), anyone else a bare `{ ok: true }`. */
async function healthz(s: UpStack, token: string): Promise<any> {
  const body = await (await fetch(`${s.url}/healthz`, { headers: { authorization: `Bearer ${token}` } })).json();
  return 'sessions' in body ? body : undefined;
}

describe('owner token replaced while up runs', () => {
  it("the old token is refused, the new one reads the stream, and up's daemons keep delivering (no restart)", async () => {
    const s = await upStack({ prefix: 'hookmap-owner-rotate-', hello: true });
    stops.push(() => s.done());
    expect((await hook(s.url, start('before-rotation'))).status).toBe(200);
    const before: Watcher = await watchAll(s.url, s.token);
    stops.push(() => before.close());
    await before.seen((e) => e.session === 'before-rotation' && e.type === 'session.started', 'the first session on the stream');

    const NEW = 'hmk_owner_rotated_0123456789abcdef0123456789';
    replaceToken(s.home, NEW);
    // the old token: refused from the next request on
    await until('the old token refused', async () => (await healthz(s, s.token)) === undefined);
    // the daemon's link is up (or back up) under the new regime
    await until("the daemon's relay link after the change", async () => (await healthz(s, NEW))?.relay === true, 10_000);

    expect((await hook(s.url, start('after-rotation'))).status).toBe(200);
    const after = await watchAll(s.url, NEW);
    stops.push(() => after.close());
    const ev = await after.seen((e) => e.session === 'after-rotation' && e.type === 'session.started', 'the session started after the rotation, on the stream');
    expect(ev.agent).toBe('codex');
    // nothing from before was lost either: a reader from `all` with the new token has both
    expect(after.stream.some((e) => e.session === 'before-rotation')).toBe(true);
    // a guessed credential of the in-process shape is nobody's: refused like any unknown token
    const forged = await fetch(`${s.url}/events`, {
      method: 'POST',
      headers: { authorization: 'Bearer hmk_up_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', 'content-type': 'application/json' },
      body: '{}',
    });
    expect(forged.status).toBe(401);
    // up's own credential is nowhere a reader could find it: not in what up said, not in any file of its home
    expect(s.lines.join('\n')).not.toContain('hmk_up_');
    expect(filesUnder(s.home).filter((f) => readFileSync(f, 'latin1').includes('hmk_up_'))).toEqual([]);
  }, 30_000);

  it('`hookmap serve` follows the token file it read: after the relay cut the old token off, its link reconnects with the new one', async () => {
    const home = mkdtempSync(join(tmpdir(), 'hookmap-serve-rotate-'));
    stops.push(() => rmSync(home, { recursive: true, force: true }));
    const owner = ensureOwnerToken(home);
    const relay = createRelay({ host: '127.0.0.1', port: 0, auth: new Authorizer([new TokenSource({ ownerTokenFile: owner.path, home })]) });
    const { url } = await relay.listen();
    stops.push(() => relay.close());
    const said: string[] = [];
    const served = await startServe({
      descriptor: loadVendor('codex'),
      port: 0,
      relay: url,
      token: owner.token,
      tokenFile: owner.path,
      home,
      logDir: join(home, 'logs'),
      say: (l) => said.push(l),
    });
    stops.push(() => served.close());
    const relayUp = async () => (await (await fetch(`${served.url}/healthz`)).json()).relay === true;
    await until("serve's relay hello", relayUp);

    const NEW = 'hmk_owner_rotated_serve_0123456789abcdef01234';
    replaceToken(home, NEW);
    // the relay closes the link the old token opened; serve comes back on the new one
    await until('the link cut off and back', () => said.filter((l) => /relay link up/.test(l)).length >= 2, 15_000);
    await until("serve's relay hello again", relayUp);
    expect((await hook(served.url, start('serve-after-rotation'), home)).status).toBe(200);
    const w = await watchAll(url, NEW);
    stops.push(() => w.close());
    await w.seen((e) => e.session === 'serve-after-rotation' && e.type === 'session.started', 'the session started after the rotation, on the stream');
  }, 30_000);
});
