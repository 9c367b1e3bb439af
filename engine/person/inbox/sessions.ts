// Browser sign-in state for the web inbox: cookie sessions and one-time
// login codes. A session id lives only in the browser's HttpOnly cookie;
// the server keeps its SHA-256 (in $HOOKMAP_HOME/inbox-sessions.json, 0600,
// so a restart of `hookmap up` keeps people signed in), with the name and
// scopes of the token's principal and that token's key (the SHA-256 the
// token store keeps, engine/runtime/auth/tokens.ts): when that token is revoked or
// rotated, every session made from it stops working at once. One-time codes
// (`hookmap open`) are held in memory, hashed, single use, short-lived.
import { createHash, randomBytes } from 'node:crypto';
import { chmodSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { ensureParent } from '../../core/io/paths.ts';

export interface Principal {
  name: string;
  scopes: string[];
}

/** A principal as a token proved it: `key` names that token (its digest) for later liveness checks. */
export type TokenPrincipal = Principal & { key: string };

/** Where principals come from: the server's tokens (owner and named, engine/runtime/auth). */
export interface CredentialCheck {
  /** The principal a presented token authenticates; undefined when it does not. */
  byToken(token: string): TokenPrincipal | undefined;
  /** Is the token with this key still valid for this principal? (false once revoked or rotated) */
  isLive(p: TokenPrincipal): boolean;
}

/** A cookie session as the relay's credential source sees it: `sessionKey` is the stored SHA-256 of its id. */
export type SessionPrincipal = Principal & { sessionKey: string };

interface StoredSession {
  name: string;
  scopes: string[];
  key: string;
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
  private codes = new Map<string, { p: TokenPrincipal; expires: number }>();
  private readonly listeners: (() => void)[] = [];

  constructor(
    private readonly creds: CredentialCheck,
    private readonly file?: string,
    private readonly now: () => number = Date.now,
  ) {
    this.load();
  }

  /** A new cookie session for a principal that just proved a token (or redeemed a code). */
  create(p: TokenPrincipal): { id: string; maxAgeS: number } {
    const id = newSecret();
    const t = this.now();
    this.sessions.set(sha(id), { name: p.name, scopes: [...p.scopes], key: p.key, created: t, expires: t + SESSION_TTL_MS });
    this.prune();
    this.save();
    return { id, maxAgeS: Math.floor(SESSION_TTL_MS / 1000) };
  }

  /** The principal behind a cookie value, if the session and the token it came from are both still valid. */
  resolve(id: string | undefined): SessionPrincipal | undefined {
    if (!id || id.length > 200) return undefined;
    const k = sha(id);
    return this.live(k) ? this.principalOf(k) : undefined;
  }

  /** Is the session stored under this key (the SHA-256 of its id) still valid, and the token it was made from? */
  live(sessionKey: string): boolean {
    const s = this.sessions.get(sessionKey);
    if (!s) return false;
    if (s.expires <= this.now()) {
      this.sessions.delete(sessionKey);
      this.save();
      this.changed();
      return false;
    }
    return this.creds.isLive({ name: s.name, scopes: s.scopes, key: s.key });
  }

  destroy(id: string | undefined): void {
    if (!id) return;
    if (this.sessions.delete(sha(id))) {
      this.save();
      this.changed();
    }
  }

  /** `fn` runs whenever a session ended (signed out, expired): open connections made with it are re-checked. */
  onChange(fn: () => void): void {
    this.listeners.push(fn);
  }

  /** The token a live session was made from (its principal and key): what a device registered from this browser is bound to. */
  tokenOf(sessionKey: string): TokenPrincipal | undefined {
    const s = this.live(sessionKey) ? this.sessions.get(sessionKey) : undefined;
    return s && { name: s.name, scopes: [...s.scopes], key: s.key };
  }

  private principalOf(sessionKey: string): SessionPrincipal {
    const s = this.sessions.get(sessionKey)!;
    return { name: s.name, scopes: [...s.scopes], sessionKey };
  }

  private changed(): void {
    for (const fn of this.listeners) fn();
  }

  /** A one-time login code for `hookmap open`: single use, CODE_TTL_MS. */
  issueCode(p: TokenPrincipal): { code: string; expiresInS: number } {
    const code = newSecret();
    this.codes.set(sha(code), { p: { name: p.name, scopes: [...p.scopes], key: p.key }, expires: this.now() + CODE_TTL_MS });
    const t = this.now();
    for (const [k, c] of this.codes) if (c.expires <= t) this.codes.delete(k);
    while (this.codes.size > MAX_CODES) this.codes.delete(this.codes.keys().next().value as string);
    return { code, expiresInS: Math.floor(CODE_TTL_MS / 1000) };
  }

  /** Redeem a code once: the principal it was issued for, if it is fresh and that token still valid. */
  redeem(code: string): TokenPrincipal | undefined {
    if (code.length > 200) return undefined;
    const k = sha(code);
    const c = this.codes.get(k);
    if (!c) return undefined;
    this.codes.delete(k); // single use, whatever happens next
    if (c.expires <= this.now()) return undefined;
    return this.creds.isLive(c.p) ? c.p : undefined;
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
      // a row of an older format (no scopes or key) is dropped: that person signs in again
      if (
        /^[0-9a-f]{64}$/.test(k) &&
        v &&
        typeof v.name === 'string' &&
        typeof v.key === 'string' &&
        Array.isArray(v.scopes) &&
        v.scopes.every((x: unknown) => typeof x === 'string') &&
        Number.isFinite(v.expires) &&
        Number.isFinite(v.created)
      ) {
        this.sessions.set(k, { name: v.name, scopes: v.scopes, key: v.key, created: v.created, expires: v.expires });
      }
    }
    this.prune();
  }

  private save(): void {
    if (!this.file) return;
    try {
      ensureParent(this.file);
      const tmp = `${this.file}.${process.pid}.tmp`;
      writeFileSync(tmp, JSON.stringify(Object.fromEntries(this.sessions)), { mode: 0o600 });
      chmodSync(tmp, 0o600);
      renameSync(tmp, this.file);
    } catch {
      // not persisted: sessions still work until this process ends
    }
  }
}
