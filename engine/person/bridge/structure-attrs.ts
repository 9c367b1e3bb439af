// Which payload members become node attributes in a session's shape
// (structure.ts): per lifecycle event, the dotted paths into `data` kept when
// they survived the capture ceiling (AEP-0003 §7), and the name each gets on
// the node (the OTLP trace projection's span attributes, `hookmap timeline`).
import { fateOf, UNITS } from '../../core/kernel/lifecycle.ts';
import type { Scalar } from './session-node.ts';

/** How a run or a tool call ended, by its terminal's type (the kernel's lifecycle, generated from the AEP registry): finished, failed, ... */
const endsOf = (unit: 'run' | 'tool'): Readonly<Record<string, string>> => Object.fromEntries(UNITS[unit].closes.map((t) => [t, fateOf(t)!.fate]));
export const RUN_END = endsOf('run');
export const TOOL_END = endsOf('tool');

export const SESSION_START_ATTRS: Record<string, string> = {
  'gen_ai.request.model': 'gen_ai.request.model',
  'client.name': 'client.name',
  'client.version': 'client.version',
};
export const SESSION_END_ATTRS: Record<string, string> = { reason: 'end_reason', runs: 'runs', duration_ms: 'duration_ms' };
export const RUN_START_ATTRS: Record<string, string> = {
  trigger: 'trigger',
  'gen_ai.request.model': 'gen_ai.request.model',
  'gen_ai.usage.input_tokens': 'gen_ai.usage.input_tokens',
  'gen_ai.usage.output_tokens': 'gen_ai.usage.output_tokens',
};
export const TOOL_END_ATTRS: Record<string, string> = {
  'error.type': 'error.type',
  'error.message': 'error.message',
  by: 'denied_by',
  rule: 'rule',
  status: 'status',
  duration_ms: 'duration_ms',
};
export const ANSWER_ATTRS: Record<string, string> = { 'answer.option': 'answer.option', via: 'via', by: 'answered_by' };
export const TIMEOUT_ATTRS: Record<string, string> = { after_ms: 'after_ms' };
export const RESOLVED_ATTRS: Record<string, string> = { latency_ms: 'latency_ms' };
export const RUN_END_ATTRS: Record<string, string> = {
  'gen_ai.usage.input_tokens': 'gen_ai.usage.input_tokens',
  'gen_ai.usage.output_tokens': 'gen_ai.usage.output_tokens',
  duration_ms: 'duration_ms',
  reason: 'reason',
  'error.type': 'error.type',
  by: 'by',
  'cost.total': 'cost.total',
  'cost.currency': 'cost.currency',
};
export type Obj = Record<string, any>;
export const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

const compiled = new WeakMap<Record<string, string>, [string[], string][]>();

/** Copy scalar members (dotted paths into `data`; `gen_ai.*` names are flat keys) that survived the ceiling. */
export function copy(into: Record<string, Scalar>, data: Obj, paths: Record<string, string>): void {
  let list = compiled.get(paths);
  if (!list) compiled.set(paths, (list = Object.entries(paths).map(([p, name]) => [p.startsWith('gen_ai.') ? [p] : p.split('.'), name])));
  for (const [parts, name] of list) {
    let v: any = data;
    for (const p of parts) v = v?.[p];
    if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') into[name] = v;
  }
}
