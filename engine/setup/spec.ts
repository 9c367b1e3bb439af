// The descriptor's `setup:` block, read with defaults. The keys are
// documented in schemas/descriptor.schema.json (`setup`); this is the subset
// the engine acts on. Other keys document shapes not implemented yet.
import type { Descriptor } from '../descriptor/types.ts';

export type Scope = 'user' | 'project';
export type Unit = 's' | 'ms';

export interface Requirement { file: string; match: string; hint: string }

export interface SetupSpec {
  /** The config-format strategy (`shape`, else `format`). */
  strategy: string;
  scopes: Partial<Record<Scope, string>>;
  defaultScope: Scope;
  /** Unit of the handler `timeout` field per handler kind; absent: none written. */
  timeoutUnit: { command?: Unit; http?: Unit };
  /** Explicit handler timeouts in that unit, by hook or `default`. */
  timeouts: Record<string, number>;
  matcher?: string;
  matcherHooks?: string[];
  name?: string;
  /** Constant fields on hookmap's handlers (hook-lists). */
  fields: Record<string, unknown>;
  /** Top-level keys written when the config lacks them (hook-lists). */
  defaults: Record<string, unknown>;
  /** The named entry hookmap owns (named-hook-groups). */
  entry: string;
  /** File name per hook (hooks-dir). */
  fileNames: Record<string, string>;
  notes: string[];
  requires: Requirement[];
  docs: string[];
}

const list = <T>(v: unknown): T[] => (Array.isArray(v) ? (v as T[]) : []);
const obj = (v: unknown): Record<string, unknown> => (v && typeof v === 'object' && !Array.isArray(v) ? { ...(v as Record<string, unknown>) } : {});

/** The setup block, or undefined when the descriptor declares no way to wire the agent. */
export function setupSpec(d: Descriptor): SetupSpec | undefined {
  const s = d.spec?.setup;
  if (!s || typeof s !== 'object') return undefined;
  const strategy = typeof s.shape === 'string' ? s.shape : s.format;
  if (typeof strategy !== 'string') return undefined;
  const tu = s.timeout_unit;
  return {
    strategy,
    scopes: { ...(s.scopes ?? {}) },
    defaultScope: s.default_scope === 'project' ? 'project' : 'user',
    timeoutUnit: typeof tu === 'string' ? { command: tu, http: tu } : { ...(tu ?? {}) },
    timeouts: { ...(s.timeouts ?? {}) },
    matcher: typeof s.matcher === 'string' ? s.matcher : undefined,
    matcherHooks: Array.isArray(s.matcher_hooks) ? s.matcher_hooks : undefined,
    name: typeof s.name === 'string' ? s.name : undefined,
    fields: obj(s.fields),
    defaults: obj(s.defaults),
    entry: typeof s.entry === 'string' ? s.entry : 'hookmap',
    fileNames: obj(s.file_names) as Record<string, string>,
    notes: list(s.notes),
    requires: list(s.requires),
    docs: list(s.docs),
  };
}
