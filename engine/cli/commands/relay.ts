// `hookmap relay`: the AEP relay alone. Drains on SIGINT/SIGTERM (SSE
// streams end cleanly, sockets close 1001) and exits 0; exits 1 if the
// drain hangs.
import { Redactor } from '../../core/capture/redact.ts';
import { ArgError, intFlag, parseArgs } from '../args.ts';
import { Authorizer, ANONYMOUS, TokenSource } from '../../runtime/auth/authorizer.ts';
import { BindError, exposureNotice } from '../../runtime/auth/bind.ts';
import { readTokenFile, TokenFileError } from '../../runtime/auth/tokens.ts';
import { createRelay, DEFAULT_HOST, DEFAULT_PORT, resolveLimits, type CreateRelayOptions } from '../../runtime/relay/index.ts';
import { BackplaneError } from '../../runtime/relay/backplane/index.ts';
import { openBackplane } from '../../runtime/relay/backplane/open.ts';
import { BACKPLANE_FLAGS, backplaneFromFlags } from '../../runtime/relay/backplane/config.ts';
import { auditTo } from '../../app/up-parts.ts';
import type { RuntimeConfig } from '../../core/config/schema.ts';
import { resolveConfig } from '../config.ts';
import { resolveServerAuth, SERVER_AUTH_FLAGS } from './server-auth.ts';

const SPEC = {
  ...SERVER_AUTH_FLAGS,
  port: { type: 'string' },
  host: { type: 'string' },
  buffer: { type: 'string' },
  'buffer-bytes': { type: 'string' },
  'session-buffer-bytes': { type: 'string' },
  'max-sessions': { type: 'string' },
  'max-body': { type: 'string' },
  'max-batch': { type: 'string' },
  'max-from': { type: 'string' },
  'max-subscriptions': { type: 'string' },
  'max-connections': { type: 'string' },
  'max-pending': { type: 'string' },
  prefix: { type: 'string' },
  ...BACKPLANE_FLAGS,
} as const;

export async function run(argv: string[], config: RuntimeConfig = resolveConfig(process.env)): Promise<number> {
  let relay;
  let host: string;
  let tls: boolean;
  const say = (line: string) => process.stderr.write(`${line}\n`);
  try {
    const { flags } = parseArgs(argv, SPEC);
    const opt = (name: string) => (flags[name] === undefined ? undefined : intFlag(flags[name], name, 0));
    const sec = resolveServerAuth(flags, process.env, say);
    host = (flags.host as string | undefined) ?? DEFAULT_HOST;
    tls = Boolean(sec.tls);
    const options: CreateRelayOptions = {
      host,
      port: intFlag(flags.port, 'port', DEFAULT_PORT),
      auth: sec.noAuth
        ? new Authorizer([], ANONYMOUS)
        : new Authorizer([new TokenSource({ ownerToken: sec.token, ownerTokenFile: sec.token ? undefined : sec.tokenFile, home: sec.home, say })]),
      allowedHosts: sec.allowedHosts,
      allowedOrigins: sec.allowedOrigins,
      tls: sec.tls,
      audit: auditTo(sec.auditFile, say),
      prefix: flags.prefix as string | undefined,
      buffer: opt('buffer'),
      bufferBytes: opt('buffer-bytes'),
      sessionBufferBytes: opt('session-buffer-bytes'),
      maxSessions: opt('max-sessions'),
      maxBody: opt('max-body'),
      maxBatch: opt('max-batch'),
      maxFrom: opt('max-from'),
      maxSubscriptions: opt('max-subscriptions'),
      maxConnections: opt('max-connections'),
      maxPending: opt('max-pending'),
      log: say,
    };
    const bp = backplaneFromFlags(flags, { password: config.backplanePassword, token: config.backplaneToken });
    // the fleet's messages are signed with a key derived from the owner token, as resolveServerAuth found it
    const ownerToken = sec.noAuth ? undefined : (sec.token ?? readTokenFile(sec.tokenFile!));
    const store = bp
      ? await openBackplane({ ...bp, token: ownerToken, tokenFile: sec.noAuth || sec.token ? undefined : sec.tokenFile }, resolveLimits(options), say)
      : undefined;
    // the watchers' copies of commands carry the operator's redaction (HOOKMAP_SECRET_NAMES, HOOKMAP_REDACT_PII)
    relay = createRelay({ ...options, store, redactor: new Redactor({ ...config.redaction, env: process.env }) });
  } catch (e) {
    if (e instanceof BackplaneError) {
      process.stderr.write(`hookmap relay: ${e.message}\n`);
      return 1;
    }
    if (e instanceof ArgError || e instanceof TokenFileError || /relay option|--backplane/.test((e as Error).message)) {
      process.stderr.write(`hookmap relay: ${(e as Error).message}\n`);
      return 2;
    }
    throw e;
  }
  let url: string;
  try {
    ({ url } = await relay.listen());
  } catch (e) {
    process.stderr.write(`hookmap relay: ${(e as Error).message}\n`);
    relay.auth.close();
    return e instanceof BindError ? 2 : 1;
  }
  for (const l of exposureNotice(host, url, tls)) say(l);
  process.stdout.write(`${url}\n`);
  return new Promise<number>((resolve) => {
    let stopping = false;
    const stop = () => {
      if (stopping) return;
      stopping = true;
      const force = setTimeout(() => resolve(1), 5000);
      force.unref();
      relay.close().then(
        () => {
          relay.auth.close();
          clearTimeout(force);
          resolve(0);
        },
        () => resolve(1),
      );
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}
