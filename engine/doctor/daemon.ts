// Does the daemon answer? `GET /healthz` -> `{ ok, relay }` within a short
// bound (loopback: anything slower is already a problem). `hookmap up`
// answers a caller without a token only `{ok: true}`; the relay state needs
// the token (found like every client finds it, engine/auth/discover.ts).
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';

export interface Health { url: string; reachable: boolean; ok?: boolean; relay?: boolean; /** false: a bare `ok` (no token, or a token without read). */ detailed?: boolean; error?: string }

export function checkHealth(base: string, timeoutMs = 1500, token?: string): Promise<Health> {
  const url = `${base}/healthz`;
  const request = url.startsWith('https:') ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
    const req = request(url, { method: 'GET', agent: false, timeout: timeoutMs, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        try {
          const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
          resolve({ url, reachable: true, ok: res.statusCode === 200 && body?.ok === true, relay: body?.relay === true, detailed: body && 'relay' in body });
        } catch {
          resolve({ url, reachable: true, ok: false, error: `HTTP ${res.statusCode}, not a healthz body` });
        }
      });
      res.on('error', (e) => resolve({ url, reachable: false, error: e.message }));
    });
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', (e: NodeJS.ErrnoException) => resolve({ url, reachable: false, error: e.code ?? e.message }));
    req.end();
  });
}
