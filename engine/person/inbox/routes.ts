// The web inbox's HTTP surface on `hookmap up`'s port (same origin as the
// relay, so the page is one more AEP consumer of it, AEP-0003 §3.5):
//
//   GET  /                     the page (built assets, engine/person/inbox/assets/)
//   GET  /inbox/assets/<file>  its script, stylesheet and icons (icons.ts)
//   GET  /sw.js                the service worker (web/sw.js: the shell cache, Web Push)
//   GET  /manifest.webmanifest the web app manifest (installable)
//   GET  /inbox/api/me         who the cookie signs in: { name, scopes } | 401
//   POST /inbox/api/login      { token } or { code } -> Set-Cookie (HttpOnly, SameSite=Strict)
//   POST /inbox/api/logout     ends the cookie session
//   GET  /inbox/api/failed-open hooks that got no answer from hookmap (engine/core/io/failed-open.ts) | 401
//   POST /inbox/api/link       Authorization: Bearer -> { code, url }: a one-time
//                              login code for `hookmap open` (URL fragment:
//                              never sent to a server, never in a request log)
//
// CSRF-safe by construction: no GET changes state; every POST needs a JSON
// body (a cross-site page cannot send one without a preflight nobody
// answers) and, when the browser names an Origin, this origin. The cookie
// is honoured as a relay credential only under the same rule
// (cookieCredential below), and it carries a random session id, never a token.
import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { IncomingMessage } from 'node:http';
import { ROOT } from '../../core/descriptor/registry.ts';
import { ASSET_DIR } from './asset-paths.ts';
import { emptySummary, type FailedOpenSummary } from '../../core/io/failed-open.ts';
import { jsonOnly } from './json-scope.ts';
import { ICON_SIZES, iconPng, manifest } from './icons.ts';
import type { CredentialCheck, InboxSessions, TokenPrincipal } from './sessions.ts';

export const COOKIE = 'hookmap_inbox';
const MAX_BODY = 4096;

const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "manifest-src 'self'",
  "worker-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

interface Asset {
  body: Buffer;
  type: string;
  etag: string;
}

const asset = (body: Buffer, type: string): Asset => ({ body, type, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"` });

function loadAssets(): Map<string, Asset> {
  const out = new Map<string, Asset>();
  const types: Record<string, string> = {
    'index.html': 'text/html; charset=utf-8',
    'inbox.js': 'text/javascript; charset=utf-8',
    'inbox.css': 'text/css; charset=utf-8',
    'sw.js': 'text/javascript; charset=utf-8',
  };
  for (const [name, type] of Object.entries(types)) {
    let body: Buffer;
    try {
      body = readFileSync(join(ROOT, ASSET_DIR, name));
    } catch {
      body = Buffer.from(
        name === 'index.html' ? '<!doctype html><title>hookmap inbox</title><p>The inbox assets are missing: run <code>npx hookmap codegen</code>.</p>' : '',
      );
    }
    out.set(name, asset(body, type));
  }
  out.set('manifest.webmanifest', asset(Buffer.from(manifest()), 'application/manifest+json'));
  for (const n of ICON_SIZES) out.set(`icon-${n}.png`, asset(iconPng(n), 'image/png'));
  return out;
}

export interface InboxRoutesOptions {
  sessions: InboxSessions;
  creds: CredentialCheck;
  /** Served over https (the cookie gets `Secure`). */
  secure?: boolean;
  /** Why sign-in cannot work at all (e.g. `--no-auth`), shown on the login page. */
  disabledReason?: string;
  /** Hooks that failed open (the page's "runs were missed" banner); absent: none known. */
  failedOpen?: () => FailedOpenSummary;
  /** Origins this server is also reached at (a TLS-terminating proxy: `up --public-url`). */
  publicOrigins?: readonly string[];
}

export function cookieValue(req: IncomingMessage): string | undefined {
  const h = req.headers.cookie;
  if (typeof h !== 'string') return undefined;
  for (const part of h.split(';')) {
    const i = part.indexOf('=');
    if (i > 0 && part.slice(0, i).trim() === COOKIE) return part.slice(i + 1).trim();
  }
  return undefined;
}

/**
 * Does this request come from a page of this very origin? (The only case a
 * cookie counts.) `publicOrigins`: the origins this server is reached at
 * through a TLS-terminating proxy (`up --public-url`, Tailscale serve, a
 * tunnel), which are its own too.
 */
export function sameOriginRequest(req: IncomingMessage, secure: boolean, publicOrigins: readonly string[] = []): boolean {
  const origin = req.headers.origin;
  const host = req.headers.host;
  if (typeof origin === 'string') {
    if (publicOrigins.includes(origin.toLowerCase())) return true;
    if (!host || origin === 'null') return false;
    return origin === `${secure ? 'https' : 'http'}://${host}`;
  }
  // a same-origin GET (fetch, EventSource) carries no Origin; the browser still says where it came from
  return req.headers['sec-fetch-site'] === 'same-origin';
}

export function registerInbox(app: FastifyInstance, o: InboxRoutesOptions): void {
  // read and drawn (the icons' PNGs) on the first request, not while `up` starts
  let assets: Map<string, Asset> | undefined;
  const secure = !!o.secure;
  const setCookie = (reply: FastifyReply, id: string, maxAgeS: number) =>
    reply.header('set-cookie', `${COOKIE}=${id}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${maxAgeS}${secure ? '; Secure' : ''}`);
  const clearCookie = (reply: FastifyReply) =>
    reply.header('set-cookie', `${COOKIE}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0${secure ? '; Secure' : ''}`);
  const me = (req: FastifyRequest) => {
    const id = cookieValue(req.raw);
    return id && sameOriginRequest(req.raw, secure, o.publicOrigins) ? o.sessions.resolve(id) : undefined;
  };

  app.register(async (scope) => {
    jsonOnly(scope, MAX_BODY);

    /** State changes: a JSON POST from this origin (or from no browser at all). */
    const guardPost = (req: FastifyRequest, reply: FastifyReply): boolean => {
      if (typeof req.headers.origin === 'string' && !sameOriginRequest(req.raw, secure, o.publicOrigins)) {
        reply.code(403).send({ error: 'forbidden', detail: 'cross-origin request refused' });
        return false;
      }
      return true;
    };

    scope.get('/inbox/api/me', async (req, reply) => {
      const p = me(req);
      if (!p) return reply.code(401).send({ error: 'unauthorized', detail: o.disabledReason ?? 'not signed in' });
      return reply.send({ name: p.name, scopes: p.scopes });
    });

    scope.get('/inbox/api/failed-open', async (req, reply) => {
      if (!me(req)) return reply.code(401).send({ error: 'unauthorized', detail: o.disabledReason ?? 'not signed in' });
      const s = o.failedOpen?.() ?? emptySummary();
      return reply.send({ count: s.count, first: s.first, last: s.last, truncated: s.truncated, agents: s.agents });
    });

    scope.post('/inbox/api/login', async (req, reply) => {
      if (!guardPost(req, reply)) return reply;
      const body = (req.body ?? {}) as Record<string, unknown>;
      if (o.disabledReason) return reply.code(401).send({ error: 'unauthorized', detail: o.disabledReason });
      let p: TokenPrincipal | undefined;
      if (typeof body.token === 'string' && body.token) p = o.creds.byToken(body.token);
      else if (typeof body.code === 'string' && body.code) p = o.sessions.redeem(body.code);
      else return reply.code(400).send({ error: 'bad-request', detail: 'send { "token": "..." } or { "code": "..." }' });
      if (!p)
        return reply.code(401).send({
          error: 'unauthorized',
          detail: typeof body.code === 'string' ? 'that sign-in link has expired or was already used' : 'that token is not valid here',
        });
      const s = o.sessions.create(p);
      setCookie(reply, s.id, s.maxAgeS);
      return reply.send({ name: p.name, scopes: p.scopes });
    });

    scope.post('/inbox/api/logout', async (req, reply) => {
      if (!guardPost(req, reply)) return reply;
      o.sessions.destroy(cookieValue(req.raw));
      clearCookie(reply);
      return reply.code(204).send();
    });

    scope.post('/inbox/api/link', async (req, reply) => {
      if (!guardPost(req, reply)) return reply;
      // only a bearer token mints a link: a cookie (a browser) never can
      const m = /^Bearer\s+(.+)$/i.exec(String(req.headers.authorization ?? '').trim());
      const p = m ? o.creds.byToken(m[1]) : undefined;
      if (!p)
        return reply
          .code(401)
          .header('www-authenticate', 'Bearer')
          .send({ error: 'unauthorized', detail: 'present the hookmap token as Authorization: Bearer' });
      const c = o.sessions.issueCode(p);
      return reply.send({ code: c.code, path: `/#login=${c.code}`, expires_in: c.expiresInS });
    });
  });

  app.register(async (scope) => {
    const serve = (name: string) => async (req: FastifyRequest, reply: FastifyReply) => {
      const a = (assets ??= loadAssets()).get(name)!;
      reply.header('content-type', a.type).header('etag', a.etag).header('x-content-type-options', 'nosniff').header('referrer-policy', 'no-referrer');
      if (name === 'index.html') reply.header('content-security-policy', CSP).header('x-frame-options', 'DENY').header('cache-control', 'no-store');
      else reply.header('cache-control', 'no-cache');
      if (req.headers['if-none-match'] === a.etag) return reply.code(304).send();
      return reply.send(a.body);
    };
    scope.get('/', serve('index.html'));
    scope.get('/inbox/assets/inbox.js', serve('inbox.js'));
    scope.get('/inbox/assets/inbox.css', serve('inbox.css'));
    // the service worker at the root: its scope is the whole inbox
    scope.get('/sw.js', serve('sw.js'));
    scope.get('/manifest.webmanifest', serve('manifest.webmanifest'));
    for (const n of ICON_SIZES) scope.get(`/inbox/assets/icon-${n}.png`, serve(`icon-${n}.png`));
  });
}
