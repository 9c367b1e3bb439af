// `hookmap timeline`'s rendering: one session as a tree of runs, tool calls
// and attention waits (the same structure the OTLP trace projection uses,
// engine/person/bridge/structure.ts), or with --dag as the tree of `cause` links
// (AEP-0001 §5.1): every event under the event it names as its cause.
// A node no terminal event closed says what the rest of the stream tells
// about it, as the kernel's one fold reads it (engine/core/kernel/fold/; in words:
// call-outcome.ts, "denied by owner", "no outcome reported"), never
// "unterminated"; the session carries its project label
// (session-label.ts); vendor `x.*` rows and the answer rows an attention
// line already states are shown only with `verbose`.
import type { StoryFold } from '../../core/kernel/fold/index.ts';
import { requestWords, unreportedCall } from './call-outcome.ts';
import type { AepEvent } from './projection/common.ts';
import { isAnswer, opens } from '../../core/kernel/lifecycle.ts';
import { sessionLabel } from './session-label.ts';
import { SessionTracker, type SessionNode } from './structure.ts';
import { isQueryAnswer } from '../../core/kernel/event.ts';

/** (epoch, seq) order within a session; events without seq keep their time order after. */
export function sortSession(events: AepEvent[]): AepEvent[] {
  return [...events].sort(
    (a, b) => (a.epoch ?? 0) - (b.epoch ?? 0) || (a.seq ?? Infinity) - (b.seq ?? Infinity) || (a.time < b.time ? -1 : a.time > b.time ? 1 : 0),
  );
}

/** The session's nodes and the fold they were read from; each tool and attention node says its fate (the fold's). */
export function sessionStory(events: AepEvent[]): { nodes: SessionNode[]; fold: StoryFold<AepEvent> } {
  const nodes: SessionNode[] = [];
  const t = new SessionTracker((n, st) => nodes.push(t.withFate(n, st)), { maxEventsPerNode: 1000 });
  for (const ev of sortSession(events)) if (!isQueryAnswer(ev)) t.add(ev); // a query's answer is for who asked, not the story
  t.closeAll('end-of-input');
  return { nodes, fold: t.fold };
}

export function sessionNodes(events: AepEvent[]): SessionNode[] {
  return sessionStory(events).nodes;
}

const clock = (t: string) => (t.length >= 23 ? t.slice(11, 23) : t.slice(11, 19));

/** A span as people say it: `42 ms`, `6.7 s`, `2 min`, `1 min 5 s`, `1 h 3 min` (no `0 s`, no `1m00s`). */
export function duration(a: string, b: string): string {
  const ms = Date.parse(b) - Date.parse(a);
  if (!Number.isFinite(ms)) return '?';
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.round(ms / 1000);
  if (s < 3600) return s % 60 ? `${Math.floor(s / 60)} min ${s % 60} s` : `${s / 60} min`;
  const m = Math.round(s / 60);
  return m % 60 ? `${Math.floor(m / 60)} h ${m % 60} min` : `${m / 60} h`;
}

/** What the tree needs beyond the nodes: the fold (each call's and request's story), the session's first event, its label. */
interface Context {
  fold: StoryFold<AepEvent>;
  at: AepEvent;
  label?: string;
}

function describeNode(n: SessionNode, cx: Context): string {
  const a = n.attrs;
  const open = n.closedBy === 'end-of-input';
  const span = open ? `${clock(n.start)} → (open)` : `${clock(n.start)} → ${clock(n.end!)} (${duration(n.start, n.end!)})`;
  const bits: string[] = [];
  // no terminal event came: say what the rest of the stream tells, not "unterminated"
  if (n.closedBy && !open)
    bits.push(
      n.kind === 'tool' ? unreportedCall(cx.fold.call({ source: cx.at.source, session: n.session }, n.key.slice('tool:'.length))) : 'no outcome reported',
    );
  else if (!open && n.outcome) bits.push(n.outcome);
  switch (n.kind) {
    case 'session':
      return `session ${n.session}  ${n.agent}${cx.label ? `  ${cx.label}` : ''}  ${span}  ${bits.join(' ')}`.trimEnd();
    case 'run': {
      if (a['gen_ai.usage.input_tokens'] !== undefined) bits.push(`tokens in ${a['gen_ai.usage.input_tokens']} out ${a['gen_ai.usage.output_tokens'] ?? '?'}`);
      if (a['error.type']) bits.push(String(a['error.type']));
      return `run ${n.label}  ${span}  ${bits.join(' ')}`.trimEnd();
    }
    case 'tool': {
      if (a.denied_by && !n.closedBy) bits.push(`by ${a.denied_by}`);
      if (a['error.type'] && n.outcome === 'failed') bits.push(String(a['error.type']));
      return `tool ${n.label}${a.call_id ? ` ${a.call_id}` : ''}  ${span}  ${bits.join(' ')}`.trimEnd();
    }
    case 'attention': {
      const words = requestWords(cx.fold.request({ source: cx.at.source, session: n.session }, String(a.id)));
      if (words) bits.push(`→ ${words}`);
      return `attention ${n.label}${a.subject ? ` (${a.subject})` : ''}  ${span}  ${bits.join(' ')}`.trimEnd();
    }
  }
}

/** A row a person gains nothing from: a vendor extension event (steering's outcome aside), an answer its attention line states. */
const folded = (name: string) => (name.startsWith('x.') && !/\.instruction\.(delivered|dropped)$/.test(name)) || isAnswer(name);

/** The structural tree, one line per node (and per other event, marked ·); `verbose` keeps every row. */
export function renderTree(events: AepEvent[], opts: { verbose?: boolean } = {}): string[] {
  const { nodes, fold } = sessionStory(events);
  const byParent = new Map<string | undefined, SessionNode[]>();
  for (const n of nodes) {
    const list = byParent.get(n.parent) ?? [];
    list.push(n);
    byParent.set(n.parent, list);
  }
  for (const list of byParent.values()) list.sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : 0));
  const started = events.find((e) => opens(e.type) === 'session');
  if (!events.length) return [];
  const cx: Context = { fold, at: events[0], label: started && sessionLabel(started) };
  const hidden = new Map<string, number>();
  const out: string[] = [];
  const walk = (n: SessionNode, prefix: string, last: boolean, root: boolean) => {
    out.push(root ? describeNode(n, cx) : `${prefix}${last ? '└─ ' : '├─ '}${describeNode(n, cx)}`);
    const childPrefix = root ? '' : `${prefix}${last ? '   ' : '│  '}`;
    type Item = { t: string; node?: SessionNode; line?: string };
    const shown = opts.verbose ? n.events : n.events.filter((e) => !folded(e.name));
    if (!opts.verbose) for (const e of n.events) if (folded(e.name) && e.name.startsWith('x.')) hidden.set(e.name, (hidden.get(e.name) ?? 0) + 1);
    const items: Item[] = [
      ...(byParent.get(n.key) ?? []).map((c) => ({ t: c.start, node: c })),
      ...shown.map((e) => ({ t: e.time, line: `· ${clock(e.time)} ${e.name}${e.attrs['aep.subject'] ? ` ${e.attrs['aep.subject']}` : ''}` })),
    ].sort((x, y) => (x.t < y.t ? -1 : x.t > y.t ? 1 : 0));
    items.forEach((it, i) => {
      const isLast = i === items.length - 1;
      if (it.node) walk(it.node, childPrefix, isLast, false);
      else out.push(`${childPrefix}${isLast ? '└─ ' : '├─ '}${it.line}`);
    });
    if (n.droppedEvents) out.push(`${childPrefix}   (${n.droppedEvents} more events)`);
  };
  for (const root of byParent.get(undefined) ?? []) walk(root, '', true, true);
  if (hidden.size) out.push(`(not shown: ${[...hidden].map(([name, k]) => (k > 1 ? `${k} × ${name}` : name)).join(', ')}; --verbose shows every event)`);
  return out;
}

/** The causal tree: an event with no resolvable `cause` is a root. */
export function renderDag(events: AepEvent[]): string[] {
  const sorted = sortSession(events);
  const ids = new Set(sorted.map((e) => e.id));
  const children = new Map<string, AepEvent[]>();
  const roots: AepEvent[] = [];
  for (const e of sorted) {
    if (e.cause && ids.has(e.cause) && e.cause !== e.id) {
      const l = children.get(e.cause) ?? [];
      l.push(e);
      children.set(e.cause, l);
    } else roots.push(e);
  }
  const out: string[] = [];
  const seen = new Set<string>();
  const line = (e: AepEvent) =>
    `${clock(e.time)} ${e.type}${e.subject ? ` ${e.subject}` : ''}${e.run ? `  run ${e.run}` : ''}${e.seq !== undefined ? `  #${e.seq}` : ''}`;
  const walk = (e: AepEvent, prefix: string, last: boolean, root: boolean) => {
    if (seen.has(e.id)) return;
    seen.add(e.id);
    out.push(root ? line(e) : `${prefix}${last ? '└─ ' : '├─ '}${line(e)}`);
    const kids = children.get(e.id) ?? [];
    const p = root ? '' : `${prefix}${last ? '   ' : '│  '}`;
    kids.forEach((k, i) => walk(k, p, i === kids.length - 1, false));
  };
  for (const r of roots) walk(r, '', true, true);
  return out;
}
