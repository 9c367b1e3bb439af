// The up config file checked against its one schema (up-schema.ts): every
// problem a coded finding from the shared registry (engine/core/descriptor/errors.ts),
// located at file:line:col by the YAML source positions, with the closest
// known key for a misspelt one. `hookmap up --config` and `hookmap config
// check` both report these; nothing of a refused file takes effect.
import type { z } from 'zod';
import { didYouMean, explain, suggest } from '../core/text/suggest.ts';
import { pathString, sortErrors, type DescriptorError, type ErrorCode } from '../core/descriptor/errors.ts';
import { parseYamlSource, type YamlSource } from '../core/descriptor/yaml-source.ts';
import { CHANNEL_KINDS } from '../person/channels/schema.ts';
import { UpConfigSchema, type UpConfigDoc } from './up-schema.ts';

/** One problem of a config file: a descriptor error's shape, its message naming the key. */
export type ConfigFinding = DescriptorError;
type Path = (string | number)[];
type Issue = z.core.$ZodIssue;

/** `file:line:col code: message` (the message starts with the key's path). */
export const formatFinding = (f: ConfigFinding) => `${f.file}:${f.line}:${f.col} ${f.code}: ${f.message}`;

/** A key's path as the messages name it: `push.agents.<agent>.kinds`, `bridges[0].protocol`. */
export const keyLabel = (path: Path): string => pathString(path);

const valueAt = (v: unknown, path: Path): unknown => path.reduce<any>((o, k) => (o === null || typeof o !== 'object' ? undefined : o[k]), v);
const got = (v: unknown) => ` (got ${JSON.stringify(v)})`;
const TYPE_WORDS: Record<string, string> = {
  array: 'a list',
  object: 'a mapping',
  record: 'a mapping',
  number: 'a number',
  int: 'an integer',
  string: 'a string',
  boolean: 'true or false',
};

/** The schema that describes `path` (unions resolved by the value written there): for the known keys of a mapping. */
function schemaAt(schema: z.core.$ZodType, path: Path, root: unknown): z.core.$ZodType | undefined {
  let s: any = schema;
  const unwrap = () => {
    for (;;) {
      const d = s?._zod?.def;
      if (d && ['optional', 'nullable', 'default'].includes(d.type)) s = d.innerType;
      else if (d?.type === 'union') {
        const v = valueAt(root, path.slice(0, depth));
        const options: any[] = d.options;
        s =
          options.find(
            (o) => o._zod.def.type === 'object' && v && typeof v === 'object' && o._zod.def.shape.kind?._zod.def.values?.includes((v as any).kind),
          ) ?? options.find((o) => (Array.isArray(v) ? o._zod.def.type === 'array' : ['object', 'record'].includes(o._zod.def.type)));
      } else return;
    }
  };
  let depth = 0;
  unwrap();
  for (const seg of path) {
    const d = s?._zod?.def;
    depth++;
    s = d?.type === 'object' ? d.shape[seg] : d?.type === 'array' ? d.element : d?.type === 'record' ? d.valueType : undefined;
    unwrap();
  }
  return s;
}

function knownKeys(path: Path, root: unknown): string[] {
  const d: any = (schemaAt(UpConfigSchema, path, root) as any)?._zod?.def;
  return d?.type === 'object' ? Object.keys(d.shape) : [];
}

/** `meant`: the paths of the keys a misspelt one was surely meant as (their missing-key findings are dropped). */
function findingsOf(issue: Issue, base: Path, src: YamlSource, out: ConfigFinding[], meant: Set<string>): void {
  const path = [...base, ...(issue.path as Path)];
  const label = keyLabel(path);
  const at = (p: Path) => src.locate(p);
  const push = (code: ErrorCode, message: string, pos = at(path), where = path) =>
    out.push({ code, file: src.file, line: pos.line, col: pos.col, path: pathString(where), message });
  const value = valueAt(src.value, path);
  switch (issue.code) {
    case 'unrecognized_keys':
      for (const key of issue.keys) {
        const known = knownKeys(path, src.value);
        const kp = [...path, key];
        const likely = suggest(key, known);
        if (likely !== undefined) meant.add(pathString([...path, likely]));
        if (label === 'channels')
          push(
            'unknown-channel',
            explain(`channels: unknown channel '${key}'`, { name: key, candidates: CHANNEL_KINDS, label: 'Channels' }),
            src.locateKey(kp),
            kp,
          );
        else
          push(
            'unknown-key',
            explain(`${label ? `${label}: ` : ''}unknown key '${key}'`, { name: key, candidates: known, label: 'Known' }),
            src.locateKey(kp),
            kp,
          );
      }
      return;
    case 'invalid_type':
      if (value === undefined) return void push('missing-key', `${label} is required`);
      return void push('wrong-type', `${label} must be ${TYPE_WORDS[issue.expected] ?? issue.expected}${got(value)}`);
    case 'invalid_value': {
      const values = issue.values.map(String);
      return void push(
        'invalid-value',
        `${label} must be one of ${values.join(', ')}${got(value)}.${didYouMean(String(value), values).replace(/^ /, ' ')}`.replace(/\.$/, ''),
      );
    }
    case 'invalid_union': {
      const disc = (issue as any).discriminator as string | undefined;
      if (disc) {
        const options = ((issue as any).options as unknown[]).map(String);
        if (value === undefined) return void push('missing-key', `${label} is required (one of ${options.join(', ')})`);
        return void push('invalid-value', `${label} must be one of ${options.join(', ')}${got(value)}`);
      }
      const atRoot = (b: Issue[]) => b.some((i) => i.code === 'invalid_type' && i.path.length === 0);
      const branch = issue.errors.find((b) => !atRoot(b));
      if (branch) return void branch.forEach((i) => findingsOf(i, path, src, out, meant));
      const expected = issue.errors.map((b) => TYPE_WORDS[(b[0] as any)?.expected] ?? (b[0] as any)?.expected);
      const what = issue.message && issue.message !== 'Invalid input' ? issue.message : [...new Set(expected)].join(' or ');
      return void push('wrong-type', `${label} must be ${what}${got(value)}`);
    }
    case 'too_small':
      if (issue.origin === 'array') return void push('invalid-value', `${label} must be a non-empty list`);
      if (issue.origin === 'string') return void push('invalid-value', `${label} must be a non-empty string`);
      return void push('invalid-value', `${label} must be ${issue.inclusive ? 'at least' : 'more than'} ${issue.minimum}${got(value)}`);
    case 'too_big':
      return void push('invalid-value', `${label} must be ${issue.inclusive ? 'at most' : 'less than'} ${issue.maximum}${got(value)}`);
    case 'invalid_format': {
      const what = issue.format === 'url' ? 'an http(s) URL' : issue.format === 'regex' ? issue.message : `a ${issue.format}`;
      return void push('invalid-value', `${label} must be ${what}${got(value)}`);
    }
    default:
      return void push('invalid-value', `${label}: ${issue.message}`);
  }
}

/** The file's text checked: the document (when clean) and every finding, sorted by line. */
export function checkUpConfigText(file: string, text: string): { doc?: UpConfigDoc; src: YamlSource; findings: ConfigFinding[] } {
  const src = parseYamlSource(file, text);
  if (src.errors.length) return { src, findings: sortErrors(src.errors) };
  const value = src.value ?? {};
  const r = UpConfigSchema.safeParse(value);
  if (r.success) return { doc: r.data, src, findings: [] };
  const findings: ConfigFinding[] = [];
  const meant = new Set<string>();
  for (const issue of r.error.issues) findingsOf(issue, [], { ...src, value }, findings, meant);
  // a misspelt required key is one finding (the unknown key, naming the right one), not two
  return { src, findings: sortErrors(findings.filter((f) => f.code !== 'missing-key' || !meant.has(f.path))) };
}
