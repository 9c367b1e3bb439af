// Expands the config paths descriptors write (`~/.x`, `${X_HOME:-~/.x}/f`,
// `$HOME/f`) against the target's variables, so tests and operators can point
// every agent at a temp home through the same variables the agents honour.
import { isAbsolute, join, resolve } from 'node:path';
import type { Target } from '../../core/io/target.ts';

export function expandPath(template: string, t: Pick<Target, 'userHome' | 'vars'>, baseDir: string): string {
  const home = t.userHome;
  const tilde = (s: string) => (s === '~' ? home : s.startsWith('~/') ? join(home, s.slice(2)) : s);
  const out = template.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)/g, (_m, braced, fallback, bare) => {
    const name = braced ?? bare;
    const v = name === 'HOME' ? home : t.vars[name];
    if (v) return v;
    return fallback !== undefined ? tilde(fallback) : '';
  });
  const p = tilde(out);
  return isAbsolute(p) ? p : resolve(baseDir, p);
}
