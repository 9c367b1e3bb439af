// One logged event as the history indexes it: its envelope columns, the
// text full-text search sees (every string of its data as logged, digests
// and ids left out: what the capture ceiling kept out of the log cannot be
// found), its session state and its token usage.
import { pauseOf } from '../../core/kernel/limits.ts';
import { PROJECT_ATTR } from '../../core/capture/project.ts';
import { IMPORTED_ATTR } from '../../runtime/usage/imported.ts';
import { usageOf, type UsageRow } from '../../runtime/usage/usage-of.ts';

export type { UsageRow } from '../../runtime/usage/usage-of.ts';
import { isQueryAnswer } from '../../core/kernel/event.ts';
import { TYPE } from '../../core/kernel/lifecycle.ts';

export interface IndexedEvent {
  id: string;
  agent: string;
  session?: string;
  run?: string;
  type: string;
  time: string;
  subject?: string;
  project?: string;
  /** `imported`: an event `hookmap history import` made from the agent's own files (engine/person/history/import.ts). */
  state: 'active' | 'waiting' | 'paused' | 'retrying' | 'imported';
  text: string;
  usage?: UsageRow;
  line: string;
}

const MAX_TEXT = 64 * 1024;

function strings(v: unknown, out: string[], key = ''): void {
  if (typeof v === 'string') {
    if (!key.endsWith('_digest') && key !== 'call_id' && key !== 'id') out.push(v);
  } else if (Array.isArray(v)) for (const x of v) strings(x, out, key);
  else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) strings(x, out, k);
}

/** The text full-text search sees in an event: its subject and every string of its data (digests and ids aside). */
export function textOf(ev: Record<string, unknown>): string {
  const text: string[] = [];
  if (typeof ev.subject === 'string') text.push(ev.subject);
  if (ev.data && typeof ev.data === 'object') strings(ev.data, text);
  return text.join('\n').slice(0, MAX_TEXT);
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
  if (isQueryAnswer(ev as { type: string; data?: unknown })) return undefined;
  const data = ev.data && typeof ev.data === 'object' ? (ev.data as Record<string, unknown>) : {};
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
    state: ev[IMPORTED_ATTR] === true ? 'imported' : ev.type === TYPE.attentionRequested ? 'waiting' : (limitState(ev.type, ev.time, data) ?? 'active'),
    text: textOf(ev),
    usage: usageOf(ev.type, data),
    line,
  };
}

/**
 * A limit's state (kernel/limits.ts): `paused`, the agent stopped (the store keeps it until the session's next run);
 * `retrying`, the agent waits and retries by itself (its next event ends it).
 */
function limitState(type: string, time: string, data: Record<string, unknown>): 'paused' | 'retrying' | undefined {
  const p = pauseOf({ type, time, data });
  return p ? (p.agentRetries ? 'retrying' : 'paused') : undefined;
}
