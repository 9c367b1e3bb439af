// What the relay holds, read the way the CLI needs it: one replay of its
// buffer (`from: all`, `live: 0`, an attr-match filter; AEP-0003 §3.3), the
// sessions it knows (for id prefixes) and an attention request's fate (what
// settled it, if anything did: the kernel fold's reading, engine/core/kernel/fold/),
// so commands can say so before they send.
import { authHeaders, readSse, sseJson } from '../../runtime/relay/client-sse.ts';
import type { AepEvent } from '../../runtime/relay/store.ts';
import { sessionLabel } from '../../person/bridge/session-label.ts';
import { requestFate, StoryFold } from '../../core/kernel/fold/index.ts';
import { ATTENTION_FOLLOWERS, opens, SESSION_TERMINALS, UNITS } from '../../core/kernel/lifecycle.ts';
import type { Endpoint } from './command-common.ts';

/** Every held event matching `filter` (deduplicated by source and id), in the relay's order. */
export async function replayHeld(ep: Endpoint, filter: Record<string, unknown>, onEvent: (ev: AepEvent) => boolean | void): Promise<void> {
  const u = new URL(`${ep.url.replace(/\/+$/, '')}/events`);
  u.searchParams.set('from', 'all');
  u.searchParams.set('live', '0');
  u.searchParams.set('filter', JSON.stringify(filter));
  const seen = new Set<string>();
  await readSse(
    u.toString(),
    authHeaders(ep.token),
    (m) => {
      const ev = sseJson<AepEvent>(m);
      if (!ev) return;
      const k = `${ev.source}\u0000${ev.id}`;
      if (seen.has(k)) return;
      seen.add(k);
      return onEvent(ev);
    },
    AbortSignal.timeout(30_000),
  );
}

export interface KnownSession {
  id: string;
  agent: string;
  label?: string;
  first: string;
}

/** The sessions in a list of events: agent, project label, first event's time. */
export function sessionsOf(events: Iterable<AepEvent>): Map<string, KnownSession> {
  const out = new Map<string, KnownSession>();
  for (const ev of events) {
    if (typeof ev.session !== 'string') continue;
    let s = out.get(ev.session);
    if (!s) out.set(ev.session, (s = { id: ev.session, agent: ev.agent, first: ev.time }));
    if (ev.time < s.first) s.first = ev.time;
    if (opens(ev.type) === 'session') s.label ??= sessionLabel(ev);
  }
  return out;
}

/** The sessions the relay holds, as the inbox lists them (their lifecycle, run and attention events). */
export async function heldSessions(ep: Endpoint): Promise<Map<string, KnownSession>> {
  const events: AepEvent[] = [];
  await replayHeld(ep, { type: ['session.*', 'run.*', 'attention.*'] }, (ev) => void events.push(ev));
  return sessionsOf(events);
}

/** Every attention request the relay holds, by id. */
export async function heldRequests(ep: Endpoint): Promise<Map<string, AepEvent>> {
  const out = new Map<string, AepEvent>();
  await replayHeld(ep, { type: [...UNITS.attention.opens] }, (ev) => void out.set(ev.id, ev));
  return out;
}

/** What settled a request, from its session's held events; undefined while it is still open. */
export interface Fate {
  /** answered | closed | timed-out */
  kind: 'answered' | 'closed' | 'timed-out';
  /** In words: "already answered by owner (deny: \"...\")", "timed out at 09:14:32 (...)". */
  why: string;
}

export async function fateOf(ep: Endpoint, request: AepEvent): Promise<Fate | undefined> {
  // the one fold (engine/core/kernel/fold/): the request, then what followed it in its session
  const fold = new StoryFold<AepEvent>();
  if (typeof request.type === 'string' && typeof request.source === 'string') fold.add(request);
  await replayHeld(ep, { session: request.session, type: [...ATTENTION_FOLLOWERS, ...SESSION_TERMINALS] }, (ev) => void fold.add(ev));
  return describeFate(fold, request);
}

const clock = (t: string | undefined) => (typeof t === 'string' && t.length >= 19 ? t.slice(11, 19) : '?');

/** A request's fate in words, as the fold read it: its terminal, its answer, its session's end. */
export function describeFate(fold: StoryFold<AepEvent>, request: { id: string; session?: string }): Fate | undefined {
  const q = [...fold.allRequests()].find((r) => r.id === request.id);
  const ended = [...fold.sessions.values()].find((s) => s.session === request.session)?.ended;
  const fate = q ? requestFate(q) : 'open';
  if (q?.timeout) return { kind: 'timed-out', why: `timed out at ${clock(q.timeout.time)} (nobody answered; the agent's own dialog decided)` };
  const terminal = q?.resolved;
  const resolution = terminal?.data?.resolution;
  const answered = q?.answered;
  if (fate === 'answered' || fate === 'refused') {
    const d = (answered?.data ?? {}) as { answer?: { option?: string; text?: string; values?: unknown }; by?: string; via?: string };
    const what = [
      d.answer?.option,
      typeof d.answer?.text === 'string' ? JSON.stringify(d.answer.text) : undefined,
      d.answer?.values !== undefined ? 'form values' : undefined,
    ]
      .filter(Boolean)
      .join(': ');
    const who = d.by ? ` by ${d.by}` : d.via === 'oob' ? ' out of band (in the agent itself)' : '';
    return { kind: 'answered', why: `already answered${who}${what ? ` (${what})` : ''} at ${clock(answered?.time ?? terminal?.time)}` };
  }
  if (fate === 'dismissed') return { kind: 'closed', why: `already closed at ${clock(terminal!.time)} (dismissed: the agent moved on without an answer)` };
  if (terminal) return { kind: 'closed', why: `already closed at ${clock(terminal.time)} (${String(resolution ?? 'resolved')})` };
  if (ended) return { kind: 'closed', why: `closed: its session ended at ${clock(ended.time)} without an answer` };
  return undefined;
}
