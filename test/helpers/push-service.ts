// A push service on loopback that speaks what a real one (FCM, Mozilla
// autopush, Apple's Web Push) speaks, for the tests and the bench: RFC 8030
// message delivery (POST to the subscription's endpoint, TTL / Urgency /
// Topic headers, 201 Created), with each request's VAPID JWT verified
// (RFC 8292: ES256 signature against the `k` key, `aud` = the endpoint's
// origin, `exp` within 24 h) and its aes128gcm body decrypted (RFC 8188 /
// RFC 8291) by an independent implementation, http_ece, with the
// subscription's own private key: what a browser would read. A real push
// service cannot run here; this is the stand-in (docs/push.md, "How it is tested").
import { createECDH, createPublicKey, randomBytes, verify, type ECDH } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import ece from 'http_ece';

export interface Received {
  device: string;
  at: number;
  headers: IncomingMessage['headers'];
  /** The VAPID claims, verified. */
  claims: { aud: string; exp: number; sub: string };
  /** The public key the JWT was signed with (the `k` parameter). */
  vapidKey: string;
  bodyBytes: number;
  /** The decrypted plaintext (padding included) and what it parses to. */
  plaintext: Buffer;
  message: Record<string, any>;
}

export interface FakeDevice {
  name: string;
  subscription: { endpoint: string; keys: { p256dh: string; auth: string } };
  ecdh: ECDH;
  auth: Buffer;
}

export interface TestPushService {
  url: string;
  received: Received[];
  /** Refusals the service gave (bad JWT, undecryptable body). */
  errors: string[];
  device(name: string): FakeDevice;
  /** Answer the next requests to this device with this status (410: gone) or hang. */
  respond(device: string, r: number | 'hang'): void;
  close(): Promise<void>;
}

const b64u = (b: Buffer) => b.toString('base64url');

function verifyVapid(auth: string | undefined, origin: string): { claims: Received['claims']; key: string } {
  const m = /^vapid\s+t=([^,\s]+),\s*k=([A-Za-z0-9_-]+)$/.exec(auth ?? '');
  if (!m) throw new Error(`Authorization is not "vapid t=..., k=...": ${auth}`);
  const [h, p, s] = m[1].split('.');
  const header = JSON.parse(Buffer.from(h, 'base64url').toString());
  if (header.alg !== 'ES256') throw new Error(`JWT alg ${header.alg}`);
  const raw = Buffer.from(m[2], 'base64url');
  if (raw.length !== 65 || raw[0] !== 4) throw new Error('k is not an uncompressed P-256 point');
  const key = createPublicKey({ key: { kty: 'EC', crv: 'P-256', x: b64u(raw.subarray(1, 33)), y: b64u(raw.subarray(33)) }, format: 'jwk' });
  if (!verify('sha256', Buffer.from(`${h}.${p}`), { key, dsaEncoding: 'ieee-p1363' }, Buffer.from(s, 'base64url')))
    throw new Error('JWT signature does not verify');
  const claims = JSON.parse(Buffer.from(p, 'base64url').toString());
  if (claims.aud !== origin) throw new Error(`aud ${claims.aud} is not ${origin}`);
  const now = Date.now() / 1000;
  if (!(claims.exp > now && claims.exp <= now + 24 * 3600 + 60)) throw new Error(`exp ${claims.exp} is not within 24 h`);
  if (!/^(mailto:|https:)/.test(claims.sub ?? '')) throw new Error(`sub ${claims.sub}`);
  return { claims, key: m[2] };
}

export async function startPushService(): Promise<TestPushService> {
  const devices = new Map<string, FakeDevice>();
  const responses = new Map<string, number | 'hang'>();
  const received: Received[] = [];
  const errors: string[] = [];
  const hung: IncomingMessage[] = [];
  let origin = '';
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const name = decodeURIComponent((req.url ?? '').replace(/^\/push\//, ''));
      const d = devices.get(name);
      const r = responses.get(name);
      if (r === 'hang') return void hung.push(req);
      if (typeof r === 'number' && r !== 201) return void res.writeHead(r, r === 429 ? { 'retry-after': '1' } : {}).end();
      if (req.method !== 'POST' || !d) return void res.writeHead(404).end();
      try {
        if (req.headers['content-encoding'] !== 'aes128gcm') throw new Error(`Content-Encoding ${req.headers['content-encoding']}`);
        if (req.headers.ttl === undefined) throw new Error('no TTL header (RFC 8030 §5.2 requires one)');
        const { claims, key } = verifyVapid(req.headers.authorization, origin);
        const body = Buffer.concat(chunks);
        const plaintext: Buffer = ece.decrypt(body, { version: 'aes128gcm', privateKey: d.ecdh, authSecret: b64u(d.auth) });
        received.push({
          device: name,
          at: Date.now(),
          headers: req.headers,
          claims,
          vapidKey: key,
          bodyBytes: body.length,
          plaintext,
          message: JSON.parse(plaintext.toString('utf8')),
        });
        res.writeHead(201, { location: `${origin}/msg/${received.length}` }).end();
      } catch (e) {
        errors.push((e as Error).message);
        res.writeHead(400).end((e as Error).message);
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: origin,
    received,
    errors,
    device(name) {
      let d = devices.get(name);
      if (!d) {
        const ecdh = createECDH('prime256v1');
        ecdh.generateKeys();
        const auth = randomBytes(16);
        d = {
          name,
          ecdh,
          auth,
          subscription: { endpoint: `${origin}/push/${encodeURIComponent(name)}`, keys: { p256dh: b64u(ecdh.getPublicKey()), auth: b64u(auth) } },
        };
        devices.set(name, d);
      }
      return d;
    },
    respond(device, r) {
      responses.set(device, r);
    },
    close: () => {
      for (const h of hung) h.socket.destroy();
      server.closeAllConnections();
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
}
