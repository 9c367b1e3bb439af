// Browsers kept out of every endpoint of a hookmap server (relay HTTP, SSE,
// the WebSocket upgrade, the hook endpoints): a web page the user opens must
// neither read the stream nor write into the log.
//
//   Host    must name this server: 127.0.0.1, localhost, [::1], the address
//           it binds (every interface address and the host name when it
//           binds a wildcard), plus configured names. A DNS-rebinding page
//           reaches us under ITS name and is refused (421).
//   Origin  absent (curl, shims, Node clients) or same-origin passes; any
//           other origin is refused (403) unless allow-listed, `null` too.
//
// One Guard per server, installed once: `installGuard(app, guard)` adds an
// onRequest hook at the root (every route, including ones added later);
// WebSocket upgrades call `guard.upgrade(req, socket)` before anything else.
// AEP-0003 §11 (deployment-owned transport security); issue 10.
import type { FastifyInstance } from 'fastify';
import type { IncomingMessage } from 'node:http';
import { hostname, networkInterfaces } from 'node:os';
import type { Duplex } from 'node:stream';

export interface GuardOptions {
  /** The listen address (a wildcard adds every interface address and the host name). */
  bind?: string;
  /** More Host names to accept (a reverse proxy's name, a LAN name). */
  allowedHosts?: readonly string[];
  /** Cross-origin web origins to accept, exactly (`https://inbox.example`). */
  allowedOrigins?: readonly string[];
}

export interface Refusal {
  status: number;
  code: string;
  detail: string;
}

const LOOPBACK = ['127.0.0.1', 'localhost', '::1'];
const WILDCARD = new Set(['0.0.0.0', '::', '']);

/** `Host` value → bare lowercase host name (port and IPv6 brackets removed). */
export function hostOf(header: string): string | undefined {
  const h = header.trim().toLowerCase();
  if (!h) return undefined;
  if (h.startsWith('[')) {
    const end = h.indexOf(']');
    if (end < 0) return undefined;
    const rest = h.slice(end + 1);
    if (rest && !/^:\d{1,5}$/.test(rest)) return undefined;
    return h.slice(1, end);
  }
  const m = /^([^:/\s]+)(?::(\d{1,5}))?$/.exec(h);
  return m ? m[1].replace(/\.$/, '') : undefined;
}

export function isLoopbackHost(h: string): boolean {
  const x = h.replace(/^\[|\]$/g, '').toLowerCase();
  return x === 'localhost' || x === '::1' || /^127\.\d+\.\d+\.\d+$/.test(x) || x === '::ffff:127.0.0.1';
}

export class Guard {
  private readonly hosts: Set<string>;
  private readonly origins: Set<string>;

  constructor(readonly o: GuardOptions = {}) {
    const hosts = new Set<string>(LOOPBACK);
    const bind = (o.bind ?? '127.0.0.1').replace(/^\[|\]$/g, '').toLowerCase();
    if (WILDCARD.has(bind)) {
      hosts.add(hostname().toLowerCase());
      for (const list of Object.values(networkInterfaces())) for (const a of list ?? []) hosts.add(a.address.toLowerCase());
    } else hosts.add(bind);
    for (const h of o.allowedHosts ?? []) {
      const n = hostOf(h) ?? h.toLowerCase();
      hosts.add(n);
    }
    this.hosts = hosts;
    this.origins = new Set((o.allowedOrigins ?? []).map((x) => x.replace(/\/+$/, '').toLowerCase()));
  }

  /** Null when the request may proceed; else why not. */
  check(req: IncomingMessage): Refusal | null {
    const hostHeader = req.headers.host;
    if (hostHeader !== undefined) {
      const h = hostOf(hostHeader);
      if (!h || !this.hosts.has(h)) {
        return {
          status: 421,
          code: 'foreign-host',
          detail:
            `Host '${String(hostHeader).slice(0, 100)}' is not a name of this server (allowed: ` +
            `${[...this.hosts].slice(0, 6).join(', ')}${this.hosts.size > 6 ? ', ...' : ''}; ` +
            `add one with --allow-host)`,
        };
      }
    }
    const origin = req.headers.origin;
    if (origin !== undefined) {
      const o = String(origin).replace(/\/+$/, '').toLowerCase();
      if (this.origins.has(o)) return null;
      let same: boolean;
      try {
        const u = new URL(o);
        same = o !== 'null' && hostHeader !== undefined && u.host === String(hostHeader).toLowerCase() && (u.protocol === 'http:' || u.protocol === 'https:');
      } catch {
        same = false;
      }
      if (!same)
        return {
          status: 403,
          code: 'cross-origin',
          detail: `Origin '${String(origin).slice(0, 100)}' may not use this server (allow one with --allow-origin)`,
        };
    }
    return null;
  }

  /** For a WebSocket upgrade: false when refused (the socket is answered and closed). */
  upgrade(req: IncomingMessage, socket: Duplex): boolean {
    const r = this.check(req);
    if (!r) return true;
    refuseRaw(socket, r);
    return false;
  }
}

/** An HTTP answer written straight onto a socket (upgrade refusals). */
export function refuseRaw(socket: Duplex, r: Refusal, extraHeaders = ''): void {
  const body = JSON.stringify({ error: r.code, detail: r.detail });
  const text = STATUS_TEXT[r.status] ?? 'Refused';
  // an upgrading socket comes with no 'error' listener: a peer resetting after this answer must not be uncaught
  socket.on('error', () => socket.destroy());
  socket.end(
    `HTTP/1.1 ${r.status} ${text}\r\nConnection: close\r\nContent-Type: application/json\r\n${extraHeaders}Content-Length: ` +
      `${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}

const STATUS_TEXT: Record<number, string> = {
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  413: 'Payload Too Large',
  421: 'Misdirected Request',
  503: 'Service Unavailable',
};

const installed = new WeakSet<FastifyInstance>();

/** Run the guard before every route of `app` (root-level onRequest); idempotent per app. */
export function installGuard(app: FastifyInstance, guard: Guard): void {
  if (installed.has(app)) return;
  installed.add(app);
  app.addHook('onRequest', async (req, reply) => {
    const r = guard.check(req.raw);
    if (r) return reply.code(r.status).header('connection', 'close').send({ error: r.code, detail: r.detail });
  });
}
