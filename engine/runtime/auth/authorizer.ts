// Authentication of one request into a Principal (AEP-0003 §8.1; AEP-0004
// §4.1: control only on authenticated bindings, localhost included).
//
// An Authorizer asks its credential sources in order; the first one that
// recognizes a credential in the request decides. The bearer-token source is
// built in (the owner token plus the named tokens of tokens.json, reloaded
// when the files change); other sources (the inbox's cookie session) are
// added with use(). A source that sees its kind of credential but finds it
// invalid refuses the request outright: a wrong token is never downgraded to
// anonymous.
//
// Revocation: each source tells the Authorizer when its credentials may have
// changed; the Authorizer tells its listeners (onChange), which re-check
// every open connection with isLive() and close the dead ones.
import { watch, statSync, type FSWatcher } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { makePrincipal, SCOPES, type Principal, type Scope } from './principal.ts';
import { loadTokens, OWNER, readTokenFile, tokenDigest, TokenFileError, type TokenEntry } from './tokens.ts';

export interface CredentialSource {
  /** Stamped on the principals it issues (`Principal.source`). */
  readonly kind: string;
  /**
   * undefined: the request carries no credential of this kind (ask the next source);
   * null: it carries one and it is not valid (refuse); else the principal.
   */
  authenticate(req: IncomingMessage): Principal | null | undefined;
  /** Is a principal this source issued still valid? */
  isLive(p: Principal): boolean;
  /** The source calls `fn` whenever credentials may have been revoked. */
  onChange?(fn: () => void): void;
  close?(): void;
}

export type AuthResult = { ok: true; principal: Principal } | { ok: false; status: 401; code: 'unauthorized'; detail: string };

/** The anonymous principal of a `--no-auth` relay: may read and emit, never command. */
export const ANONYMOUS = makePrincipal('anonymous', ['read', 'emit'], 'none', 'anonymous');

export class Authorizer {
  private readonly sources: CredentialSource[] = [];
  private readonly listeners = new Set<() => void>();

  /** `anonymous`: the principal of a request without credentials (only `--no-auth`); absent: such a request is refused. */
  constructor(
    sources: CredentialSource[],
    private readonly anonymous?: Principal,
  ) {
    for (const s of sources) this.use(s);
  }

  /** Add a credential source (asked after the ones before it). */
  use(source: CredentialSource): void {
    this.sources.push(source);
    source.onChange?.(() => this.changed());
  }

  /** May any principal ever send commands? False for a `--no-auth` relay (watch-only). */
  get controlPossible(): boolean {
    return this.sources.length > 0;
  }

  authenticate(req: IncomingMessage): AuthResult {
    for (const s of this.sources) {
      const p = s.authenticate(req);
      if (p === null) return { ok: false, status: 401, code: 'unauthorized', detail: `invalid or revoked ${s.kind}` };
      if (p) return { ok: true, principal: p };
    }
    if (this.anonymous) return { ok: true, principal: this.anonymous };
    return {
      ok: false,
      status: 401,
      code: 'unauthorized',
      detail: 'a token is required (Authorization: Bearer <token>; the owner token is in $HOOKMAP_HOME/token)',
    };
  }

  isLive(p: Principal): boolean {
    if (p === this.anonymous) return true;
    const s = this.sources.find((x) => x.kind === p.source);
    return !!s && s.isLive(p);
  }

  /** Called after any source's credentials changed; returns an unsubscribe function. */
  onChange(fn: () => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  private changed(): void {
    for (const fn of this.listeners) {
      try {
        fn();
      } catch {
        // a listener's failure must not stop the others from closing revoked connections
      }
    }
  }

  close(): void {
    for (const s of this.sources) s.close?.();
    this.listeners.clear();
  }
}

/** The bearer token of a request: `Authorization: Bearer`, else `?access_token=` (EventSource, AEP-0003 §8.1). */
export function presentedToken(req: IncomingMessage): string | undefined {
  const h = req.headers.authorization;
  if (typeof h === 'string') {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(h.trim());
    if (m) return m[1];
  }
  const url = req.url ?? '';
  const q = url.indexOf('?');
  if (q < 0) return undefined;
  return new URLSearchParams(url.slice(q + 1)).get('access_token') ?? undefined;
}

export interface TokenSourceOptions {
  /** The owner token itself (given by flag/env), or ... */
  ownerToken?: string;
  /** ... the file holding it (`$HOOKMAP_HOME/token`), re-read when it changes. */
  ownerTokenFile?: string;
  /** `$HOOKMAP_HOME`: its tokens.json holds the named tokens. */
  home?: string;
  /** Where reload problems are reported (a broken tokens.json keeps the last good set). */
  say?: (line: string) => void;
  /** Polling fallback for file systems without change events, ms (default 1000). */
  pollMs?: number;
}

interface Known {
  name: string;
  scopes: readonly Scope[];
}

/**
 * Bearer tokens: the owner token and the named tokens. Files are watched
 * (fs.watch, plus a stat poll as a fallback) and also stat-checked on every
 * authentication, so a revoked token is refused from the next request on.
 */
export class TokenSource implements CredentialSource {
  readonly kind = 'token';
  private byDigest = new Map<string, Known>();
  private stamp = '';
  private readonly listeners: (() => void)[] = [];
  private watcher?: FSWatcher;
  private poll?: NodeJS.Timeout;

  constructor(private readonly o: TokenSourceOptions) {
    this.reload(true);
    const home = o.home;
    if (home) {
      try {
        this.watcher = watch(home, { persistent: false }, () => this.check());
        this.watcher.on('error', () => {});
      } catch {
        // no watch support here: the poll below still notices
      }
    }
    if (home || o.ownerTokenFile) {
      this.poll = setInterval(() => this.check(), o.pollMs ?? 1000);
      this.poll.unref();
    }
  }

  authenticate(req: IncomingMessage): Principal | null | undefined {
    const token = presentedToken(req);
    if (token === undefined) return undefined;
    this.check();
    const d = tokenDigest(token);
    // a lookup by SHA-256: timing reveals nothing an attacker can steer toward a token
    const k = this.byDigest.get(d);
    if (!k) return null;
    return makePrincipal(k.name, k.scopes as Scope[], this.kind, d);
  }

  isLive(p: Principal): boolean {
    this.check();
    const k = this.byDigest.get(p.credential);
    return !!k && k.name === p.name;
  }

  onChange(fn: () => void): void {
    this.listeners.push(fn);
  }

  close(): void {
    this.watcher?.close();
    clearInterval(this.poll);
  }

  /** Re-read the files when their stat changed; tell listeners when the token set changed. */
  check(): void {
    if (this.fileStamp() === this.stamp) return;
    if (this.reload(false)) for (const fn of this.listeners) fn();
  }

  private fileStamp(): string {
    const parts: string[] = [];
    for (const f of [this.o.ownerTokenFile, this.o.home && `${this.o.home}/tokens.json`]) {
      if (!f) continue;
      try {
        const st = statSync(f);
        parts.push(`${st.ino}:${st.size}:${st.mtimeMs}:${st.mode}`);
      } catch {
        parts.push('-');
      }
    }
    return parts.join('|');
  }

  /** Returns whether the set of valid tokens changed. */
  private reload(first: boolean): boolean {
    const stamp = this.fileStamp();
    const next = new Map<string, Known>();
    const add = (name: string, scopes: readonly Scope[], digest: string) => next.set(digest, { name, scopes });
    try {
      if (this.o.ownerToken) add(OWNER, SCOPES, tokenDigest(this.o.ownerToken));
      if (this.o.ownerTokenFile) {
        try {
          add(OWNER, SCOPES, tokenDigest(readTokenFile(this.o.ownerTokenFile)));
        } catch (e) {
          // a deleted owner token file revokes it; an unsafe one is refused
          if (first) throw e;
          this.o.say?.(`${(e as Error).message}: the owner token is not accepted until this is fixed`);
        }
      }
      let named: TokenEntry[] = [];
      if (this.o.home) named = loadTokens(this.o.home);
      for (const t of named) add(t.name, t.scopes, t.sha256);
    } catch (e) {
      if (first) throw e;
      if (e instanceof TokenFileError) {
        // `hookmap tokens` writes atomically; a hand edit that does not parse is
        // reported and the last good set stays in force
        this.o.say?.(`${e.message}: keeping the tokens loaded before`);
        this.stamp = stamp;
        return false;
      }
      throw e;
    }
    this.stamp = stamp;
    const changed = next.size !== this.byDigest.size || [...next.keys()].some((k) => !this.byDigest.has(k));
    this.byDigest = next;
    return changed;
  }
}
