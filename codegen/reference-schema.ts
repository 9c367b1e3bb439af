// A reference page rendered from a JSON Schema (the descriptor's, the
// fixture format's): one table per object, every key with its type, whether
// it is required, its allowed values or default, and its description. Shared
// by docs/reference/descriptor.md and docs/reference/fixtures.md.
import { stringify } from 'yaml';
import { cell, headingId, table } from './markdown.ts';

interface Section {
  title: string;
  anchor: string;
  node: any;
}

/** A pipe in a pattern would end the table cell (GFM reads `\|` inside code as `|`). */
const pipes = (pattern: string) => pattern.replace(/\|/g, '\\|');

/** A section's heading is its title as inline code: GitHub's id for it. */
const anchorOf = (title: string) => headingId(`\`${title}\``);

/** Render `schema` as Markdown sections: the root first, then every object it names, in first-seen order. */
export function schemaReference(schema: any, rootTitle: string): string {
  const sections: Section[] = [];
  const byNode = new Map<any, Section>();
  const defTitle = (ref: string) => ref.replace('#/$defs/', '');
  const resolve = (n: any): any => (n?.$ref?.startsWith('#/$defs/') ? schema.$defs[defTitle(n.$ref)] : n);

  const section = (title: string, node: any): Section => {
    const hit = byNode.get(node);
    if (hit) return hit;
    const s = { title, anchor: anchorOf(title), node };
    byNode.set(node, s);
    sections.push(s);
    return s;
  };
  const isObject = (n: any) => n && (n.type === 'object' || n.properties) && n.properties;
  const valueTypes = new Map<string, any>();

  /** A one-line type summary, registering the objects it names as sections. */
  const typeOf = (n: any, path: string): string => {
    if (!n || typeof n !== 'object' || !Object.keys(n).length) return 'any';
    if (n.$ref) {
      const target = resolve(n);
      const name = defTitle(n.$ref);
      if (isObject(target)) return `[${name}](#${section(name, target).anchor})`;
      // a named value type (expression, template, level, ...): explained once, in the value-types table
      valueTypes.set(name, target);
      const extra = n.required ? ` (requires ${n.required.map((k: string) => `\`${k}\``).join(', ')})` : '';
      return `[${name}](#value-types)${extra}`;
    }
    if (n.const !== undefined) return `\`${JSON.stringify(n.const)}\``;
    if (Array.isArray(n.enum)) return `one of ${n.enum.map((v: unknown) => `\`${v === null ? 'null' : v}\``).join(', ')}`;
    if (n.anyOf || n.oneOf) return (n.anyOf ?? n.oneOf).map((b: any, i: number) => typeOf(b, `${path}/${i}`)).join(' or ');
    if (n.allOf) return n.allOf.map((b: any, i: number) => typeOf(b, `${path}/${i}`)).join(' and ');
    const t = [n.type].flat().filter(Boolean);
    if (t.includes('string') && n.pattern === '^=') return 'expression (`=...`)';
    if (t.includes('array')) return `list of ${n.items ? typeOf(n.items, `${path}[]`) : 'any'}`;
    if (isObject(n)) return `[${path}](#${section(path, n).anchor})`;
    if (t.includes('object')) {
      const keys = n.propertyNames?.pattern ? `keys matching \`${pipes(n.propertyNames.pattern)}\`` : 'keys';
      if (n.additionalProperties && typeof n.additionalProperties === 'object') return `map of ${keys} to ${typeOf(n.additionalProperties, `${path}.*`)}`;
      return 'mapping';
    }
    const base = t.join(' or ') || 'any';
    return n.pattern ? `${base} matching \`${pipes(n.pattern)}\`` : base;
  };

  const root = section(rootTitle, schema);
  const out: string[] = [];
  let done = 0;
  const renderSections = () => {
    for (; done < sections.length; done++) {
      const s = sections[done];
      const n = s.node;
      const required = new Set<string>(n.required ?? []);
      const rows = Object.entries<any>(n.properties ?? {}).map(([k, p]) => {
        const def = p.default !== undefined ? ` Default: \`${JSON.stringify(p.default)}\`.` : '';
        const desc = p.description ?? resolve(p)?.description ?? '';
        return [`\`${k}\``, typeOf(p, s === root ? k : `${s.title}.${k}`), required.has(k) ? 'yes' : '', cell(`${desc}${def}`)];
      });
      const closed = n.additionalProperties === false ? 'No other keys.' : '';
      const parts = [`${s === root ? '##' : '###'} ${s === root ? 'Top level' : `\`${s.title}\``}`];
      if (n.description && s !== root) parts.push(cell(n.description));
      if (rows.length) parts.push(table(['key', 'type', 'required', 'description'], rows));
      if (closed) parts.push(closed);
      // a schema's `examples`: how the object is written in the YAML itself
      for (const ex of n.examples ?? [])
        parts.push(`Example (\`${s.title}\`):\n\n\`\`\`yaml\n${stringify(ex, { flowCollectionPadding: false }).trimEnd()}\n\`\`\``);
      // the conditional parts (allOf of if/then): what the rest of the object is, by the value of a key
      const conditions = conditionalParts(n, typeOf);
      if (conditions.length) parts.push(conditions.join('\n'));
      out.push(parts.join('\n\n'));
    }
  };
  renderSections();
  if (valueTypes.size) {
    const rows: string[][] = [];
    for (let i = 0; i < valueTypes.size; i++) {
      const [name, node] = [...valueTypes][i];
      rows.push([`\`${name}\``, typeOf({ ...node, description: undefined }, name), cell(node.description ?? '')]);
    }
    out.push(`### Value types\n\n${table(['name', 'type', 'description'], rows)}`);
    // the objects a value type names (its branches), after the table that links them
    renderSections();
  }
  return out.join('\n\n');
}

/** `if: { properties: { k: { const: v } } }, then: ...` entries of `n.allOf` (and `n` itself), one line each: `- when \`k\` is \`v\`: ...`. */
function conditionalParts(n: any, typeOf: (n: any, path: string) => string): string[] {
  const entries = [...(n.allOf ?? []), ...(n.if ? [n] : [])].filter((e: any) => e?.if?.properties && e.then);
  return entries.map((e: any, i: number) => {
    const when = Object.entries<any>(e.if.properties)
      .map(([k, v]) => `\`${k}\` is ${v.const !== undefined ? `\`${JSON.stringify(v.const).replace(/^"|"$/g, '')}\`` : typeOf(v, k)}`)
      .join(' and ');
    const then: string[] = [];
    if (e.then.$ref) then.push(`the rest is ${typeOf(e.then, `when-${i}`)}`);
    if (e.then.required?.length) then.push(`requires ${e.then.required.map((k: string) => `\`${k}\``).join(', ')}`);
    if (e.then.properties)
      then.push(
        Object.entries<any>(e.then.properties)
          .map(([k, p]) => `\`${k}\`: ${typeOf(p, k)}`)
          .join('; '),
      );
    return `- when ${when}: ${then.join('; ') || 'no further rule'}`;
  });
}
