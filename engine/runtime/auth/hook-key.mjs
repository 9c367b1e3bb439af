// The hook key: a secret per hookmap home that every caller of the hook,
// next-turn and tee routes presents (issue 40: loopback is not an identity).
// `hookmap setup` and `up` create it when missing, 0600 whatever the umask,
// at $HOOKMAP_HOME/hook-key. Its one line is the header itself
// (`x-hookmap-key: <64 hex>`), so the sh shim hands the file to curl as
// `-H @file`: the key is never on a command line (`ps` shows those to every
// user) and costs no extra process. The shims, the generated plugins and the
// tee read it from the home at run time, as the user the agent runs as, so
// an agent's own config (which may be committed to a repository) never holds
// it; only a native HTTP hook, whose agent sends only what its config says,
// carries it there (engine/runtime/setup/registrations.ts). Plain JS: the Node shim
// and the tee load it without TypeScript.
import { closeSync, fchmodSync, fsyncSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs';
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { join } from 'node:path';

export const HOOK_KEY_FILE = 'hook-key';
export const HOOK_KEY_HEADER = 'x-hookmap-key';
/** The refusal's code (`x-hookmap-error`, engine/core/text/errors registry). */
export const HOOK_KEY_ERROR = 'hook-key';

export const hookKeyPath = (home) => join(home, HOOK_KEY_FILE);

/** The key's value from the file's text (`x-hookmap-key: <hex>`), or undefined when it is not one. */
export function parseHookKey(text) {
  const m = /^x-hookmap-key:[ \t]*([0-9a-f]{64})[ \t]*\r?\n?$/i.exec(String(text));
  return m ? m[1].toLowerCase() : undefined;
}

/** The home's key, or undefined (no file, unreadable, not a key). Never throws. */
export function readHookKey(home) {
  try {
    return parseHookKey(readFileSync(hookKeyPath(home), 'utf8'));
  } catch {
    return undefined;
  }
}

/** Headers presenting the home's key ({} without one: the daemon refuses, the caller answers neutral). */
export function hookKeyHeaders(home) {
  const key = readHookKey(home);
  return key ? { [HOOK_KEY_HEADER]: key } : {};
}

/** A fresh key (64 hex): what ensureHookKey writes when the home has none. */
export function newHookKey() {
  return randomBytes(32).toString('hex');
}

/**
 * The home's key, created when missing (as `fresh` when given: a key a setup plan already showed) (0600 whatever the umask; the home 0700 when it is created).
 * A file that is there but holds no key is replaced (a key nobody could present protects nothing).
 * @returns {{ key: string, path: string, created: boolean }}
 */
export function ensureHookKey(home, fresh) {
  const path = hookKeyPath(home);
  const have = readHookKey(home);
  if (have) return { key: have, path, created: false };
  mkdirSync(home, { recursive: true, mode: 0o700 });
  const key = fresh && /^[0-9a-f]{64}$/.test(fresh) ? fresh : newHookKey();
  const fd = openSync(path, 'w', 0o600);
  try {
    fchmodSync(fd, 0o600); // an existing file keeps its mode on open: set it
    writeSync(fd, `${HOOK_KEY_HEADER}: ${key}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  return { key, path, created: true };
}

/** The key a server requires: `given` (false: none), else the home's (created when missing), else none (no home of its own). */
export function hookKeyFor(given, home) {
  if (given === false) return undefined;
  return given ?? (home ? ensureHookKey(home).key : undefined);
}

const digest = (s) => createHash('sha256').update(String(s), 'utf8').digest();

/** Whether `presented` (a header value, maybe absent or repeated) is `key`: a constant-time compare of digests. */
export function hookKeyMatches(key, presented) {
  if (!key || typeof presented !== 'string' || presented === '') return false;
  return timingSafeEqual(digest(key), digest(presented.trim().toLowerCase()));
}
