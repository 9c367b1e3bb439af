// CloudEvents in, AEP out (AEP-0005 §2): a small HTTP receiver that takes
// CloudEvents in binary, structured or batch mode (the cloudevents SDK's
// HTTP binding), maps each with the §2 inverse, and posts the AEP events to
// the relay as one NDJSON batch. Foreign CE types are refused (§2 rule 3),
// dropped attributes are reported back (§2 rule 2). One bad event refuses
// only itself; the rest of a batch is forwarded.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { authHeaders } from '../../runtime/relay/client.ts';
import { fromCloudEvent, fromHttp } from './projection/cloudevents.ts';

export interface CeInboundOptions {
  relayUrl: string;
  token?: string;
  host?: string;
  port?: number;
  maxBody?: number;
  say?: (line: string) => void;
}

export interface CeInbound {
  url: string;
  close(): Promise<void>;
  stats: { received: number; forwarded: number; refused: number };
}

interface EventResult {
  index: number;
  id?: unknown;
  ok: boolean;
  code?: string;
  detail?: string;
  dropped?: string[];
}

export async function startCeInbound(o: CeInboundOptions): Promise<CeInbound> {
  const maxBody = o.maxBody ?? 4 * 1024 * 1024;
  const stats = { received: 0, forwarded: 0, refused: 0 };
  const server = http.createServer((req, res) => {
    const reply = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.method !== 'POST') return reply(405, { error: 'method-not-allowed', detail: 'POST CloudEvents here' });
    const chunks: Buffer[] = [];
    let size = 0;
    let tooBig = false;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > maxBody) tooBig = true;
      else chunks.push(c);
    });
    req.on('end', async () => {
      if (tooBig) return reply(413, { error: 'payload-too-large', detail: `body exceeds ${maxBody} bytes` });
      let ces: Record<string, unknown>[];
      try {
        ces = fromHttp(req.headers, Buffer.concat(chunks).toString('utf8'));
      } catch (e) {
        return reply(400, { error: 'invalid-cloudevent', detail: (e as Error).message });
      }
      const results: EventResult[] = [];
      const lines: string[] = [];
      ces.forEach((ce, index) => {
        stats.received++;
        const r = fromCloudEvent(ce);
        const dropped = r.diagnostics.length ? r.diagnostics : undefined;
        if (r.error || !r.event) {
          stats.refused++;
          results.push({ index, id: ce.id, ok: false, code: r.error?.code, detail: r.error?.detail, dropped });
          return;
        }
        lines.push(JSON.stringify(r.event));
        results.push({ index, id: ce.id, ok: true, dropped });
      });
      if (lines.length) {
        try {
          const rr = await fetch(`${o.relayUrl.replace(/\/+$/, '')}/events`, {
            method: 'POST',
            headers: { 'content-type': 'application/x-ndjson', 'aep-version': '0.1', ...authHeaders(o.token) },
            body: lines.join('\n'),
            signal: AbortSignal.timeout(10_000),
          });
          const text = await rr.text();
          if (!rr.ok) {
            stats.refused += lines.length;
            return reply(502, { error: 'relay-refused', detail: `relay answered ${rr.status}: ${text.slice(0, 500)}`, results });
          }
          stats.forwarded += lines.length;
        } catch (e) {
          stats.refused += lines.length;
          return reply(502, { error: 'relay-unreachable', detail: (e as Error).message, results });
        }
      }
      const allBad = results.length > 0 && results.every((r) => !r.ok);
      reply(allBad ? 400 : 202, { accepted: results.filter((r) => r.ok).length, refused: results.filter((r) => !r.ok).length, results });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port ?? 0, o.host ?? '127.0.0.1', () => resolve());
  });
  const addr = server.address() as AddressInfo;
  const host = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  return {
    url: `http://${host}:${addr.port}`,
    stats,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
