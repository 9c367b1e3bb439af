// A plugin hook's `skip:` list: the named high-volume members are never
// forwarded (they would only queue ahead of the moments that matter), the
// others still are, in order.
import http, { type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { loadVendor } from '../../../engine/core/descriptor/registry.ts';
import { hostHandlers, importPlugin } from './plugin-harness.ts';

const dir = mkdtempSync(join(tmpdir(), 'hookmap-skip-'));
let server: Server | undefined;
afterAll(() => {
  server?.close();
  rmSync(dir, { recursive: true, force: true });
});

it('skips the listed bus members and forwards the rest', async () => {
  const seen: string[] = [];
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      // the hook moments only (a session.idle also starts the next-turn waiter's POST /next-turn/opencode)
      if (req.url?.startsWith('/hooks/')) seen.push(JSON.parse(body).event?.type);
      res.end('{}');
    });
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', () => r()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const d = loadVendor('opencode');
  const env = { HOOKMAP_URL: url };
  const mod = await importPlugin(d, dir, env);
  const hooks = await hostHandlers(d, mod, { serverUrl: new URL('http://127.0.0.1:1/') }, env);
  const event = hooks.get('event')!;
  for (const type of ['plugin.added', 'message.part.delta', 'session.idle', 'plugin.added', 'message.updated']) {
    await event({ event: { type, properties: { sessionID: 's1' } } });
  }
  for (let i = 0; i < 100 && seen.length < 2; i++) await new Promise((r) => setTimeout(r, 20));
  await new Promise((r) => setTimeout(r, 100));
  expect(seen).toEqual(['session.idle', 'message.updated']);
});
