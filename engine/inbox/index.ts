// The web inbox on a host fastify app (`hookmap up`): its routes, its
// browser sessions, and its cookie as one more credential the relay
// accepts on HTTP, SSE and the WebSocket (same-origin requests only).
//
//   const inbox = mountInbox(app, { token, home });   // before app.listen()
//
// Principals today come from the relay's one token (name `default`, scopes
// read + control); a read-only principal sees everything but the answer,
// steer and stop controls.
import type { FastifyInstance } from 'fastify';
import type { IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { cookieCredential, registerInbox } from './routes.ts';
import { fingerprint, InboxSessions, sameSecret, type CredentialCheck, type Principal } from './sessions.ts';

export type { Principal } from './sessions.ts';

export interface InboxOptions {
  /** The relay's bearer token; without one the inbox cannot sign anybody in. */
  token?: string;
  /** $HOOKMAP_HOME: browser sessions persist there (hashed) across restarts. */
  home?: string;
  secure?: boolean;
}

export interface Inbox {
  sessions: InboxSessions;
  /** The principal a request's inbox cookie stands for (same-origin requests only). */
  credential(req: IncomingMessage): Principal | undefined;
}

export const DEFAULT_PRINCIPAL = 'default';
/** The relay's WebSocket path on `hookmap up` (prefix ''). */
const SOCKET_PATH = '/socket';

/** The relay's single token as the one principal with every scope. */
export function singleTokenCredentials(token: string | undefined): CredentialCheck {
  const fp = token ? fingerprint(token) : '';
  const scopes = ['read', 'control'];
  return {
    byToken: (t) => (token && sameSecret(t, token) ? { name: DEFAULT_PRINCIPAL, scopes, fp } : undefined),
    byFingerprint: (name, f) => (token && name === DEFAULT_PRINCIPAL && f === fp ? { name, scopes } : undefined),
  };
}

export function mountInbox(app: FastifyInstance, o: InboxOptions): Inbox {
  const creds = singleTokenCredentials(o.token);
  const sessions = new InboxSessions(creds, o.home ? join(o.home, 'inbox-sessions.json') : undefined);
  registerInbox(app, {
    sessions,
    creds,
    secure: o.secure,
    disabledReason: o.token ? undefined : 'hookmap up was started without a token, so nobody can sign in: start it with HOOKMAP_TOKEN set',
  });
  const credential = cookieCredential(sessions, !!o.secure);
  if (o.token) {
    // The relay checks one bearer token; a valid same-origin inbox session stands for it.
    const token = o.token;
    // Only for the relay's own routes: the inbox's routes read the cookie themselves, and a
    // cookie must never pass for a bearer token where a token is asked for (minting a link).
    const present = (req: IncomingMessage) => {
      if ((req.url ?? '').startsWith('/inbox/')) return;
      if (req.headers.authorization === undefined && credential(req)) req.headers.authorization = `Bearer ${token}`;
    };
    app.addHook('onRequest', async (req) => present(req.raw));
    // before the relay's own upgrade listener; other paths (e.g. /surfaces/*) are not ours to touch
    app.server.prependListener('upgrade', (req: IncomingMessage) => {
      if ((req.url ?? '').split('?')[0] === SOCKET_PATH) present(req);
    });
  }
  return { sessions, credential };
}
