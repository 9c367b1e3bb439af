// Human schema errors (docs/errors.md): ajv's raw output for the descriptor
// schema turned into one located line per problem, as Spectral does
// (convertAjvErrors): an unknown key located at the key with the allowed
// keys and a did-you-mean; an enum listing its values; an `anyOf` collapsed
// to the one branch the value's JSON type selects (re-validated on its own),
// or to "must be a string or a mapping" when none does; one error per
// location; an expression position holding a plain value reported as
// `unmarked-expression`.
import type { ErrorObject } from 'ajv';
import { verboseAjv, type AjvInstance } from '../aep/schemas.ts';
import { type DescriptorError, pathString } from './errors.ts';
import { unmarkedMessage } from './expressions.ts';
import { choices, explain, suggest } from '../text/suggest.ts';
import type { YamlSource } from './yaml-source.ts';

type Seg = string | number;

const segsOf = (instancePath: string): Seg[] =>
  instancePath
    .split('/')
    .slice(1)
    .map((x) => x.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((x) => (/^\d+$/.test(x) ? Number(x) : x));

const JSON_TYPE = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'a sequence' : typeof v === 'object' ? 'a mapping' : `a ${typeof v}`);
const TYPE_NAME: Record<string, string> = {
  object: 'a mapping',
  array: 'a sequence',
  string: 'a string',
  number: 'a number',
  integer: 'an integer',
  boolean: 'a boolean',
  null: 'null',
};

/** One validator per schema object (branches of an anyOf are re-validated alone). */
export class SchemaReporter {
  private readonly cache = new WeakMap<object, (d: unknown) => boolean>();
  private readonly ajv: AjvInstance;
  constructor(
    private readonly root: any,
    ajv?: AjvInstance,
  ) {
    this.ajv = ajv ?? verboseAjv();
  }

  private validator(schema: object): any {
    let v = this.cache.get(schema);
    if (!v) {
      const { $id: _id, $schema: _s, ...rest } = schema as any;
      v = this.ajv.compile({ ...rest, $defs: this.root.$defs });
      this.cache.set(schema, v);
    }
    return v;
  }

  /** Every problem of `value` against `schema`, anyOf collapsed, paths prefixed. */
  errors(schema: object, value: unknown, prefix: Seg[] = []): Raw[] {
    const v = this.validator(schema);
    if (v(value)) return [];
    const raw: ErrorObject[] = (v.errors ?? []).map((e: ErrorObject) => ({ ...e }));
    return this.collapse(raw, prefix);
  }

  private collapse(raw: ErrorObject[], prefix: Seg[]): Raw[] {
    const unions = raw.filter((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf');
    // the shallowest unions decide; everything beneath them is re-derived from the chosen branch
    const top = unions.filter((u) => !unions.some((o) => o !== u && u.instancePath.startsWith(`${o.instancePath}/`)));
    const under = (e: ErrorObject) => top.some((u) => e.instancePath === u.instancePath || e.instancePath.startsWith(`${u.instancePath}/`));
    // `if` only says a `then` failed; the then's own errors say what
    const out: Raw[] = raw.filter((e) => !under(e) && e.keyword !== 'if').map((e) => ({ ...e, segs: [...prefix, ...segsOf(e.instancePath)] }));
    for (const u of top) {
      const at = [...prefix, ...segsOf(u.instancePath)];
      const branches = u.schema as object[];
      const tried = branches.map((b) => ({ b, errs: this.errors(b, u.data, at) }));
      // the branch the value's JSON type selects (a string: the enum branch; a mapping: the object branch)
      const fits = tried.filter((t) => accepts(resolve(t.b, this.root), u.data, this.root));
      if (!fits.length) {
        out.push({
          keyword: 'union',
          segs: at,
          message: `must be ${unionTypes(branches, this.root).join(' or ')}, not ${JSON_TYPE(u.data)}`,
          data: u.data,
        } as Raw);
        continue;
      }
      fits.sort((a, b) => a.errs.length - b.errs.length);
      out.push(...fits[0].errs);
    }
    return out;
  }
}

export type Raw = Partial<ErrorObject> & { keyword: string; segs: Seg[]; message?: string; data?: unknown };

function resolve(s: any, root: any): any {
  if (s?.$ref?.startsWith('#/$defs/')) return resolve(root.$defs[s.$ref.slice(8)], root);
  return s;
}

const typeOfValue = (v: unknown): string =>
  v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v === 'number' ? (Number.isInteger(v) ? 'integer' : 'number') : typeof v;

/** Does this branch accept values of the value's JSON type at all (its `type`, or the types of its enum)? */
function accepts(b: any, v: unknown, root: any): boolean {
  if (!b || typeof b !== 'object') return true;
  if (b.anyOf) return b.anyOf.some((x: any) => accepts(resolve(x, root), v, root));
  const t = typeOfValue(v);
  if (b.type !== undefined) {
    const types: string[] = [b.type].flat();
    return types.includes(t) || (t === 'integer' && types.includes('number'));
  }
  if (Array.isArray(b.enum)) return b.enum.some((e: unknown) => typeOfValue(e) === t || (t === 'integer' && typeOfValue(e) === 'number'));
  if ('const' in b) return typeOfValue(b.const) === t;
  return true;
}

function unionTypes(branches: any[], root: any): string[] {
  const names = new Set<string>();
  for (const b of branches.map((x) => resolve(x, root))) {
    if (Array.isArray(b?.enum)) names.add(`one of ${choices(b.enum.map(String))}`);
    else if (b?.anyOf) unionTypes(b.anyOf, root).forEach((n) => names.add(n));
    else for (const t of [b?.type].flat()) if (t) names.add(TYPE_NAME[t] ?? t);
  }
  return [...names];
}

const RANK: Record<string, number> = { unmarked: 0, additionalProperties: 1, required: 2, union: 3, enum: 4, type: 5 };

export interface SchemaProblem {
  error: DescriptorError;
  /** Where it sits (keys may hold dots: not recoverable from error.path). */ segs: Seg[];
}

/** The descriptor's schema problems as located, coded, de-duplicated errors. */
export function schemaErrors(reporter: SchemaReporter, schema: object, spec: unknown, src: YamlSource): SchemaProblem[] {
  const all = reporter.errors(schema, spec);
  // a misspelt key is one problem, not two: drop "missing `verified`" beside "unknown key `verifed`"
  const raws = all.filter((r) => {
    if (r.keyword !== 'required') return true;
    const missing = String((r.params as any)?.missingProperty);
    const here = pathString(r.segs);
    return !all.some(
      (o) =>
        o.keyword === 'additionalProperties' && pathString(o.segs) === here && suggest(String((o.params as any)?.additionalProperty), [missing]) === missing,
    );
  });
  const byPlace = new Map<string, { rank: number; p: SchemaProblem }>();
  for (const r of raws) {
    const p = toError(r, src);
    if (!p) continue;
    const rank = p.error.code === 'unmarked-expression' ? 0 : (RANK[r.keyword] ?? 9);
    const place = r.keyword === 'additionalProperties' || r.keyword === 'required' ? `${p.error.path}#${p.error.message}` : p.error.path;
    const seen = byPlace.get(place);
    if (!seen || rank < seen.rank) byPlace.set(place, { rank, p });
  }
  return [...byPlace.values()].map((x) => x.p);
}

function toError(r: Raw, src: YamlSource): SchemaProblem | undefined {
  const params = (r.params ?? {}) as any;
  let segs = r.segs;
  let code: DescriptorError['code'] = 'schema-violation';
  let message: string;
  let key = false;
  switch (r.keyword) {
    case 'additionalProperties': {
      const k = String(params.additionalProperty);
      const allowed = Object.keys((r.parentSchema as any)?.properties ?? {});
      segs = [...segs, k];
      key = true;
      message = explain(`unknown key \`${k}\``, { name: k, candidates: allowed, label: 'Allowed here' });
      break;
    }
    case 'required': {
      const k = String(params.missingProperty);
      key = segs.length > 0;
      message = `missing required key \`${k}\``;
      break;
    }
    case 'enum': {
      const allowed: string[] = (params.allowedValues ?? []).map(String);
      message = explain(`${JSON.stringify(r.data)} is not allowed here`, { name: String(r.data), candidates: allowed, label: 'One of' });
      break;
    }
    case 'type':
      {
        // a mapping with required keys names them (the fix), e.g. an option's { default, doc }
        const required: string[] = params.type === 'object' ? ((r.parentSchema as any)?.required ?? []) : [];
        const keys = required.length ? ` with ${required.map((k) => `\`${k}\``).join(', ')}` : '';
        message = `must be ${[params.type]
          .flat()
          .map((t: string) => TYPE_NAME[t] ?? t)
          .join(' or ')}${keys}, not ${JSON_TYPE(r.data)}`;
      }
      break;
    case 'pattern':
      if (params.pattern === '^=') {
        code = 'unmarked-expression';
        message = unmarkedMessage(r.data, true);
        break;
      }
      message = `${JSON.stringify(r.data)} must match ${params.pattern}`;
      break;
    case 'minLength':
      if (typeof r.data === 'string' && !r.data.startsWith('=') && (r.parentSchema as any)?.pattern === '^=') return undefined; // the pattern error says it
      message = r.data === '' ? 'must not be empty' : `${r.message}`;
      break;
    case 'union':
      message = r.message!;
      break;
    default:
      message = `${r.message ?? r.keyword}${r.data !== undefined && typeof r.data !== 'object' ? ` (got ${JSON.stringify(r.data)})` : ''}`;
  }
  const pos = key ? src.locateKey(segs) : src.locate(segs);
  return { error: { code, file: src.file, line: pos.line, col: pos.col, path: pathString(segs), message }, segs };
}
