// Does the daemon answer? `GET /healthz` -> `{ ok, relay }` within a short
// bound (loopback: anything slower is already a problem).
import { request } from 'node:http';

export interface Health { url: string; reachable: boolean; ok?: boolean; relay?: boolean; error?: string }

export function checkHealth(base: string, timeoutMs = 1500): Promise<Health> {
  const url = `${base}/healthz`;
  return new Promise((resolve) => {
    const req = request(url, { method: 'GET', agent: false, timeout: timeoutMs }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        try {
          const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
          resolve({ url, reachable: true, ok: res.statusCode === 200 && body?.ok === true, relay: body?.relay === true });
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
