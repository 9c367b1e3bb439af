// The floor for the paths a tool names itself (a file write, an edit, a
// read), not through a shell command: the same rows as a command's words
// (shell/floor-paths.ts), read on one normalised absolute path. A rule's
// allow never answers a request that touches ~/.ssh, a credential or token
// file (hookmap's own included, wherever its home is: `own`), a shell
// start-up file or git hooks.
import { posix } from 'node:path';
import { CREDENTIALS, isEnvFile, STARTUP_FILES, SYSTEM_STARTUP } from './shell/floor-paths.ts';
import type { FloorHit } from './shell/floor.ts';
import { inside } from './shell/paths.ts';

const hasRun = (parts: string[], seq: readonly string[]) => parts.some((_, i) => seq.every((s, j) => parts[i + j] === s));

/** hookmap's own file or folder that `path` (normalised, links followed) lies in, by where it is rather than its name. */
export function ownFileHit(path: string, own: readonly string[] | undefined): FloorHit | undefined {
  const mine = own?.find((o) => inside(path, o));
  return mine === undefined
    ? undefined
    : { row: 'credentials', why: `touches hookmap's own files (its home, tokens, rules, keys, channel secrets): ${path} is in ${mine}` };
}

export function floorPathHit(path: string, own?: readonly string[]): FloorHit | undefined {
  const p = posix.normalize(path);
  const mine = ownFileHit(p, own);
  if (mine) return mine;
  const parts = p.split('/').filter(Boolean);
  if (hasRun(parts, ['.ssh']) || parts.at(-1) === 'authorized_keys')
    return { row: 'ssh', why: `touches ~/.ssh (keys, authorized_keys, ssh config): names ${p}` };
  if (parts.some(isEnvFile) || CREDENTIALS.some((seq) => hasRun(parts, seq)))
    return { row: 'credentials', why: `touches a credential or token file: names ${p}` };
  if (STARTUP_FILES.includes(posix.basename(p)) || SYSTEM_STARTUP.some((s) => inside(p, s)))
    return { row: 'startup-file', why: `a shell start-up file (it runs in every new shell): ${p}` };
  if (hasRun(parts, ['.git', 'hooks'])) return { row: 'git-hooks', why: `touches git hooks: ${p}` };
  return undefined;
}
