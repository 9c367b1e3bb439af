// Where a path word points, for the floor's path rows (issue 22: "recursive
// deletes outside the project or of home", "writing outside the project
// through redirection"). Lexical: `..` and `.` are normalised against the
// cwd given; symbolic links are followed after the rows, by floor-resolved.ts.
// A word the shell expands at run time points anywhere; a glob points at the
// folder its fixed part names (`/*` is `/`, `~/x/*` is `~/x`).
import { isAbsolute, posix } from 'node:path';
import type { ShellWord } from './words.ts';

export interface FloorContext {
  /** the project folder the command runs in (the request's cwd) */
  cwd?: string;
  /** the user's home folder (`~`, `$HOME`) */
  home?: string;
  /** hookmap's own files and folders (its home, token files, channel secrets), links followed: the floor keeps them for a person */
  own?: readonly string[];
}

export type Place =
  | { kind: 'unknown'; why: string }
  | { kind: 'absolute'; path: string }
  /** relative and no cwd to resolve it against: normalised, may start with `..` */
  | { kind: 'relative'; path: string };

const GLOB_CHARS = ['*', '?', '[', '{'];

export function placeOf(word: ShellWord, ctx: FloorContext, changesDirectory: boolean): Place {
  if (!word.literal) return { kind: 'unknown', why: `${word.source} is decided at run time` };
  let text = word.text;
  if (word.pattern) {
    const cut = Math.min(...GLOB_CHARS.map((c) => text.indexOf(c)).filter((i) => i >= 0));
    const fixed = text.slice(0, cut);
    text = fixed.endsWith('/') ? fixed : posix.dirname(fixed || '.');
  }
  if (isAbsolute(text)) return { kind: 'absolute', path: posix.normalize(text) };
  if (changesDirectory) return { kind: 'unknown', why: `${word.source} is relative to a folder a cd chose` };
  if (ctx.cwd) return { kind: 'absolute', path: posix.resolve(ctx.cwd, text) };
  return { kind: 'relative', path: posix.normalize(text || '.') };
}

/** `path` is `dir` or lies below it. */
export function inside(path: string, dir: string): boolean {
  const d = dir.endsWith('/') ? dir : `${dir}/`;
  return path === dir || path.startsWith(d);
}

/**
 * Outside the project, as far as the floor can tell: an unknown place, or,
 * with a cwd, anything not below it; without one, absolute paths and
 * relative ones that climb out with `..`.
 */
export function outsideProject(place: Place, ctx: FloorContext): string | undefined {
  if (place.kind === 'unknown') return place.why;
  if (place.kind === 'relative') return place.path === '..' || place.path.startsWith('../') ? `${place.path} climbs out of the current folder` : undefined;
  if (!ctx.cwd) return `${place.path} is absolute and no project folder was given`;
  return inside(place.path, posix.resolve(ctx.cwd)) ? undefined : `${place.path} is outside ${ctx.cwd}`;
}

/** The path's segments, for the rows that look for a name anywhere in it (`.ssh`, `.git/hooks`). */
export function segments(word: ShellWord): string[] {
  return word.text.split(/[/=:]/).filter((s) => s !== '' && s !== '.');
}
