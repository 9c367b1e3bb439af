// The attr-match filter dialect (AEP-0003 §6): compile once at subscribe,
// then match per event without re-validating. Compilation fails closed: an
// illegal key or predicate throws FilterError, never a match-all.
import { SEVERITY_ORDER } from '../../core/aep/schemas.ts';

export class FilterError extends Error {}

// Filterable core attributes (§6.2 rule 1); time/seq/aep/traceparent/data are not.
const CORE_FILTERABLE = new Set(['id', 'type', 'subject', 'source', 'agent', 'session', 'run', 'step', 'epoch', 'cause', 'severity', 'capture']);
const CORE_UNFILTERABLE = new Set(['time', 'seq', 'aep', 'traceparent', 'data']);
const EXTENSION_NAME = /^[a-z0-9]{1,20}$/;
// Defaults applied before matching (§6.2 rule 5).
const DEFAULTS: Record<string, string | number> = { severity: 'info', capture: 'metadata', epoch: 0 };

type Scalar = string | number | boolean;
type Test = (ev: Record<string, unknown>) => boolean;
export type CompiledFilter = Test;

function isScalar(v: unknown): v is Scalar {
  return typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isInteger(v));
}

function sevRank(level: unknown, key: string): number {
  const i = SEVERITY_ORDER.indexOf(level as (typeof SEVERITY_ORDER)[number]);
  if (i < 0) throw new FilterError(`severity.${key} must be one of ${SEVERITY_ORDER.join(', ')}`);
  return i;
}

/** A type predicate element: an exact type or `prefix.*`; `*` alone is not a pattern. */
function typeTest(p: unknown): (t: unknown) => boolean {
  if (typeof p !== 'string' || p.length === 0) throw new FilterError('type predicates must be non-empty strings');
  if (!p.includes('*')) return (t) => t === p;
  if (!p.endsWith('.*') || p.length < 3 || p.slice(0, -2).includes('*')) throw new FilterError(`'${p}' is not a type pattern (use exact types or prefix.*)`);
  const prefix = p.slice(0, -1); // keeps the dot: 'attention.' never matches bare 'attention'
  return (t) => typeof t === 'string' && t.length > prefix.length && t.startsWith(prefix);
}

function scalarTest(key: string, p: unknown): (v: unknown) => boolean {
  if (!isScalar(p)) throw new FilterError(`'${key}' predicates must be strings, integers or booleans`);
  // Globs exist only on `type`; a star elsewhere is a mistaken glob, not a literal to match.
  if (typeof p === 'string' && p.endsWith('*')) throw new FilterError(`'${key}' does not take patterns (only 'type' does)`);
  return (v) => v === p;
}

function predicate(key: string, p: unknown): (v: unknown) => boolean {
  const element = key === 'type' ? typeTest : (x: unknown) => scalarTest(key, x);
  if (Array.isArray(p)) {
    if (p.length === 0) throw new FilterError(`'${key}' inclusion array must not be empty`);
    const tests = p.map(element);
    return (v) => tests.some((t) => t(v));
  }
  if (key === 'severity' && p !== null && typeof p === 'object') {
    const keys = Object.keys(p);
    if (keys.length === 0 || keys.some((k) => k !== 'gte' && k !== 'lte')) throw new FilterError('severity comparison takes only gte and/or lte');
    const o = p as { gte?: unknown; lte?: unknown };
    const lo = o.gte === undefined ? 0 : sevRank(o.gte, 'gte');
    const hi = o.lte === undefined ? SEVERITY_ORDER.length - 1 : sevRank(o.lte, 'lte');
    return (v) => {
      const r = SEVERITY_ORDER.indexOf(v as (typeof SEVERITY_ORDER)[number]);
      return r >= lo && r <= hi;
    };
  }
  return element(p);
}

export function compileFilter(filter: unknown): CompiledFilter {
  if (filter === undefined || filter === null) return () => true;
  if (typeof filter !== 'object' || Array.isArray(filter)) throw new FilterError('filter must be a JSON object');
  const tests: Test[] = [];
  for (const [key, p] of Object.entries(filter as Record<string, unknown>)) {
    if (CORE_UNFILTERABLE.has(key)) throw new FilterError(`'${key}' is not filterable`);
    if (!CORE_FILTERABLE.has(key) && !EXTENSION_NAME.test(key)) throw new FilterError(`'${key}' is neither a filterable attribute nor a legal extension name`);
    const test = predicate(key, p);
    const dflt = DEFAULTS[key];
    tests.push((ev) => {
      const v = ev[key] ?? dflt;
      return v !== undefined && test(v);
    });
  }
  return tests.length === 0 ? () => true : (ev) => tests.every((t) => t(ev));
}
