// Flags and resolution shared by the commands that start a server holding
// the relay (`up`, `relay`): where the owner token comes from, --no-auth,
// the browser guard's allow-lists and TLS (engine/runtime/auth; issue 10).
//
//   --token-file F / HOOKMAP_TOKEN_FILE   the owner token in a file (watched)
//   --token T / HOOKMAP_TOKEN             the owner token itself (--token warns: argv)
//   (none)                                $HOOKMAP_HOME/token, created on first start
//   --no-auth                             no token at all: watch-only, loopback only
import { ensureOwnerToken } from '../../runtime/auth/tokens.ts';
import { ARGV_TOKEN_WARNING } from '../../runtime/auth/discover.ts';
import { loadTlsFiles, type TlsFiles } from '../../runtime/auth/tls.ts';
import { resolveTarget } from '../config.ts';
import { join } from 'node:path';
import { ArgError } from '../args.ts';

export const SERVER_AUTH_FLAGS = {
  token: { type: 'string' },
  'token-file': { type: 'string' },
  'no-auth': { type: 'boolean' },
  'allow-host': { type: 'string', multiple: true },
  'allow-origin': { type: 'string', multiple: true },
  'tls-cert': { type: 'string' },
  'tls-key': { type: 'string' },
} as const;

export interface ServerAuth {
  home: string;
  token?: string;
  tokenFile?: string;
  noAuth: boolean;
  allowedHosts: string[];
  allowedOrigins: string[];
  tls?: TlsFiles;
  auditFile: string;
}

export function resolveServerAuth(flags: Record<string, unknown>, env: NodeJS.ProcessEnv, say: (line: string) => void): ServerAuth {
  const home = resolveTarget(env).home;
  const base = {
    home,
    allowedHosts: (flags['allow-host'] as string[] | undefined) ?? [],
    allowedOrigins: (flags['allow-origin'] as string[] | undefined) ?? [],
    tls: tlsOf(flags),
    auditFile: join(home, 'audit.jsonl'),
  };
  if (flags['no-auth']) {
    if (flags.token || flags['token-file']) throw new ArgError('--no-auth cannot be combined with --token or --token-file');
    if (env.HOOKMAP_TOKEN || env.HOOKMAP_TOKEN_FILE)
      throw new ArgError('--no-auth while HOOKMAP_TOKEN / HOOKMAP_TOKEN_FILE is set: unset it, or drop --no-auth');
    return { ...base, noAuth: true };
  }
  if (flags['token-file']) return { ...base, noAuth: false, tokenFile: flags['token-file'] as string };
  if (flags.token) {
    say(`warning: ${ARGV_TOKEN_WARNING}`);
    return { ...base, noAuth: false, token: flags.token as string };
  }
  if (env.HOOKMAP_TOKEN_FILE) return { ...base, noAuth: false, tokenFile: env.HOOKMAP_TOKEN_FILE };
  if (env.HOOKMAP_TOKEN) return { ...base, noAuth: false, token: env.HOOKMAP_TOKEN };
  const owner = ensureOwnerToken(home);
  if (owner.created) say(`created the owner token ${owner.path} (0600): local clients (tail, answer, cancel, doctor) read it from there`);
  return { ...base, noAuth: false, tokenFile: owner.path };
}

function tlsOf(flags: Record<string, unknown>): TlsFiles | undefined {
  const cert = flags['tls-cert'] as string | undefined;
  const key = flags['tls-key'] as string | undefined;
  if (!cert && !key) return undefined;
  if (!cert || !key) throw new ArgError('--tls-cert and --tls-key go together');
  return loadTlsFiles(cert, key);
}
