// A sensitive id (the descriptor's identity.sensitive): an agent that names no
// session may have its session derived from a path (the working folder), and
// a path never leaves the machine (docs/privacy.md). What the engine keys on,
// logs and sends is then a digest of the value (`digest`: 12 hex), or the
// folder's own name with a short digest (`folder`: <name>-<8 hex>; two folders
// of the same name stay apart, and the name alone says which project it is).
import type { SensitiveAs } from '../descriptor/types.ts';
import { shortHash } from '../expr/functions.ts';

const FOLDER_HEX = 8;
/** Longest folder name kept (the rest is dropped; the digest still tells folders apart). */
const FOLDER_NAME_CHARS = 64;

/** `v` as it may leave the machine: unchanged when not sensitive. */
export function sensitiveId(v: string, as: SensitiveAs | undefined): string {
  if (!as) return v;
  const digest = shortHash(v)!;
  if (as === 'digest') return digest;
  const name = v
    .split(/[\\/]+/)
    .filter(Boolean)
    .pop()
    ?.slice(0, FOLDER_NAME_CHARS);
  return name ? `${name}-${digest.slice(0, FOLDER_HEX)}` : digest;
}
