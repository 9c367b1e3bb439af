// Browser sign-in state for the web inbox: cookie sessions and one-time
// login codes. A session id lives only in the browser's HttpOnly cookie;
// the server keeps its SHA-256 (in $HOOKMAP_HOME/inbox-sessions.json, 0600,
// so a restart of `hookmap up` keeps people signed in), with the principal's
// name and the fingerprint of the token they signed in with: when that
// token is revoked or rotated, every session made from it stops working at
// once. One-time codes (`hookmap open`) are held in memory, hashed, single
// use, short-lived.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

export interface Principal {
  name: string;
  scopes: string[];
}

/** Where principals come from: the relay's token(s). */
export interface CredentialCheck {
  /** The principal a presented token authenticates, with a fingerprint of that token; undefined when it does not. */
  byToken(token: string): (Principal & { fp: string }) | undefined;
  /** The principal a still-valid token with this fingerprint belongs to now (scopes may have changed); undefined once revoked. */
  byFingerprint(name: string, fp: string): Principal | undefined;
}

interface StoredSession {
  name: string;
  fp: string;
  created: number;
  expires: number;
}

export const SESSION_TTL_MS = 7 * 24 * 3600 * 1000;
export const CODE_TTL_MS = 120 * 1000;
const MAX_SESSIONS = 1000;
const MAX_CODES = 100;

const sha = (s: string) => createHash('sha256').update(s).digest('hex');
const newSecret = () => randomBytes(32).toString('base64url');

export class InboxSessions {
  private sessions = new Map<string, StoredSession>();
  private codes = new Map<string, { name: string; fp: string; expires: number }>();

  constructor(private readonly creds: CredentialCheck, private readonly file?: string, private readonly now: () => number = Date.now) {
    this.load();
  }

  /** A new cookie session for a principal that just proved a token (or redeemed a code). */
  create(p: Principal & { fp: string }): { id: string; maxAgeS: number } {
    const id = newSecret();
    const t = this.now();
    this.sessions.set(sha(id), { name: p.name, fp: p.fp, created: t, expires: t + SESSION_TTL_MS });
    this.prune();
    this.save();
    return { id, maxAgeS: Math.floor(SESSION_TTL_MS / 1000) };
  }

  /** The principal behind a cookie value, if the session and the token it came from are both still valid. */
  resolve(id: string | undefined): Principal | undefined {
    if (!id || id.length > 200) return undefined;
    const s = this.sessions.get(sha(id));
    if (!s) return undefined;
    if (s.expires <= this.now()) {
      this.sessions.delete(sha(id));
      this.save();
      return undefined;
    }
    return this.creds.byFingerprint(s.name, s.fp);
  }

  destroy(id: string | undefined): void {
    if (!id) return;
    if (this.sessions.delete(sha(id))) this.save();
  }

  /** A one-time login code for `hookmap open`: single use, CODE_TTL_MS. */
  issueCode(p: Principal & { fp: string }): { code: string; expiresInS: number } {
    const code = newSecret();
    this.codes.set(sha(code), { name: p.name, fp: p.fp, expires: this.now() + CODE_TTL_MS });
    const t = this.now();
    for (const [k, c] of this.codes) if (c.expires <= t) this.codes.delete(k);
    while (this.codes.size > MAX_CODES) this.codes.delete(this.codes.keys().next().value as string);
    return { code, expiresInS: Math.floor(CODE_TTL_MS / 1000) };
  }

  /** Redeem a code once: the principal it was issued for, if it is fresh and that token still valid. */
  redeem(code: string): (Principal & { fp: string }) | undefined {
    if (code.length > 200) return undefined;
    const k = sha(code);
    const c = this.codes.get(k);
    if (!c) return undefined;
    this.codes.delete(k); // single use, whatever happens next
    if (c.expires <= this.now()) return undefined;
    const p = this.creds.byFingerprint(c.name, c.fp);
    return p ? { ...p, fp: c.fp } : undefined;
  }

  private prune(): void {
    const t = this.now();
    for (const [k, s] of this.sessions) if (s.expires <= t) this.sessions.delete(k);
    while (this.sessions.size > MAX_SESSIONS) this.sessions.delete(this.sessions.keys().next().value as string);
  }

  private load(): void {
    if (!this.file) return;
    let doc: unknown;
    try {
      doc = JSON.parse(readFileSync(this.file, 'utf8'));
    } catch {
      return; // none yet, or unreadable: everyone signs in again
    }
    if (!doc || typeof doc !== 'object') return;
    for (const [k, v] of Object.entries(doc as Record<string, any>)) {
      if (/^[0-9a-f]{64}$/.test(k) && v && typeof v.name === 'string' && typeof v.fp === 'string' && Number.isFinite(v.expires) && Number.isFinite(v.created)) {
        this.sessions.set(k, { name: v.name, fp: v.fp, created: v.created, expires: v.expires });
      }
    }
    this.prune();
  }

  private save(): void {
    if (!this.file) return;
    try {
      mkdirSync(dirname(this.file), { recursive: true, mode: 0o700 });
      const tmp = `${this.file}.${process.pid}.tmp`;
      writeFileSync(tmp, JSON.stringify(Object.fromEntries(this.sessions)), { mode: 0o600 });
      chmodSync(tmp, 0o600);
      renameSync(tmp, this.file);
    } catch {
      // not persisted: sessions still work until this process ends
    }
  }
}

/** Constant-time string equality over digests (lengths never leak). */
export function sameSecret(a: string, b: string): boolean {
  return timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest());
}

export const fingerprint = (token: string) => sha(`hookmap-token:${token}`).slice(0, 32);
