// The AEP schemas and registry (copied under schemas/aep), loaded once and
// compiled with ajv. Everything that validates an envelope or a payload goes
// through here, so the relay, the daemon, the mapper and `validate` agree.
import { readFileSync, readdirSync } from 'node:fs';
import { join, sep } from 'node:path';
import { createRequire } from 'node:module';
import type { ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import { cachedValidator } from './validator-cache.ts';
import { PACKAGE_ROOT } from '../io/package-root.mjs';

// CJS packages under NodeNext: the constructor may sit on `.default`
type AjvCtor = new (opts: Record<string, unknown>) => AjvInstance;
export interface AjvInstance {
  compile(schema: unknown): ValidateFunction;
  addKeyword(def: Record<string, unknown>): unknown;
  addSchema(schema: unknown, key?: string): unknown;
  getSchema(key: string): ValidateFunction | undefined;
}
// loaded at the first compile, not with this module: a start (`hookmap up`) listens before anything is validated
const load = createRequire(import.meta.url);
const unwrapDefault = (m: any) => m.default ?? m;
let ajvModules: { Ajv2020: AjvCtor; addFormats: (ajv: AjvInstance) => void; ajv2020: any } | undefined;
function modules(): NonNullable<typeof ajvModules> {
  if (!ajvModules) {
    const ajv2020 = load('ajv/dist/2020.js');
    ajvModules = { Ajv2020: unwrapDefault(ajv2020), addFormats: unwrapDefault(load('ajv-formats')), ajv2020 };
  }
  return ajvModules;
}

export const SCHEMA_DIR = join(PACKAGE_ROOT, 'schemas', 'aep') + sep;

export type CaptureLevel = 'none' | 'metadata' | 'redacted' | 'full';
export const CAPTURE_ORDER: CaptureLevel[] = ['none', 'metadata', 'redacted', 'full'];
export const SEVERITY_ORDER = ['debug', 'info', 'notice', 'warning', 'error', 'critical'] as const;
export type Severity = (typeof SEVERITY_ORDER)[number];

export function captureRank(level: string | undefined): number {
  const i = CAPTURE_ORDER.indexOf((level ?? 'metadata') as CaptureLevel);
  return i < 0 ? 1 : i;
}

export interface RegistryType {
  type: string;
  status: string;
  scope: 'session' | 'agent' | 'command';
  schema: string | null;
  summary: string;
}

function readJson(rel: string): any {
  return JSON.parse(readFileSync(join(SCHEMA_DIR, rel), 'utf8'));
}

export const REGISTRY_TYPES: RegistryType[] = readJson('registry/types.json').types;
export const REGISTRY_BY_TYPE = new Map(REGISTRY_TYPES.map((t) => [t.type, t]));
export const CATEGORIES: { name: string; scope: string }[] = readJson('registry/categories.json').categories;
export const NACK_REASONS: string[] = (() => {
  const n = readJson('registry/nack-reasons.json');
  return Array.isArray(n.reasons) ? n.reasons.map((r: any) => (typeof r === 'string' ? r : (r.reason ?? r.name))) : (n.enum ?? []);
})();
export { AEP_VERSION, SUPPORTED_VERSIONS } from './version.ts';

let ajvInstance: AjvInstance | undefined;
/** The reporting instance: every error, full format checks. */
export function ajv(): AjvInstance {
  if (!ajvInstance) {
    const { Ajv2020, addFormats } = modules();
    ajvInstance = new Ajv2020({ allErrors: true, strict: false });
    addFormats(ajvInstance);
    ajvInstance.addKeyword({ keyword: 'x-aep-capture', schemaType: 'string' });
  }
  return ajvInstance;
}

/** A separate instance for descriptor/fixture schema reporting: `verbose` keeps each error's schema and data (engine/core/descriptor/schema-errors.ts). */
export function verboseAjv(): AjvInstance {
  const { Ajv2020, addFormats } = modules();
  const a = new Ajv2020({ allErrors: true, strict: false, verbose: true });
  addFormats(a);
  return a;
}

let quickInstance: AjvInstance | undefined;
/**
 * The hot-path instance: stops at the first error. Every event on the hook
 * path and at relay ingest is checked with it; only a failing event is
 * re-checked by the reporting instance to say everything that is wrong.
 */
function quick(): AjvInstance {
  if (!quickInstance) {
    const { Ajv2020, addFormats, ajv2020 } = modules();
    // its code kept (validator-cache.ts): ajv's standalone code names the formats it uses through this require
    const formats = ajv2020._`require("ajv-formats/dist/formats").fastFormats`;
    quickInstance = new Ajv2020({ allErrors: false, strict: false, code: { source: true, formats } });
    // fast-mode formats: simpler date-time/uri regexes; the reporting
    // instance re-checks a failure in full mode
    (addFormats as unknown as (a: AjvInstance, o: { mode: string }) => void)(quickInstance, { mode: 'fast' });
    quickInstance.addKeyword({ keyword: 'x-aep-capture', schemaType: 'string' });
  }
  return quickInstance;
}

/** A hot-path validator: kept as code by content hash when the CLI named a folder (validator-cache.ts), else compiled. */
const quickValidator = (schema: unknown): ValidateFunction =>
  cachedValidator(
    schema,
    () => quick().compile(schema),
    (v) => unwrapDefault(load('ajv/dist/standalone'))(quick(), v),
  );

const payloadSchemas = new Map<string, any>();
for (const f of readdirSync(join(SCHEMA_DIR, 'types'))) {
  if (f.endsWith('.schema.json')) payloadSchemas.set(f.replace(/\.schema\.json$/, ''), readJson(`types/${f}`));
}
export const ENVELOPE_SCHEMA = readJson('aep-event.schema.json');
/**
 * The envelope's core attributes in the schema's order (AEP-0001 §5): the one list behind the mapper's member
 * order, the refusal of an extension named like a core attribute, the validator and the bridges' projections.
 */
export const CORE_ATTRIBUTE_ORDER: readonly string[] = Object.freeze(Object.keys(ENVELOPE_SCHEMA.properties));
export const CORE_ATTRIBUTES: ReadonlySet<string> = new Set(CORE_ATTRIBUTE_ORDER);

/** The payload schema of a registered type, or undefined (x.* types, free-form payloads). */
export function payloadSchema(type: string): any | undefined {
  const reg = REGISTRY_BY_TYPE.get(type);
  if (reg?.schema) return payloadSchemas.get(reg.schema.replace(/\.schema\.json$/, ''));
  return payloadSchemas.get(type);
}

let envelopeQuick: ValidateFunction | undefined;
let envelopeValidator: ValidateFunction | undefined;
export function validateEnvelope(ev: unknown): ErrorObject[] {
  if ((envelopeQuick ??= quickValidator(ENVELOPE_SCHEMA))(ev)) return [];
  const v = (envelopeValidator ??= ajv().compile(ENVELOPE_SCHEMA));
  return v(ev) ? [] : [...(v.errors ?? [])];
}

const payloadValidators = new Map<string, [ValidateFunction, () => ValidateFunction] | null>();
function payloadEntry(type: string): [ValidateFunction, () => ValidateFunction] | null {
  let v = payloadValidators.get(type);
  if (v === undefined) {
    const s = payloadSchema(type);
    let full: ValidateFunction | undefined;
    v = s ? [quickValidator(s), () => (full ??= ajv().compile(s))] : null;
    payloadValidators.set(type, v);
  }
  return v;
}

export function validatePayload(type: string, data: unknown): ErrorObject[] {
  const v = payloadEntry(type);
  if (!v || v[0](data ?? {})) return [];
  const full = v[1]();
  return full(data ?? {}) ? [] : [...(full.errors ?? [])];
}

export function formatAjvErrors(errors: ErrorObject[]): string {
  return errors
    .map((e) => `${e.instancePath || '/'} ${e.message}${e.params && 'additionalProperty' in e.params ? ` (${(e.params as any).additionalProperty})` : ''}`)
    .join('; ');
}

/** The category of a type: its first token, or for x.* types the token after the vendor. */
export function typeCategory(type: string): string {
  const parts = type.split('.');
  return parts[0] === 'x' ? (parts[2] ?? '') : parts[0];
}

/** Is this a type the envelope grammar accepts (core category or x.vendor.category.rest)? */
export const TYPE_PATTERN = new RegExp(ENVELOPE_SCHEMA.properties.type.pattern);

/**
 * Compile the hot-path validators before the first event needs them: the
 * envelope, then each given type's payload schema (default: every registered
 * type), one per macrotask so a request arriving meanwhile is served between
 * them. Compiling is most of a cold daemon's first hook (the envelope alone
 * is hundreds of milliseconds); `up`, `serve` and `relay` call this once
 * listening. Idempotent: compiled validators are cached.
 */
export async function warmValidators(types: Iterable<string> = REGISTRY_BY_TYPE.keys()): Promise<void> {
  const next = () => new Promise<void>((r) => setImmediate(r));
  await next();
  envelopeQuick ??= quickValidator(ENVELOPE_SCHEMA);
  for (const t of types) {
    await next();
    payloadEntry(t);
  }
}

/** What is compiled so far (the hot-path envelope validator; payload types looked up, with or without a schema). */
export function validatorsCompiled(): { envelope: boolean; payloadTypes: number } {
  return { envelope: envelopeQuick !== undefined, payloadTypes: payloadValidators.size };
}
