// Test doubles for the bridge suites: an HTTP sink whose behaviour each test
// scripts (accept, 500, hang), a TCP proxy that can cut every connection
// through it (a relay dropping mid-stream), and event factories.
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';

export type SinkMode = 'ok' | '500' | 'hang';

export class ScriptedSink {
  mode: SinkMode = 'ok';
  requests = 0;
  /** Bodies of accepted requests. */
  accepted: { headers: http.IncomingHttpHeaders; body: Buffer; url: string }[] = [];
  private server!: http.Server;
  private hung: http.ServerResponse[] = [];
  url = '';

  static async start(): Promise<ScriptedSink> {
    const s = new ScriptedSink();
    s.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => {
        s.requests++;
        if (s.mode === 'hang') {
          s.hung.push(res);
          return;
        }
        if (s.mode === '500') {
          res.writeHead(500).end('collector exploded');
          return;
        }
        s.accepted.push({ headers: req.headers, body: Buffer.concat(chunks), url: req.url ?? '' });
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((r) => s.server.listen(0, '127.0.0.1', () => r()));
    s.url = `http://127.0.0.1:${(s.server.address() as AddressInfo).port}`;
    return s;
  }

  /** CE batch bodies → the CE ids in arrival order. */
  ceIds(): string[] {
    return this.accepted.flatMap((a) => JSON.parse(a.body.toString('utf8')).map((ce: any) => ce.id));
  }

  async close(): Promise<void> {
    for (const r of this.hung) r.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.server.close(() => r()));
  }
}

/** A TCP proxy to `target`; cut() destroys every connection through it (new ones still pass). */
export class CuttingProxy {
  private sockets = new Set<net.Socket>();
  private server!: net.Server;
  url = '';
  cuts = 0;

  static async start(targetPort: number): Promise<CuttingProxy> {
    const p = new CuttingProxy();
    p.server = net.createServer((client) => {
      const upstream = net.connect(targetPort, '127.0.0.1');
      p.sockets.add(client);
      p.sockets.add(upstream);
      client.pipe(upstream).pipe(client);
      const end = () => {
        client.destroy();
        upstream.destroy();
        p.sockets.delete(client);
        p.sockets.delete(upstream);
      };
      client.on('error', end).on('close', end);
      upstream.on('error', end).on('close', end);
    });
    await new Promise<void>((r) => p.server.listen(0, '127.0.0.1', () => r()));
    p.url = `http://127.0.0.1:${(p.server.address() as AddressInfo).port}`;
    return p;
  }

  cut(): void {
    this.cuts++;
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise<void>((r) => this.server.close(() => r()));
  }
}

let n = 0;
export function sessionEvents(session: string, count: number, from = 0): any[] {
  return Array.from({ length: count }, (_, i) => ({
    aep: '0.1',
    id: `ev-${session}-${from + i}-${++n}`,
    type: 'progress.status',
    time: new Date(Date.UTC(2026, 10, 30, 9, 0, 0) + from + i).toISOString(),
    source: `aep://devbox/agent/test-agent/session/${session}`,
    agent: 'test-agent',
    session,
    seq: from + i,
    epoch: 0,
  }));
}
