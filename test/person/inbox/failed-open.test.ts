// Issue 31 item 14 on `hookmap up`: what the shims traced while nothing
// answered is said once at the start, moved aside, and served to the signed-in
// inbox (GET /inbox/api/failed-open) together with what fails open while up
// runs; a request without the cookie, or from another origin, gets 401.
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startUp, type Up } from '../../../engine/app/up.ts';
import { COOKIE } from '../../../engine/person/inbox/routes.ts';
import { tempDir } from '../../runtime/daemon/helpers.ts';

const TOKEN = 'inbox-failed-open-token';
const ups: Up[] = [];
const tmps: { done: () => void }[] = [];
afterAll(async () => {
  for (const u of ups) await u.close().catch(() => {});
  for (const t of tmps) t.done();
});

describe('hooks that failed open, on up', () => {
  it('are reported at the start, once, and served to the inbox with what came after', async () => {
    const tmp = tempDir('hookmap-inbox-failed-open-');
    tmps.push(tmp);
    const home = tmp.dir;
    writeFileSync(join(home, 'failed-open.log'), '2026-12-01T09:02:00Z\tclaude-code\tSessionStart\tdown\n2026-12-01T09:40:00Z\tclaude-code\tStop\tdown\n');
    const said: string[] = [];
    const up = await startUp({ port: 0, token: TOKEN, home, logDir: join(home, 'logs'), agents: [], say: (l: string) => said.push(l) });
    ups.push(up);
    expect(said.join('\n')).toMatch(
      /missed:   2 hooks \(claude-code 2\) between 2026-12-01T09:02:00Z and 2026-12-01T09:40:00Z: nothing listening, while hookmap was not answering/,
    );
    expect(existsSync(join(home, 'failed-open.log'))).toBe(false);
    expect(existsSync(join(home, 'failed-open.seen.log'))).toBe(true);
    // a hook that times out while up runs: the shim appends again
    writeFileSync(join(home, 'failed-open.log'), '2026-12-01T10:00:00Z\tcodex\tPreToolUse\ttimeout\n');

    const login = await fetch(`${up.url}/inbox/api/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: up.url },
      body: JSON.stringify({ token: TOKEN }),
    });
    const cookie = /hookmap_inbox=([^;]*)/.exec(login.headers.get('set-cookie') ?? '')?.[1];
    expect(cookie).toBeTruthy();
    const get = (headers: Record<string, string>) => fetch(`${up.url}/inbox/api/failed-open`, { headers });
    const r = await get({ cookie: `${COOKIE}=${cookie}`, 'sec-fetch-site': 'same-origin' });
    expect(r.status).toBe(200);
    const body = await r.json();
    expect(body).toMatchObject({ count: 3, first: '2026-12-01T09:02:00Z', last: '2026-12-01T10:00:00Z' });
    expect(body.agents.map((a: any) => [a.agent, a.count, a.why])).toEqual([
      ['claude-code', 2, { down: 2 }],
      ['codex', 1, { timeout: 1 }],
    ]);
    // no cookie, a cross-site request, a forged cookie: refused
    expect((await get({})).status).toBe(401);
    expect((await get({ cookie: `${COOKIE}=${cookie}`, origin: 'http://evil.example' })).status).toBe(403); // the origin guard, before any route
    expect((await get({ cookie: `${COOKIE}=${cookie}`, 'sec-fetch-site': 'cross-site' })).status).toBe(401);
    expect((await get({ cookie: `${COOKIE}=forged`, 'sec-fetch-site': 'same-origin' })).status).toBe(401);
    // a bearer token is not a browser session: this route is the page's
    expect((await get({ authorization: `Bearer ${TOKEN}` })).status).toBe(401);
  });

  it('says nothing when nothing failed open', async () => {
    const tmp = tempDir('hookmap-inbox-failed-open-');
    tmps.push(tmp);
    const said: string[] = [];
    const up = await startUp({ port: 0, token: TOKEN, home: tmp.dir, logDir: join(tmp.dir, 'logs'), agents: [], say: (l: string) => said.push(l) });
    ups.push(up);
    expect(said.join('\n')).not.toMatch(/missed/);
  });
});
