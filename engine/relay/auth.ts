// Bearer-token checks (AEP-0003 §8.1). The token may come in the
// Authorization header or, for browser EventSource clients, the
// `access_token` query parameter; either way it is compared in constant
// time and never logged (see redactUrl).
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

const digest = (s: string) => createHash('sha256').update(s).digest();

export function makeAuthorizer(token: string | undefined): (req: IncomingMessage) => boolean {
  if (!token) return () => true; // no token: observation open, control off (watch-only)
  const want = digest(token);
  return (req) => {
    const got = presentedToken(req);
    return got !== undefined && timingSafeEqual(digest(got), want);
  };
}

export function presentedToken(req: IncomingMessage): string | undefined {
  const h = req.headers.authorization;
  if (typeof h === 'string') {
    const m = /^Bearer\s+(.+)$/i.exec(h.trim());
    if (m) return m[1];
  }
  const url = req.url ?? '';
  const q = url.indexOf('?');
  if (q < 0) return undefined;
  return new URLSearchParams(url.slice(q + 1)).get('access_token') ?? undefined;
}

/** A URL safe to log: the access_token query value is masked. */
export function redactUrl(url: string): string {
  return url.replace(/([?&]access_token=)[^&#]*/gi, '$1[REDACTED]');
}
