// The web inbox on a host fastify app (`hookmap up`): its routes, its
// browser sessions, and its cookie as one more credential source of the
// server's Authorizer (engine/runtime/auth), honoured on the relay's HTTP, SSE and
// WebSocket for same-origin requests only.
//
//   const inbox = mountInbox(app, { auth, home });   // before app.listen()
//
// Who signs in is whoever presents a token the Authorizer knows (the owner
// token or a named one from `hookmap tokens add`): the cookie session
// carries that token's principal (name and scopes), so a read-only token
// sees everything but the answer, steer and stop controls, and the relay
// refuses its commands the same way it refuses the token's own.
// AEP-0003 §8.1 (bearer tokens), AEP-0004 §4.1/§4.3 (authenticated control).
import type { FastifyInstance } from 'fastify';
import type { IncomingMessage } from 'node:http';
import { join } from 'node:path';
import type { Authorizer, CredentialSource } from '../../runtime/auth/authorizer.ts';
import { makePrincipal, type Scope } from '../../runtime/auth/principal.ts';
import type { FailedOpenSummary } from '../../core/io/failed-open.ts';
import { cookieValue, registerInbox, sameOriginRequest } from './routes.ts';
import { InboxSessions, type CredentialCheck } from './sessions.ts';

export type { Principal } from './sessions.ts';

export interface InboxOptions {
  /** The server's Authorizer: the tokens people sign in with, and where the cookie becomes a credential. */
  auth: Authorizer;
  /** $HOOKMAP_HOME: browser sessions persist there (hashed) across restarts. */
  home?: string;
  /** Served over https (the cookie gets `Secure`, same-origin means https://). */
  secure?: boolean;
  /** Hooks that failed open, for the page's banner (GET /inbox/api/failed-open). */
  failedOpen?: () => FailedOpenSummary;
  /** Origins this server is also reached at through a TLS-terminating proxy (`up --public-url`). */
  publicOrigins?: readonly string[];
}

export interface Inbox {
  sessions: InboxSessions;
  /** The tokens people sign in with, as the inbox checks them (liveness of a token's principal). */
  creds: CredentialCheck;
}

/** The `Principal.source` of a request authenticated by its inbox cookie. */
export const SESSION_SOURCE = 'inbox-session';
/** The Authorizer's source for bearer tokens (engine/runtime/auth TokenSource). */
const TOKEN_SOURCE = 'token';

/** Tokens as the Authorizer knows them: only a real token signs in (never `--no-auth`'s anonymous, never a cookie). */
export function authorizerCredentials(auth: Authorizer): CredentialCheck {
  return {
    byToken(token) {
      if (!token || /\s/.test(token) || token.length > 4096) return undefined;
      const r = auth.authenticate({ headers: { authorization: `Bearer ${token}` }, url: '/' } as IncomingMessage);
      if (!r.ok || r.principal.source !== TOKEN_SOURCE) return undefined;
      return { name: r.principal.name, scopes: [...r.principal.scopes], key: r.principal.credential };
    },
    isLive: (p) => auth.isLive(makePrincipal(p.name, p.scopes as Scope[], TOKEN_SOURCE, p.key)),
  };
}

export function mountInbox(app: FastifyInstance, o: InboxOptions): Inbox {
  const creds = authorizerCredentials(o.auth);
  const sessions = new InboxSessions(creds, o.home ? join(o.home, 'inbox-sessions.json') : undefined);
  const secure = !!o.secure;
  // a --no-auth server has no tokens, so nobody signs in; adding a source would make it look as if control were possible
  const tokensExist = o.auth.controlPossible;
  registerInbox(app, {
    sessions,
    creds,
    secure,
    failedOpen: o.failedOpen,
    publicOrigins: o.publicOrigins,
    disabledReason: tokensExist
      ? undefined
      : 'hookmap up was started with --no-auth, so nobody can sign in: start it without --no-auth (it makes a token in $HOOKMAP_HOME/token)',
  });
  if (!tokensExist) return { sessions, creds };
  const source: CredentialSource = {
    kind: SESSION_SOURCE,
    authenticate(req) {
      // the inbox's own routes read the cookie themselves; a cookie never mints a sign-in link
      if ((req.url ?? '').startsWith('/inbox/')) return undefined;
      const id = cookieValue(req);
      if (!id || !sameOriginRequest(req, secure, o.publicOrigins)) return undefined;
      const p = sessions.resolve(id);
      // a cookie of this inbox that no longer signs anyone in is refused, never read as anonymous
      return p ? makePrincipal(p.name, p.scopes as Scope[], SESSION_SOURCE, p.sessionKey) : null;
    },
    isLive: (p) => sessions.live(p.credential),
    onChange: (fn) => sessions.onChange(fn),
  };
  o.auth.use(source);
  return { sessions, creds };
}
