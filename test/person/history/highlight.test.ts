// The excerpt a search shows for an event: the words marked as FTS5's
// unicode61 tokenizer matches them (case and diacritics folded, whole
// tokens), plain-text parts only, cut around the first match.
import { describe, expect, it } from 'vitest';
import { excerpt, queryTokens } from '../../../engine/person/history/highlight.ts';

const marked = (text: string, q: string) =>
  excerpt(text, queryTokens(q))
    ?.filter((p) => p.mark)
    .map((p) => p.text);

describe('search excerpts', () => {
  it.each([
    { name: 'case folded', text: 'Run the Migrations now', q: 'migrations', want: ['Migrations'] },
    { name: 'diacritics folded', text: 'le café est prêt', q: 'cafe pret', want: ['café', 'prêt'] },
    { name: 'whole tokens only', text: 'migrationsX and migrations', q: 'migrations', want: ['migrations'] },
    { name: 'an underscore splits words, as unicode61 does', text: 'run db_migrate', q: 'db_migrate', want: ['db', 'migrate'] },
    { name: 'no match: nothing to show', text: 'nothing here', q: 'absent', want: undefined },
  ])('$name', ({ text, q, want }) => expect(marked(text, q)).toEqual(want));

  it('keeps markup as text and cuts around the first match', () => {
    const text = `${'a '.repeat(200)}<script>alert(1)</script> deploy ${'b '.repeat(200)}`;
    const parts = excerpt(text, queryTokens('deploy'))!;
    const joined = parts.map((p) => p.text).join('');
    expect(joined).toContain('<script>alert(1)</script> deploy');
    expect(parts[0]).toEqual({ text: '…' });
    expect(parts.at(-1)).toEqual({ text: '…' });
    expect(joined.length).toBeLessThan(200);
  });
});
