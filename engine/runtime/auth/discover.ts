// Where a hookmap client (tail, answer, cancel, doctor, serve's relay link,
// the bridges) finds its token, so that nobody types or copies one
// (AEP-0003 §8.1; issue 10 "a token from the first start"). First match wins:
//
//   --token-file F        the flag
//   --token T             works, with a warning: argv is visible in `ps`
//   HOOKMAP_TOKEN_FILE    a file, from the environment
//   HOOKMAP_TOKEN         the token, from the environment
//   $HOOKMAP_HOME/token   the owner token `hookmap up` created, sent only
//                         to a loopback URL (never handed to a remote host
//                         the user merely pointed --url at)
import { isLoopbackHost } from './guard.ts';
import { ownerTokenPath, readTokenFile } from './tokens.ts';
import { existsSync } from 'node:fs';

export interface ClientToken {
  token?: string;
  /** The file it was read from (token-file, env-file, home): a long-running client re-reads it (tokens.ts followTokenFile). */
  file?: string;
  /** Where it came from (for messages; never the token itself). */
  from: 'flag' | 'token-file' | 'env-file' | 'env' | 'home' | 'none';
  /** Say this to the user (stderr) before going on. */
  warning?: string;
}

export interface DiscoverOptions {
  flagToken?: string;
  tokenFile?: string;
  /** The relay/daemon base URL the token will be sent to. */
  url: string;
  /** Where the environment points, resolved at the CLI edge (engine/cli/config.ts tokenSources). */
  from: TokenSources;
}

/** What the environment says of a client's token: read once at the CLI edge, handed down as values. */
export interface TokenSources {
  /** $HOOKMAP_TOKEN_FILE */
  envTokenFile?: string;
  /** $HOOKMAP_TOKEN */
  envToken?: string;
  /** $HOOKMAP_HOME (its owner token is used for a loopback relay) */
  home: string;
}

export const ARGV_TOKEN_WARNING =
  '--token puts the secret in the process list (ps, shell history): prefer HOOKMAP_TOKEN, ' +
  '--token-file, or nothing at all (local clients read $HOOKMAP_HOME/token)';

export function discoverToken(o: DiscoverOptions): ClientToken {
  const { envTokenFile, envToken, home } = o.from;
  if (o.tokenFile) return { token: readTokenFile(o.tokenFile), file: o.tokenFile, from: 'token-file' };
  if (o.flagToken) return { token: o.flagToken, from: 'flag', warning: ARGV_TOKEN_WARNING };
  if (envTokenFile) return { token: readTokenFile(envTokenFile), file: envTokenFile, from: 'env-file' };
  if (envToken) return { token: envToken, from: 'env' };
  const file = ownerTokenPath(home);
  if (existsSync(file) && urlIsLoopback(o.url)) return { token: readTokenFile(file), file, from: 'home' };
  return { from: 'none' };
}

/** True when the relay URL (or every URL of a comma-separated failover list) names this machine. */
export function urlIsLoopback(url: string): boolean {
  const urls = url
    .split(',')
    .map((u) => u.trim())
    .filter(Boolean);
  return (
    urls.length > 0 &&
    urls.every((u) => {
      try {
        return isLoopbackHost(new URL(u).hostname);
      } catch {
        return false;
      }
    })
  );
}

/** The hint a client prints when the relay refused it for want of a token. */
export function missingTokenHint(url: string, sources: TokenSources, from?: ClientToken['from']): string {
  const file = ownerTokenPath(sources.home);
  const given = {
    flag: '--token',
    'token-file': 'the --token-file token',
    'env-file': `the token in HOOKMAP_TOKEN_FILE (${sources.envTokenFile})`,
    env: 'HOOKMAP_TOKEN',
  } as Record<string, string>;
  if (from && given[from]) return `${given[from]} was refused (revoked, expired, or meant for another relay); without it, local clients use ${file}`;
  if (!urlIsLoopback(url))
    return `a remote relay needs a token: HOOKMAP_TOKEN, HOOKMAP_TOKEN_FILE or --token-file (ask its operator for one: hookmap tokens add <name>)`;
  return existsSync(file)
    ? `the token in ${file} was refused (revoked, or another HOOKMAP_HOME started this relay?)`
    : `no token found: start the relay with \`hookmap up\` (it writes ${file}), or set HOOKMAP_TOKEN / HOOKMAP_TOKEN_FILE`;
}
