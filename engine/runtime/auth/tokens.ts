// Token files under $HOOKMAP_HOME (AEP-0003 §8.1: bearer tokens, never in
// argv or logs):
//
//   token         the owner token, created on the first `hookmap up`/`relay`
//                 (0600, 256 random bits, `hmk_` + base64url). Every scope.
//                 Local clients read it, so nobody copies it by hand.
//   tokens.json   named tokens (`hookmap tokens add phone --scope control`),
//                 each with its scopes; only a SHA-256 of each token is kept,
//                 so the file alone lets nobody in. Revoking removes the row.
//
// A token file readable by group or others is refused (like ssh does with a
// private key): the fix is printed with the error.
import { createHash, randomBytes } from 'node:crypto';
import { closeSync, existsSync, fsyncSync, openSync, readFileSync, renameSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { parseScopes, type Scope } from './principal.ts';
import { ensureDir } from '../../core/io/paths.ts';

export const OWNER = 'owner';
export const TOKEN_PREFIX = 'hmk_';
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export interface TokenEntry {
  name: string;
  scopes: Scope[];
  /** hex SHA-256 of the token. */
  sha256: string;
  created: string;
}

export class TokenFileError extends Error {}

export const ownerTokenPath = (home: string) => join(home, 'token');
export const tokensFilePath = (home: string) => join(home, 'tokens.json');

export function generateToken(): string {
  return `${TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
}

export function tokenDigest(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/**
 * A token (or another secret) read from a file: one line, non-empty, not readable by group/others; `kind` names
 * it in errors (a NATS password file is not a token file).
 */
export function readTokenFile(path: string, kind = 'token file'): string {
  let st;
  try {
    st = statSync(path);
  } catch (e) {
    throw new TokenFileError(`cannot read ${kind} ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  if (process.platform !== 'win32' && (st.mode & 0o077) !== 0) {
    throw new TokenFileError(`${kind} ${path} is readable by others (mode ${(st.mode & 0o777).toString(8)}): run chmod 600 ${path}`);
  }
  const text = readFileSync(path, 'utf8').trim();
  if (!text || /\s/.test(text)) throw new TokenFileError(`${kind} ${path} must hold one ${kind === 'token file' ? 'token' : 'secret'} on one line`);
  return text;
}

/**
 * The token of `file` as it is now, for whatever runs for hours on it (a
 * relay link that reconnects, a signing key): re-read on a call after the
 * file's stat changed, so a replaced token is used from then on. A file that
 * cannot be read (deleted, unsafe mode) keeps the last good token (`initial`
 * until one was read); `unreadable` hears each new reason once.
 */
export function followTokenFile(file: string, initial: string | undefined, unreadable?: (message: string) => void): () => string | undefined {
  let token = initial;
  let stamp = '';
  let said = '';
  return () => {
    try {
      const st = statSync(file);
      const now = `${st.ino}:${st.size}:${st.mtimeMs}:${st.mode}`;
      if (now === stamp) return token;
      token = readTokenFile(file);
      stamp = now;
      said = '';
    } catch (e) {
      const m = (e as Error).message;
      if (m !== said) unreadable?.(m);
      said = m;
    }
    return token;
  };
}

/**
 * The owner token: read `$HOOKMAP_HOME/token`, or create it (0600, exclusive:
 * two first starts racing agree on one token).
 */
export function ensureOwnerToken(home: string): { token: string; path: string; created: boolean } {
  const path = ownerTokenPath(home);
  if (existsSync(path)) return { token: readTokenFile(path), path, created: false };
  ensureDir(home);
  const token = generateToken();
  let fd: number;
  try {
    fd = openSync(path, 'wx', 0o600);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return { token: readTokenFile(path), path, created: false };
    throw e;
  }
  try {
    writeSync(fd, `${token}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  return { token, path, created: true };
}

export function loadTokens(home: string): TokenEntry[] {
  const path = tokensFilePath(home);
  if (!existsSync(path)) return [];
  const st = statSync(path);
  if (process.platform !== 'win32' && (st.mode & 0o077) !== 0) {
    throw new TokenFileError(`tokens file ${path} is readable by others (mode ${(st.mode & 0o777).toString(8)}): run chmod 600 ${path}`);
  }
  let doc: any;
  try {
    doc = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new TokenFileError(`tokens file ${path} is not valid JSON: ${(e as Error).message}`);
  }
  if (!doc || !Array.isArray(doc.tokens)) throw new TokenFileError(`tokens file ${path}: expected {"tokens": [...]}`);
  return doc.tokens.map((t: any, i: number) => {
    if (!t || typeof t.name !== 'string' || typeof t.sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(t.sha256) || !Array.isArray(t.scopes)) {
      throw new TokenFileError(`tokens file ${path}: tokens[${i}] needs name, sha256 (64 hex) and scopes`);
    }
    let scopes: Scope[];
    try {
      scopes = parseScopes(t.scopes);
    } catch (e) {
      throw new TokenFileError(`tokens file ${path}: tokens[${i}] (${t.name}): ${(e as Error).message}`);
    }
    return { name: t.name, scopes, sha256: t.sha256, created: String(t.created ?? '') };
  });
}

function saveTokens(home: string, tokens: TokenEntry[]): void {
  ensureDir(home);
  const path = tokensFilePath(home);
  const tmp = `${path}.${process.pid}.tmp`;
  const fd = openSync(tmp, 'w', 0o600);
  try {
    writeSync(fd, `${JSON.stringify({ version: 1, tokens }, null, 2)}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path); // atomic: a relay watching the file never reads half of it
}

/** Add a named token; returns the token itself (shown once, never stored). */
export function addToken(home: string, name: string, scopes: string | readonly string[], now = new Date()): { token: string; entry: TokenEntry } {
  if (!NAME.test(name))
    throw new TokenFileError(`token name '${name}' must be 1-64 characters of letters, digits, '.', '_' or '-', starting with a letter or digit`);
  if (name === OWNER) throw new TokenFileError(`'${OWNER}' is the name of $HOOKMAP_HOME/token; choose another name`);
  const tokens = loadTokens(home);
  if (tokens.some((t) => t.name === name)) throw new TokenFileError(`a token named '${name}' exists already (revoke it first to replace it)`);
  const token = generateToken();
  const entry: TokenEntry = { name, scopes: parseScopes(scopes), sha256: tokenDigest(token), created: now.toISOString() };
  saveTokens(home, [...tokens, entry]);
  return { token, entry };
}

/** Remove a named token; false when there was none by that name. */
export function revokeToken(home: string, name: string): boolean {
  const tokens = loadTokens(home);
  const kept = tokens.filter((t) => t.name !== name);
  if (kept.length === tokens.length) return false;
  saveTokens(home, kept);
  return true;
}
