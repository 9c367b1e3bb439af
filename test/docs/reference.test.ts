// The generated fixture reference covers the fixture format field by field
// (issue 28: it stopped at `kind`, never following the schema's allOf/if/then,
// so a newcomer read the 19.6 KB schema instead).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { schemaReference } from '../../codegen/reference-schema.ts';
import { ROOT } from '../../engine/core/descriptor/registry.ts';

const schema = JSON.parse(readFileSync(join(ROOT, 'schemas/fixture.schema.json'), 'utf8'));
const page = readFileSync(join(ROOT, 'docs/reference/fixtures.md'), 'utf8');

/** The table rows of one `### \`title\`` section. */
function section(title: string): string {
  const start = page.indexOf(`### \`${title}\``);
  if (start < 0) return '';
  const next = page.indexOf('\n### ', start + 1);
  return page.slice(start, next < 0 ? undefined : next);
}

describe('docs/reference/fixtures.md', () => {
  it('says what the rest of a file is for every kind (the conditional parts)', () => {
    for (const kind of schema.properties.kind.enum) expect(page).toContain(`- when \`kind\` is \`${kind}\`: the rest is [${kind}File](#${kind}file)`);
  });

  it('lists every key of every object of the format, with a description', () => {
    for (const [name, def] of Object.entries<any>(schema.$defs)) {
      if (!def.properties) continue;
      const s = section(name);
      expect(s, `a section for ${name}`).not.toBe('');
      for (const [key, p] of Object.entries<any>(def.properties)) {
        const row = s.split('\n').find((l) => l.startsWith(`| \`${key}\` |`));
        expect(row, `${name}.${key}`).toBeDefined();
        expect(p.description, `${name}.${key} has a description in the schema`).toBeTruthy();
      }
    }
  });

  it('renders if/then parts with their required keys and properties', () => {
    const md = schemaReference(
      {
        type: 'object',
        properties: { shim: { enum: ['sh', 'plugin'] } },
        allOf: [{ if: { properties: { shim: { const: 'plugin' } } }, then: { required: ['hook', 'expect'], properties: { hook: { type: 'string' } } } }],
      },
      'case',
    );
    expect(md).toContain('- when `shim` is `plugin`: requires `hook`, `expect`; `hook`: string');
  });
});
