// The front door and its map (issue 45): every page under docs/ is reachable
// from the index, docs/README.md, and every relative link of the README and
// the docs pages resolves: to a file or folder of the repository, and where it
// names an anchor (`page.md#section`, `#section`), to a heading of that page
// as GitHub renders its id. A page moved or a heading renamed without its
// links fails here.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { headingId } from '../../codegen/markdown.ts';
import { ROOT } from '../../engine/core/descriptor/registry.ts';

const INDEX = 'docs/README.md';
const mdIn = (dir: string) =>
  readdirSync(join(ROOT, dir))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `${dir}/${f}`);
const PAGES = ['README.md', ...mdIn('docs'), ...mdIn('docs/reference')];

/** The text outside fenced code blocks and inline code (links there are examples, not links). */
function prose(text: string): string {
  return text.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');
}

/** GitHub's heading ids of a page (code blocks skipped), repeats numbered in page order. */
function headingIds(text: string): Set<string> {
  const ids = new Set<string>();
  const seen = new Map<string, number>();
  for (const m of text.replace(/^```[\s\S]*?^```/gm, '').matchAll(/^#{1,6} (.+)$/gm)) {
    const base = headingId(m[1]);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    ids.add(n ? `${base}-${n}` : base);
  }
  return ids;
}

/** Every relative link target of a page: markdown links and images, and HTML src/href. */
function links(text: string): string[] {
  const p = prose(text);
  const md = [...p.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => m[1]);
  const html = [...p.matchAll(/\b(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
  return [...md, ...html].filter((l) => !/^[a-z][a-z0-9+.-]*:/i.test(l));
}

/** Why a link from `page` does not resolve, or undefined when it does. */
function broken(page: string, link: string, read: (file: string) => string | undefined): string | undefined {
  const [path, anchor] = link.split('#', 2) as [string, string | undefined];
  const target = path === '' ? page : normalize(join(dirname(page), decodeURIComponent(path)));
  if (target.startsWith('..')) return 'points outside the repository';
  const text = read(target);
  if (text === undefined) return existsSync(join(ROOT, target)) && !anchor ? undefined : `${target} does not exist`;
  if (anchor !== undefined && !headingIds(text).has(anchor)) return `${target} has no heading #${anchor}`;
  return undefined;
}

const readRepo = (file: string) => {
  const abs = join(ROOT, file);
  if (!existsSync(abs) || !file.endsWith('.md')) return undefined;
  return readFileSync(abs, 'utf8');
};

describe('the docs index', () => {
  const index = readFileSync(join(ROOT, INDEX), 'utf8');
  const linked = new Set(links(index).map((l) => normalize(join('docs', l.split('#')[0]))));
  it('links every page under docs/', () => {
    const pages = [...mdIn('docs'), ...mdIn('docs/reference')].filter((p) => p !== INDEX);
    expect(pages.length).toBeGreaterThan(20);
    expect(pages.filter((p) => !linked.has(p))).toEqual([]);
  });
  it('is linked from the README', () => {
    expect(links(readFileSync(join(ROOT, 'README.md'), 'utf8'))).toContain(relative('.', INDEX));
  });
});

describe('links in the README and docs/', () => {
  for (const page of PAGES) {
    it(`${page}: every relative link resolves`, () => {
      const text = readFileSync(join(ROOT, page), 'utf8');
      const bad = links(text).flatMap((l) => {
        const why = broken(page, l, readRepo);
        return why ? [`${l}: ${why}`] : [];
      });
      expect(bad).toEqual([]);
    });
  }
});

describe('the link checker itself', () => {
  const files: Record<string, string> = {
    'docs/a.md': '# Page A\n\n## Set it up\n\n## 3. Projected to 1,000 machines\n\n## Set it up\n\n### `surface.export`\n\n```sh\n# not a heading\n```\n',
    'docs/b.md': '# B\n',
  };
  const read = (f: string) => files[f];
  it('finds files and anchors as GitHub names them', () => {
    expect(broken('docs/b.md', 'a.md', read)).toBeUndefined();
    expect(broken('docs/b.md', 'a.md#set-it-up', read)).toBeUndefined();
    expect(broken('docs/b.md', 'a.md#set-it-up-1', read)).toBeUndefined();
    expect(broken('docs/a.md', '#3-projected-to-1000-machines', read)).toBeUndefined();
    expect(broken('docs/a.md', '#surfaceexport', read)).toBeUndefined();
  });
  it('names a missing page, a missing anchor and a link out of the repository', () => {
    expect(broken('docs/b.md', 'c.md', read)).toBe('docs/c.md does not exist');
    expect(broken('docs/b.md', 'a.md#not-a-heading', read)).toBe('docs/a.md has no heading #not-a-heading');
    expect(broken('docs/b.md', 'a.md#set-it-up-2', read)).toBe('docs/a.md has no heading #set-it-up-2');
    expect(broken('README.md', '../elsewhere.md', read)).toBe('points outside the repository');
  });
  it('reads links outside code only, and leaves URLs alone', () => {
    expect(links('[x](a.md) `[y](b.md)` <img src="p.png"> [z](https://example.com/q)\n```\n[w](c.md)\n```\n')).toEqual(['a.md', 'p.png']);
  });
});
