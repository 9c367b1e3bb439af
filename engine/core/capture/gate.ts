// The capture gate: enforces a ceiling on an event's `data` from the schema
// annotations (AEP-0003 §9). Digests and `*_redacted` stand-ins are minted
// from the original values first; then every field above the ceiling is
// dropped, `redacted`-gated text passes the redaction pipeline, and
// metadata-by-exception fields (prompts, labels) become structural stand-ins.
import { captureRank, type CaptureLevel } from '../aep/schemas.ts';
import { annotationsFor, type FieldNote } from './annotations.ts';
import { aepDigest } from './canonical.ts';
import type { TextRedactor as Redactor } from './redaction/fragments.ts';
import { TYPE } from '../kernel/lifecycle.ts';

export interface GateOptions {
  ceiling: CaptureLevel;
  /** Descriptor-declared gates for fields the schema does not annotate, by dotted path (`a.b`, `list[].c`). */
  gates?: Record<string, CaptureLevel>;
  /** The emitter's redaction (the operator's settings); needed at ceiling `redacted`, never asked at `metadata` (stand-ins only). */
  redactor?: Redactor;
  /** Structural stand-ins for metadata-by-exception fields, by dotted path (used at ceiling metadata). */
  standIns?: Record<string, unknown>;
  /** Inputs of the default prompt stand-in `"{agent} requests {kind}: {subject}"`. */
  agent?: string;
  subject?: string;
  /** Mint digests / `_redacted` stand-ins (emitters do; re-emitting hops can't: the original is gone). */
  mint?: boolean;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);

/** Gate one payload. Returns a new object; the input is not modified. */
export function gateData(type: string, data: Obj | undefined, opts: GateOptions): Obj | undefined {
  if (opts.ceiling === 'none' || data === undefined) return undefined;
  const note = annotationsFor(type);
  const ctx = { opts, redactor: opts.redactor, rank: captureRank(opts.ceiling), mint: opts.mint !== false };
  return walkObject(data, note, '', ctx, data);
}

interface Ctx {
  opts: GateOptions;
  redactor: Redactor | undefined;
  rank: number;
  mint: boolean;
}

/** Content kept at `redacted` goes through the emitter's redactor: a caller gating there without one is a bug, said at once. */
function redact(ctx: Ctx, v: unknown, path?: string): unknown {
  if (!ctx.redactor) throw new Error("gateData at capture `redacted` needs the emitter's redactor (GateOptions.redactor)");
  return ctx.redactor.deep(v, path);
}

function levelOf(note: FieldNote | undefined, path: string, ctx: Ctx): CaptureLevel {
  const gate = ctx.opts.gates?.[path];
  if (!note?.level) return gate ?? 'full';
  // a declared gate may make an annotated field stricter, never looser
  return gate && captureRank(gate) > captureRank(note.level) ? gate : note.level;
}

function walkObject(obj: Obj, note: FieldNote | null | undefined, prefix: string, ctx: Ctx, root: Obj): Obj {
  const src: Obj = { ...obj };
  const props = note?.props;
  if (ctx.mint && props) {
    for (const [k, v] of Object.entries(obj)) {
      if (v === undefined) continue;
      if (props.has(`${k}_digest`) && src[`${k}_digest`] === undefined) src[`${k}_digest`] = aepDigest(v);
      if (props.has(`${k}_redacted`) && src[`${k}_redacted`] === undefined && ctx.opts.ceiling === 'redacted') {
        src[`${k}_redacted`] = redact(ctx, v);
      }
    }
  }
  const out: Obj = {};
  for (const [k, v] of Object.entries(src)) {
    if (v === undefined) continue;
    const path = prefix ? `${prefix}.${k}` : k;
    const child = props?.get(k);
    const kept = gateValue(v, child, path, ctx, obj, k, root);
    if (kept !== undefined) out[k] = kept;
  }
  return out;
}

function gateValue(v: unknown, note: FieldNote | undefined, path: string, ctx: Ctx, parent: Obj, key: string, root: Obj): unknown {
  const level = levelOf(note, path, ctx);
  if (captureRank(level) > ctx.rank) return undefined;
  if (note?.byException) return byException(v, path, ctx, parent, key, root);
  if (level === 'redacted' && ctx.opts.ceiling === 'redacted') return redact(ctx, v, path);
  if (Array.isArray(v)) {
    if (!note?.items && !hasGatesUnder(`${path}[]`, ctx)) return v;
    return v.map((item) => (isObj(item) ? walkObject(item, note?.items, `${path}[]`, ctx, root) : item));
  }
  if (isObj(v) && (note?.props || hasGatesUnder(path, ctx))) return walkObject(v, note, path, ctx, root);
  return v;
}

function hasGatesUnder(path: string, ctx: Ctx): boolean {
  const g = ctx.opts.gates;
  if (!g) return false;
  for (const p of Object.keys(g)) if (p.startsWith(`${path}.`) || p.startsWith(`${path}[]`)) return true;
  return false;
}

function byException(v: unknown, path: string, ctx: Ctx, parent: Obj, key: string, root: Obj): unknown {
  if (ctx.opts.ceiling === 'full') return v;
  if (ctx.opts.ceiling === 'redacted') return redact(ctx, v, path);
  // metadata: structural stand-ins only, never the content itself
  const given = ctx.opts.standIns?.[path];
  if (given !== undefined && !Array.isArray(ctx.opts.standIns?.[path])) return given;
  if (key === 'label' && typeof parent.id === 'string') return parent.id;
  if (key === 'prompt') {
    const kind = typeof root.kind === 'string' ? root.kind : 'attention';
    return `${ctx.opts.agent ?? 'agent'} requests ${kind}: ${ctx.opts.subject ?? kind}`;
  }
  return undefined;
}

/**
 * Down-level a whole event for a hop (relay fan-out, subscription ceiling):
 * never up; a `full` event asked for at `redacted` becomes `metadata`
 * (a hop cannot mint the redaction claim mechanically, AEP-0001 §8.2(e)).
 */
export function downLevelEvent<E extends { type: string; capture?: string; data?: Obj; agent?: string; subject?: string }>(event: E, ceiling: CaptureLevel): E {
  const current = (event.capture ?? 'metadata') as CaptureLevel;
  if (captureRank(current) <= captureRank(ceiling)) return event;
  let effective: CaptureLevel = ceiling;
  if (ceiling === 'redacted' && current === 'full') effective = 'metadata';
  const out: E = { ...event, capture: effective };
  if (effective === 'none') delete out.data;
  else if (event.data) {
    out.data = gateData(event.type, event.data, { ceiling: effective, mint: false, agent: event.agent, subject: event.subject });
    if (effective === 'metadata' && ANSWER_TYPES.has(event.type)) out.data = structuralValuesOnly(out.data);
  }
  return out;
}

/** Events carrying a form answer (`answer.values`, AEP-0006). */
const ANSWER_TYPES = new Set<string>([TYPE.attentionAnswered, TYPE.controlAttentionRespond]);

/**
 * A hop down-leveling a form answer to `metadata` without the request's
 * field specs keeps only the values that are structural by their JSON type
 * alone (numbers, booleans): a string may be free text (a string field, a
 * select's `other` entry), so it goes, select ids included (conservative;
 * the AEP downlevel fixture: conformance/fixtures/downlevel DL1, DL2).
 */
function structuralValuesOnly(data: Obj | undefined): Obj | undefined {
  const answer = data?.answer as Obj | undefined;
  const values = answer?.values as Obj | undefined;
  if (!values || typeof values !== 'object' || Array.isArray(values)) return data;
  const kept: Obj = {};
  for (const [k, v] of Object.entries(values)) if (typeof v === 'number' || typeof v === 'boolean') kept[k] = v;
  return { ...data, answer: { ...answer, values: kept } };
}

export interface FormFieldSpec {
  id: string;
  type: string;
  other?: boolean;
  multi?: boolean;
  choices?: { id: string }[];
}

/**
 * Type-dependent gating of `answer.values` (AEP-0006): structural values
 * (numbers, booleans, closed-select ids) survive at metadata; string fields
 * and "other" free text are user-authored and need `redacted`.
 */
export function gateFormValues(fields: FormFieldSpec[], values: Obj, ceiling: CaptureLevel, redactor: Redactor): Obj {
  const out: Obj = {};
  const byId = new Map(fields.map((f) => [f.id, f]));
  for (const [k, v] of Object.entries(values)) {
    const f = byId.get(k);
    if (!f) continue; // keys outside the form's contract are dropped (conservative)
    const structural = isStructural(f, v);
    if (structural) out[k] = v;
    else if (captureRank(ceiling) >= captureRank('redacted')) out[k] = ceiling === 'full' ? v : redactor.deep(v);
  }
  return out;
}

function isStructural(f: FormFieldSpec | undefined, v: unknown): boolean {
  if (!f) return false;
  if (f.type === 'number') return typeof v === 'number';
  if (f.type === 'boolean') return typeof v === 'boolean';
  if (f.type === 'select') {
    const ids = new Set((f.choices ?? []).map((c) => c.id));
    return Array.isArray(v) ? v.every((x) => typeof x === 'string' && ids.has(x)) : typeof v === 'string' && ids.has(v);
  }
  return false;
}
