// `hookmap up --public-url https://...` (issue 23, reach from the phone):
// behind a TLS-terminating proxy (Tailscale serve, a tunnel) the inbox is
// reached under the proxy's name and origin; those are this server's own
// (sign-in and the push API work there), and another origin still is not.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'node:http';
import { upStack, type UpStack } from '../../helpers/up-stack.ts';

let s: UpStack;
const PUBLIC = 'https://laptop.tail1234.ts.net';

beforeAll(async () => {
  s = await upStack({ prefix: 'hookmap-public-', publicUrl: PUBLIC });
}, 30_000);
afterAll(() => s?.done());

/** A POST as the proxy forwards it: its Host, the browser's Origin. */
function viaProxy(path: string, body: unknown, origin: string, host = 'laptop.tail1234.ts.net'): Promise<{ status: number; text: string; cookie?: string }> {
  const u = new URL(s.url);
  return new Promise((resolve, reject) => {
    const data = JSON.stringify(body);
    const req = request(
      {
        host: u.hostname,
        port: u.port,
        path,
        method: 'POST',
        headers: { host, origin, 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) },
      },
      (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode!, text, cookie: String(res.headers['set-cookie'] ?? '') }));
      },
    );
    req.on('error', reject);
    req.end(data);
  });
}

describe('up --public-url', () => {
  it("signs in through the proxy's origin, and refuses any other", async () => {
    const ok = await viaProxy('/inbox/api/login', { token: s.token }, PUBLIC);
    expect(ok.status, ok.text).toBe(200);
    expect(ok.cookie).toMatch(/HttpOnly; SameSite=Strict/);
    const evil = await viaProxy('/inbox/api/login', { token: s.token }, 'https://evil.example');
    expect(evil.status).toBe(403);
    const foreignHost = await viaProxy('/inbox/api/login', { token: s.token }, PUBLIC, 'evil.example');
    expect(foreignHost.status).toBe(421);
  });

  it('refuses an address that is not an https origin', async () => {
    const { runCli } = await import('../../helpers/cli.ts');
    const r = await runCli(['up', '--port', '0', '--public-url', 'http://laptop.lan:8787'], { ...process.env, HOOKMAP_HOME: s.home });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--public-url must be an https origin/);
  });
});
