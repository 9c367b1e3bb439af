// A small HTTP server on loopback that records what it is sent, for the
// channels that POST (an ntfy server: JSON publishing at its root, bearer
// access tokens, https://docs.ntfy.sh/publish/#publish-as-json; a webhook
// receiver). `check` may refuse a request (a wrong token, a bad signature);
// `next` makes the next requests answer a status (a 500, a 429).
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Recorded {
  path: string;
  headers: IncomingHttpHeaders;
  raw: string;
  body: any;
  at: number;
}

export interface Recorder {
  url: string;
  got: Recorded[];
  refused: { why: string; raw: string }[];
  next(...statuses: number[]): void;
  close(): Promise<void>;
}

export async function startRecorder(check?: (r: Recorded) => string | undefined, reply: (r: Recorded) => unknown = () => ({ ok: true })): Promise<Recorder> {
  const got: Recorded[] = [];
  const refused: Recorder['refused'] = [];
  const queue: number[] = [];
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const status = queue.shift();
      if (status !== undefined) return void res.writeHead(status, status === 429 ? { 'retry-after': '1' } : {}).end();
      let body: unknown;
      try {
        body = JSON.parse(raw);
      } catch {
        body = raw;
      }
      const r: Recorded = { path: req.url ?? '/', headers: req.headers, raw, body, at: Date.now() };
      const why = check?.(r);
      if (why) {
        refused.push({ why, raw });
        return void res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: why }));
      }
      got.push(r);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(reply(r)));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    got,
    refused,
    next: (...s) => queue.push(...s),
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
}
