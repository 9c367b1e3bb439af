// Which token a client presents (engine/runtime/auth/discover.ts, issue 10 "clients
// find it"; issue 15 failover lists): the owner token in $HOOKMAP_HOME is
// offered only to relays on this machine — for a comma-separated failover
// list, only when every relay in it is local, so a list naming one remote
// host never carries the owner token off the machine.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { discoverToken, urlIsLoopback } from '../../engine/runtime/auth/discover.ts';
import { tokenSources } from '../../engine/cli/config.ts';

const home = mkdtempSync(join(tmpdir(), 'hookmap-discover-'));
writeFileSync(join(home, 'token'), 'owner-secret-token\n', { mode: 0o600 });
const env = { HOOKMAP_HOME: home };
afterAll(() => rmSync(home, { recursive: true, force: true }));

describe('the owner token goes only to relays on this machine', () => {
  it('one loopback relay, and a failover list of loopback relays: the owner token', () => {
    for (const url of ['http://127.0.0.1:8787', 'http://localhost:1,http://127.0.0.1:2', ' http://[::1]:3 , http://127.0.0.1:4 ']) {
      const t = discoverToken({ url, from: tokenSources(env) });
      expect(t.from, url).toBe('home');
      expect(t.token).toBe('owner-secret-token');
    }
  });
  it('a remote relay, or a list with one remote relay in it: no token offered', () => {
    for (const url of ['https://relay.example:8787', 'http://127.0.0.1:1,https://relay.example:8787', 'http://127.0.0.1:1,not a url', '', ',']) {
      expect(urlIsLoopback(url), url).toBe(false);
      expect(discoverToken({ url, from: tokenSources(env) }), url).toEqual({ from: 'none' });
    }
  });
});
