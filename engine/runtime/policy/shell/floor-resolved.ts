// Paths by what they are (issue 40): the floor's rows read a command's words
// as written (paths.ts); this pass reads each path-like word where it really
// leads, resolved against the cwd through symbolic links (the real path of
// its longest existing part, as a tool's own paths are: subject.ts), and
// holds it to the same path rows. So with `prefix: cat`, `cat notes.txt` is
// kept for a person when the repository ships notes.txt as a link to a
// token, `echo x > out/f` when out is a link leaving the project, and any
// word that lands in hookmap's own files (its home wherever HOOKMAP_HOME
// points, the token files, channel secrets: ctx.own) whatever it is called.
import { isAbsolute, posix } from 'node:path';
import { floorPathHit, ownFileHit } from '../floor-tool-paths.ts';
import { realPlace } from '../subject.ts';
import type { ShellReading } from './commands.ts';
import { writeTargets } from './floor-row.ts';
import { DEVICES } from './floor-paths.ts';
import type { FloorHit } from './floor.ts';
import { inside, type FloorContext } from './paths.ts';
import type { ShellWord } from './words.ts';

/** longest path text worth resolving (PATH_MAX) */
const MAX_PATH = 4096;

/** The path a word may name: the word, or an option's value after `=` (`--file=x`); undefined for other options and for what the shell decides at run time. */
function pathText(w: ShellWord): string | undefined {
  if (!w.literal || w.pattern || w.text === '' || w.text.length > MAX_PATH || w.text.includes('\0')) return undefined;
  if (!w.text.startsWith('-')) return w.text;
  const eq = w.text.indexOf('=');
  return eq > 0 && eq + 1 < w.text.length ? w.text.slice(eq + 1) : undefined;
}

export function resolvedHit(reading: ShellReading, ctx: FloorContext): FloorHit | undefined {
  const cwd = ctx.cwd && posix.resolve(ctx.cwd);
  const writes = new Set(reading.commands.flatMap(writeTargets));
  // a command's name is looked up on PATH unless it has a slash: only then is it a path here
  const named = (c: ShellReading['commands'][number]) => (c.words[0]?.text.includes('/') ? c.words : c.words.slice(1));
  const words = reading.commands.flatMap((c) => [...named(c), ...c.redirects.flatMap((r) => (r.target ? [r.target] : [])), ...writeTargets(c)]);
  const seen = new Set<string>();
  for (const w of words) {
    const text = pathText(w);
    if (text === undefined) continue;
    let lexical: string;
    if (isAbsolute(text)) lexical = posix.normalize(text);
    else if (cwd && !reading.changesDirectory) lexical = posix.resolve(cwd, text);
    else continue;
    const key = `${writes.has(w) ? 'w' : 'r'}${lexical}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const real = realPlace(lexical);
    const own = ownFileHit(real, ctx.own);
    if (own) return { row: own.row, why: `${own.why} (${w.source})` };
    if (real === lexical) continue; // the lexical rows read it already
    const via = `${w.source} leads to ${real} through a symbolic link`;
    const hit = floorPathHit(real);
    // reading a start-up file is harmless (the lexical row holds only writes to one)
    if (hit && (hit.row !== 'startup-file' || writes.has(w))) return { row: hit.row, why: `${hit.why} (${via})` };
    if (writes.has(w) && cwd && !inside(real, realPlace(cwd)) && !DEVICES.some((d) => inside(real, d)))
      return { row: 'write-outside', why: `writes outside the project: ${via}` };
  }
  return undefined;
}
