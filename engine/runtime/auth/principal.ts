// Who is speaking: the result of authenticating a request (AEP-0003 §8.1
// bearer tokens; AEP-0004 §4.3 "who may command whom is deployment-owned
// authorization"). A Principal is a name and a set of scopes, never a
// boolean, so every decision downstream (may it read the stream, emit
// events, send commands?) and every audit record names someone.
//
// Scopes:
//   read     discovery, the stream (SSE, WS subscribe), roster, /healthz details
//   emit     publish events (POST /events, WS emitter), claim sessions: daemons
//   control  send commands (control.*): answer, cancel; implies read
// The owner token (`$HOOKMAP_HOME/token`) holds all three.

export type Scope = 'read' | 'emit' | 'control';
export const SCOPES: readonly Scope[] = ['read', 'emit', 'control'];

export interface Principal {
  /** The authenticated name (a token's name, a cookie session's user): what audit records carry. */
  readonly name: string;
  readonly scopes: readonly Scope[];
  /** Which credential source issued it (`token`, `none`, or one added with Authorizer.use). */
  readonly source: string;
  /** Opaque key of the credential within its source; revocation is checked on it. */
  readonly credential: string;
}

export function can(p: Principal | undefined | null, scope: Scope): boolean {
  return !!p && p.scopes.includes(scope);
}

/** Parse a scope list (`read,control`); `control` implies `read`. Throws on an unknown scope. */
export function parseScopes(list: string | readonly string[]): Scope[] {
  const items = (typeof list === 'string' ? list.split(',') : [...list]).map((s) => s.trim()).filter(Boolean);
  if (items.length === 0) throw new Error(`no scope given (known: ${SCOPES.join(', ')})`);
  const out = new Set<Scope>();
  for (const s of items) {
    if (!(SCOPES as readonly string[]).includes(s)) throw new Error(`unknown scope '${s}' (known: ${SCOPES.join(', ')})`);
    out.add(s as Scope);
  }
  if (out.has('control')) out.add('read');
  return SCOPES.filter((s) => out.has(s));
}

export function makePrincipal(name: string, scopes: readonly Scope[], source: string, credential: string): Principal {
  return Object.freeze({ name, scopes: Object.freeze([...scopes]), source, credential });
}
