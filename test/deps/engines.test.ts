// `npm ci` warns EBADENGINE for every installed package whose `engines.node`
// does not accept the Node it runs on. hookmap's own `engines` says Node 20,
// so every package package-lock.json installs must accept Node 20 (issue 31,
// item 10: @nats-io/nuid 3 and cookie 2 wanted Node 22; package.json
// `overrides` pins versions that support 20).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../../engine/core/descriptor/registry.ts';

type Version = [number, number, number];
const parse = (v: string): Version => {
  const [a = 0, b = 0, c = 0] = v
    .replace(/^v/, '')
    .split('.')
    .map((x) => (x === 'x' || x === '*' ? 0 : Number(x)));
  return [a, b, c];
};
const cmp = (a: Version, b: Version) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2];

/** One comparator of an npm range (`>=20`, `>= 22.x`, `^20.19.0`, `20`, `<=24`, `*`). */
function comparator(v: Version, c: string): boolean {
  const m = /^(>=|<=|>|<|\^|~|=)?\s*(.+)$/.exec(c.trim());
  if (!m || m[2] === '*' || m[2] === 'x') return true;
  const [op = '', raw] = [m[1], m[2]];
  const w = parse(raw);
  const parts = raw.split('.').filter((x) => x !== 'x' && x !== '*').length;
  switch (op) {
    case '>=':
      return cmp(v, w) >= 0;
    case '>':
      return cmp(v, w) > 0;
    case '<=':
      return parts === 1 ? v[0] <= w[0] : cmp(v, w) <= 0;
    case '<':
      return cmp(v, w) < 0;
    case '^':
      return v[0] === w[0] && cmp(v, w) >= 0;
    case '~':
      return v[0] === w[0] && v[1] === w[1] && cmp(v, w) >= 0;
    default:
      return parts === 1 ? v[0] === w[0] : parts === 2 ? v[0] === w[0] && v[1] === w[1] : cmp(v, w) === 0;
  }
}

/** An npm engines range (`a || b`, each a space-separated set of comparators, `>= 22` allowed). */
function accepts(range: string, version: string): boolean {
  const v = parse(version);
  return range.split('||').some((set) =>
    set
      .trim()
      .replace(/([<>=^~])\s+/g, '$1')
      .split(/\s+/)
      .filter(Boolean)
      .every((c) => comparator(v, c)),
  );
}

describe('the installed dependencies accept Node 20 (no EBADENGINE from npm ci)', () => {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8'));

  it('reads npm ranges as npm does', () => {
    expect(accepts('>= 22.x', '20.20.2')).toBe(false);
    expect(accepts('>=22', '20.20.2')).toBe(false);
    expect(accepts('^20.19.0 || >=22.12.0', '20.20.2')).toBe(true);
    expect(accepts('^20.19.0 || >=22.12.0', '20.18.0')).toBe(false);
    expect(accepts('>=20 <=24', '20.20.2')).toBe(true);
    expect(accepts('18 || 20 || >=22', '20.1.0')).toBe(true);
    expect(accepts('>= 18.x', '20.20.2')).toBe(true);
  });

  it('hookmap promises Node 20 and runs on it here', () => {
    expect(pkg.engines.node).toBe('>=20');
  });

  // the Node 20 this suite runs on (CI: Node 20); on a newer Node, the newest 20 a package still has to accept
  const node20 = process.versions.node.startsWith('20.') ? process.versions.node : '20.19.0';
  it(`every package in package-lock.json accepts Node ${node20}`, () => {
    const refused = Object.entries(lock.packages as Record<string, { version?: string; engines?: { node?: string } }>)
      .filter(([path, p]) => path && typeof p.engines?.node === 'string' && !accepts(p.engines.node, node20))
      .map(([path, p]) => `${path.replace(/^(.*node_modules\/)/, '')}@${p.version} wants node ${p.engines!.node}`);
    expect(refused).toEqual([]);
  });
});
