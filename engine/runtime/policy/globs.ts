// Path globs for answer rules (docs/rules.md): `**` any run of folders
// (also none), `*` any characters within one name, `?` one character within
// a name, `{a,b}` either; every other character is itself. A glob is
// anchored at both ends and matched against a whole, normalised absolute
// path; a relative glob is resolved against the folder a rule is read in
// (its project, else the request's cwd) before matching.
import { isAbsolute, posix } from 'node:path';

export interface PathGlob {
  text: string;
  /** Absolute globs compile once; relative ones are resolved per request. */
  absolute?: RegExp;
}

const SPECIAL = /[\\^$.|+()[\]]/g;

/** The regular expression of one glob; throws with a reason on an unbalanced `{`. */
export function globRegExp(glob: string): RegExp {
  let out = '';
  let depth = 0;
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '*' && glob[i + 1] === '*') {
      const slashAfter = glob[i + 2] === '/';
      out += slashAfter ? '(?:[^/]*/)*' : '.*';
      i += slashAfter ? 2 : 1;
    } else if (c === '*') out += '[^/]*';
    else if (c === '?') out += '[^/]';
    else if (c === '{') {
      depth++;
      out += '(?:';
    } else if (c === '}' && depth > 0) {
      depth--;
      out += ')';
    } else if (c === ',' && depth > 0) out += '|';
    else out += c.replace(SPECIAL, '\\$&');
  }
  if (depth !== 0) throw new Error(`unbalanced { in ${JSON.stringify(glob)}`);
  return new RegExp(`^${out}$`, 'u');
}

export function compileGlob(text: string): PathGlob {
  const re = globRegExp(isAbsolute(text) ? posix.normalize(text) : text);
  return isAbsolute(text) ? { text, absolute: re } : { text };
}

/** Does the absolute path `p` match the glob (a relative glob resolved against `base`)? */
export function globMatches(g: PathGlob, p: string, base: string | undefined): boolean {
  if (g.absolute) return g.absolute.test(p);
  if (!base) return false;
  return globRegExp(posix.join(base, g.text)).test(p);
}
