// Shared by the security tests: `hookmap up` in-process the way a new user
// gets it (a fresh HOOKMAP_HOME, the owner token created there), raw HTTP
// requests that can set any Host/Origin, and a WebSocket upgrade probe.
import http from 'node:http';
import WebSocket from 'ws';
import { upStack as sharedUpStack, type UpStack, type UpStackOptions } from '../helpers/up-stack.ts';

export type { UpStack } from '../helpers/up-stack.ts';
export { until } from '../runtime/daemon/helpers.ts';

/** `hookmap up` on an ephemeral port with a fresh home and its owner token file; one agent by default (test/helpers/up-stack.ts). */
export const upStack = (o: UpStackOptions = {}): Promise<UpStack> => sharedUpStack({ prefix: 'hookmap-sec-', ...o });

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** One HTTP request with exactly the headers given (Host included), body optional. */
export function raw(url: string, o: { method?: string; path: string; headers?: Record<string, string>; body?: string | Buffer }): Promise<RawResponse> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: u.hostname,
        port: u.port,
        method: o.method ?? 'GET',
        path: o.path,
        headers: o.headers,
        setHost: !(o.headers && Object.keys(o.headers).some((k) => k.toLowerCase() === 'host')),
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        // an SSE stream that was admitted never ends: the status is the answer
        if (String(res.headers['content-type'] ?? '').startsWith('text/event-stream')) {
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: '' });
          req.destroy();
          return;
        }
        res.on('data', (c) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    if (o.body !== undefined) req.write(o.body);
    req.end();
  });
}

/** Try a WebSocket upgrade; resolves with the HTTP status of a refusal, or 101 when it opened. */
export function upgradeStatus(url: string, headers: Record<string, string>, origin?: string, path = '/socket'): Promise<number> {
  return new Promise((resolve) => {
    const ws = new WebSocket(`${url.replace(/^http/, 'ws')}${path}`, { headers, origin });
    ws.on('unexpected-response', (_req, res) => {
      resolve(res.statusCode ?? 0);
      ws.terminate();
    });
    ws.on('open', () => {
      resolve(101);
      ws.close();
    });
    ws.on('error', () => resolve(-1));
  });
}
