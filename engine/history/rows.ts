// One logged event as the history indexes it: its envelope columns, the
// text full-text search sees (every string of its data as logged, digests
// and ids left out: what the capture ceiling kept out of the log cannot be
// found), its session state and its token usage.
import { PROJECT_ATTR } from '../capture/project.ts';
import { IMPORTED_ATTR } from '../usage/imported.ts';
import { forControlOnly } from '../relay/subscription.ts';

export interface UsageRow {
  model?: string;
  input: number;
  output: number;
  cache_read: number;
  cache_write: number;
  reasoning: number;
  cost?: number;
}

export interface IndexedEvent {
  id: string;
  agent: string;
  session?: string;
  run?: string;
  type: string;
  time: string;
  subject?: string;
  project?: string;
  /** `imported`: an event `hookmap history import` made from the agent's own files (engine/history/import.ts). */
  state: 'active' | 'waiting' | 'imported';
  text: string;
  usage?: UsageRow;
  line: string;
}

/** Events whose usage is a snapshot of the context (not tokens spent by this event): not summed. */
const NOT_SPENT = new Set(['run.started', 'session.compacted']);
const MAX_TEXT = 64 * 1024;

function strings(v: unknown, out: string[], key = ''): void {
  if (typeof v === 'string') {
    if (!key.endsWith('_digest') && key !== 'call_id' && key !== 'id') out.push(v);
  } else if (Array.isArray(v)) for (const x of v) strings(x, out, key);
  else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) strings(x, out, k);
}

const int = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? Math.floor(v) : 0);

/** The tokens an event says were spent (a snapshot of the context is not), with its model and its USD cost when it carries one. */
export function usageOf(type: string, data: Record<string, unknown>): UsageRow | undefined {
  if (NOT_SPENT.has(type)) return undefined;
  if (data['gen_ai.usage.input_tokens'] === undefined && data['gen_ai.usage.output_tokens'] === undefined) return undefined;
  const cost = data.cost as { currency?: string; total?: number } | undefined;
  const model = data['gen_ai.response.model'] ?? data['gen_ai.request.model'];
  return {
    model: typeof model === 'string' ? model : undefined,
    input: int(data['gen_ai.usage.input_tokens']),
    output: int(data['gen_ai.usage.output_tokens']),
    cache_read: int(data['gen_ai.usage.cache_read.input_tokens']),
    cache_write: int(data['gen_ai.usage.cache_creation.input_tokens']),
    reasoning: int(data['gen_ai.usage.reasoning.output_tokens']),
    cost: cost?.currency === 'USD' && typeof cost.total === 'number' ? cost.total : undefined,
  };
}

/** The row of one log line, or undefined when it is not an AEP event. */
export function indexedEvent(line: string, agentOfFolder: string): IndexedEvent | undefined {
  let ev: Record<string, unknown>;
  try {
    ev = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  if (!ev || typeof ev.id !== 'string' || typeof ev.type !== 'string' || typeof ev.time !== 'string') return undefined;
  // a control query's answer (its daemon logs it) is for the one who asked: never searchable by a reader of the history
  if (forControlOnly(ev as { type: string; data?: unknown })) return undefined;
  const data = ev.data && typeof ev.data === 'object' ? (ev.data as Record<string, unknown>) : {};
  const text: string[] = [];
  if (typeof ev.subject === 'string') text.push(ev.subject);
  strings(data, text);
  const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
  return {
    id: ev.id,
    agent: str(ev.agent) ?? agentOfFolder,
    session: str(ev.session),
    run: str(ev.run),
    type: ev.type,
    time: ev.time,
    subject: str(ev.subject),
    project: str(ev[PROJECT_ATTR]),
    state: ev[IMPORTED_ATTR] === true ? 'imported' : ev.type === 'attention.requested' ? 'waiting' : 'active',
    text: text.join('\n').slice(0, MAX_TEXT),
    usage: usageOf(ev.type, data),
    line,
  };
}
