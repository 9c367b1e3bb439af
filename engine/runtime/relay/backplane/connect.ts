// How a relay connects to the fleet's NATS server(s) (engine/runtime/relay/backplane/):
// authentication (a .creds file, user/password, a token, or user:pass in
// the URL) and TLS (a CA, optionally a client certificate for mutual TLS;
// tls:// URLs), and the errors a user can act on when that fails (which
// server, which option to check). DESIGN.md "Growing past one machine";
// docs/fleet.md "Authentication and TLS". Issue 15.
//
// Secrets arrive resolved (engine/cli reads them from files or the
// environment, never from the command line); nothing here logs them: every
// URL a log line or /healthz shows goes through maskNatsUrl.
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { connect, credsAuthenticator, type ConnectionOptions, type NatsConnection } from '@nats-io/transport-node';

export interface BackplaneAuth {
  /** A NATS .creds file (user JWT + nkey seed), as `nsc` writes it. */
  creds?: string;
  user?: string;
  /** The user's password, resolved (from a file or the environment). */
  pass?: string;
  /** A NATS authorization token, resolved. */
  token?: string;
  /** Where pass/token came from, for messages (`--backplane-password-file F`, `HOOKMAP_BACKPLANE_TOKEN`). */
  source?: string;
  /** TLS: the CA that signed the server's certificate; a client certificate and key for mutual TLS. */
  tlsCa?: string;
  tlsCert?: string;
  tlsKey?: string;
}

export type AuthMode = 'none' | 'creds' | 'user' | 'token';

/** `nats://user:secret@host:4222` -> `nats://user:***@host:4222` (and a bare token `nats://***@host`), for every server in the list. */
export function maskNatsUrl(url: string): string {
  return url.replace(/(^|,)(\s*[a-z]+:\/\/)([^@/,\s]*)@/gi, (_m, sep: string, scheme: string, info: string) => {
    const user = info.includes(':') ? decodeURIComponent(info.slice(0, info.indexOf(':'))) : '';
    return `${sep}${scheme}${user ? `${encodeURIComponent(user)}:` : ''}***@`;
  });
}

/** The servers without credentials, and the credentials the URL carried (the NATS client ignores them there). */
function splitUrl(url: string): { servers: string[]; user?: string; pass?: string; token?: string; tls: boolean } {
  const out: ReturnType<typeof splitUrl> = { servers: [], tls: false };
  for (const raw of url
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const m = /^([a-z]+):\/\/(?:([^@/]*)@)?(.*)$/i.exec(raw);
    if (!m) {
      out.servers.push(raw);
      continue;
    }
    if (m[1].toLowerCase() === 'tls') out.tls = true;
    out.servers.push(`${m[1]}://${m[3]}`);
    if (m[2] === undefined || out.user !== undefined || out.token !== undefined) continue;
    const i = m[2].indexOf(':');
    if (i < 0) out.token = decodeURIComponent(m[2]);
    else [out.user, out.pass] = [decodeURIComponent(m[2].slice(0, i)), decodeURIComponent(m[2].slice(i + 1))];
  }
  return out;
}

/** Which way this relay proves itself to NATS (none, creds, user, token), and whether it speaks TLS. Never the secret. */
export function authModeOf(url: string, auth: BackplaneAuth = {}): { auth: AuthMode; tls: boolean } {
  const u = splitUrl(url);
  const mode: AuthMode = auth.creds ? 'creds' : auth.user || u.user ? 'user' : auth.token || u.token ? 'token' : 'none';
  return { auth: mode, tls: u.tls || Boolean(auth.tlsCa || auth.tlsCert) };
}

export class ConnectError extends Error {}

/** The client's connection options for this URL and auth (the creds file read here: a clear error naming it). */
export function connectOptions(url: string, auth: BackplaneAuth, timeout: number): ConnectionOptions {
  const u = splitUrl(url);
  // ignoreAuthErrorAbort: credentials refused on a reconnect (revoked, rotated on the server) are retried like any
  // other failure instead of closing the connection for good, so fixing them on the server brings the relay back
  const o: ConnectionOptions = {
    servers: u.servers,
    timeout,
    reconnect: true,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 250,
    ignoreAuthErrorAbort: true,
    name: `hookmap-relay ${hostname()}/${process.pid}`,
  };
  if (auth.creds) {
    let creds: Uint8Array;
    try {
      creds = readFileSync(auth.creds);
    } catch (e) {
      throw new ConnectError(
        `cannot read the NATS credentials file ${auth.creds} (--backplane-creds): ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
      );
    }
    if (!/-----BEGIN NATS USER JWT-----/.test(Buffer.from(creds).toString('utf8')))
      throw new ConnectError(`${auth.creds} (--backplane-creds) is not a NATS .creds file (no "BEGIN NATS USER JWT" block)`);
    o.authenticator = credsAuthenticator(creds);
  }
  const user = auth.user ?? u.user;
  if (user !== undefined) Object.assign(o, { user, pass: auth.user !== undefined ? auth.pass : u.pass });
  const token = auth.token ?? u.token;
  if (token !== undefined && user === undefined) o.token = token;
  if (u.tls || auth.tlsCa || auth.tlsCert || auth.tlsKey) {
    if (Boolean(auth.tlsCert) !== Boolean(auth.tlsKey)) throw new ConnectError('mutual TLS needs both --backplane-tls-cert and --backplane-tls-key');
    for (const [f, flag] of [
      [auth.tlsCa, 'ca'],
      [auth.tlsCert, 'cert'],
      [auth.tlsKey, 'key'],
    ] as const) {
      if (!f) continue;
      try {
        readFileSync(f);
      } catch (e) {
        throw new ConnectError(`cannot read the TLS ${flag} file ${f} (--backplane-tls-${flag}): ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
      }
    }
    o.tls = { ...(auth.tlsCa ? { caFile: auth.tlsCa } : {}), ...(auth.tlsCert ? { certFile: auth.tlsCert, keyFile: auth.tlsKey } : {}) };
  }
  return o;
}

/** What a failed connect means, in words a user can act on: which server, which option to check. */
export function explainConnectError(e: Error, url: string, auth: BackplaneAuth): string {
  const where = maskNatsUrl(url);
  const mode = authModeOf(url, auth);
  const msg = e.message ?? String(e);
  if (e.name === 'AuthorizationError' || /authorization violation/i.test(msg)) {
    const check = {
      none:
        'the server requires credentials: give --backplane-creds, --backplane-user with ' +
        '--backplane-password-file (or HOOKMAP_BACKPLANE_PASSWORD), or --backplane-token-file (or ' +
        'HOOKMAP_BACKPLANE_TOKEN)',
      creds: `check the credentials file ${auth.creds} (--backplane-creds)`,
      user: `check the user and password (${auth.source ?? 'the URL'})`,
      token: `check the token (${auth.source ?? 'the URL'})`,
    }[mode.auth];
    return `backplane ${where}: authorization violation: the NATS server refused this relay's credentials (auth ${mode.auth}); ${check}`;
  }
  const code = String((e as { code?: string }).code ?? (e.cause as { code?: string } | undefined)?.code ?? '');
  if (/CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_TLS|ERR_SSL/.test(code) || /certificate|ssl|tls/i.test(msg)) {
    if (/does not support 'tls'/.test(msg))
      return `backplane ${where}: TLS was asked for (tls:// or --backplane-tls-*) but the server does not offer it: use nats:// or enable tls on the server`;
    const why = `TLS failed (${msg}${code && !msg.includes(code) ? `, ${code}` : ''})`;
    const check = auth.tlsCa
      ? `check that the CA file ${auth.tlsCa} (--backplane-tls-ca) signed the server's certificate and that the certificate names the host you connect to`
      : 'no --backplane-tls-ca was given, so the system CAs were asked: give the CA that signed the ' +
        "server's certificate with --backplane-tls-ca F, and check that the certificate names the " +
        'host you connect to';
    return `backplane ${where}: ${why}: ${check}${auth.tlsCert ? `; client certificate ${auth.tlsCert}` : ''}`;
  }
  if (e.name === 'TimeoutError' && mode.tls && !auth.tlsCert)
    return (
      `backplane ${where}: no answer in time over TLS; if the server verifies clients (tls { ` +
      `verify: true }), give --backplane-tls-cert and --backplane-tls-key`
    );
  return `backplane ${where} unreachable: ${msg}`;
}

/** Connect with these options, or throw a ConnectError that says what to check. */
export async function connectNats(url: string, auth: BackplaneAuth, timeout: number): Promise<NatsConnection> {
  const opts = connectOptions(url, auth, timeout);
  try {
    return await connect(opts);
  } catch (e) {
    throw new ConnectError(explainConnectError(e as Error, url, auth));
  }
}
