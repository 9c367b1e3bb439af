// `hookmap timeline`'s rendering: one session as a tree of runs, tool calls
// and attention waits (the same structure the OTLP trace projection uses,
// engine/bridge/structure.ts), or with --dag as the tree of `cause` links
// (AEP-0001 §5.1): every event under the event it names as its cause.
import type { AepEvent } from './projection/common.ts';
import { SessionTracker, type SessionNode } from './structure.ts';

/** (epoch, seq) order within a session; events without seq keep their time order after. */
export function sortSession(events: AepEvent[]): AepEvent[] {
  return [...events].sort((a, b) => (a.epoch ?? 0) - (b.epoch ?? 0) || (a.seq ?? Infinity) - (b.seq ?? Infinity) || (a.time < b.time ? -1 : a.time > b.time ? 1 : 0));
}

export function sessionNodes(events: AepEvent[]): SessionNode[] {
  const nodes: SessionNode[] = [];
  const t = new SessionTracker((n) => nodes.push(n), { maxEventsPerNode: 1000 });
  for (const ev of sortSession(events)) t.add(ev);
  t.closeAll('end-of-input');
  return nodes;
}

const clock = (t: string) => (t.length >= 23 ? t.slice(11, 23) : t.slice(11, 19));

export function duration(a: string, b: string): string {
  const ms = Date.parse(b) - Date.parse(a);
  if (!Number.isFinite(ms)) return '?';
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const m = Math.floor(ms / 60_000);
  return `${m}m${String(Math.round((ms % 60_000) / 1000)).padStart(2, '0')}s`;
}

function describeNode(n: SessionNode): string {
  const a = n.attrs;
  const open = n.closedBy === 'end-of-input';
  const span = open ? `${clock(n.start)} → (open)` : `${clock(n.start)} → ${clock(n.end!)} (${duration(n.start, n.end!)})`;
  const bits: string[] = [];
  if (!open && n.outcome) bits.push(n.outcome);
  if (n.closedBy && !open) bits.push(`[no terminal event: closed by ${n.closedBy}]`);
  switch (n.kind) {
    case 'session':
      return `session ${n.session}  ${n.agent}  ${span}  ${bits.join(' ')}`.trimEnd();
    case 'run': {
      if (a['gen_ai.usage.input_tokens'] !== undefined) bits.push(`tokens in ${a['gen_ai.usage.input_tokens']} out ${a['gen_ai.usage.output_tokens'] ?? '?'}`);
      if (a['error.type']) bits.push(String(a['error.type']));
      return `run ${n.label}  ${span}  ${bits.join(' ')}`.trimEnd();
    }
    case 'tool': {
      if (a.denied_by) bits.push(`by ${a.denied_by}`);
      if (a['error.type'] && n.outcome === 'failed') bits.push(String(a['error.type']));
      return `tool ${n.label}${a.call_id ? ` ${a.call_id}` : ''}  ${span}  ${bits.join(' ')}`.trimEnd();
    }
    case 'attention': {
      if (a['answer.option']) bits.push(`→ ${a['answer.option']}`);
      return `attention ${n.label}${a.subject ? ` (${a.subject})` : ''}  ${span}  ${bits.join(' ')}`.trimEnd();
    }
  }
}

/** The structural tree, one line per node (and per other event, marked ·). */
export function renderTree(events: AepEvent[]): string[] {
  const nodes = sessionNodes(events);
  const byParent = new Map<string | undefined, SessionNode[]>();
  for (const n of nodes) {
    const list = byParent.get(n.parent) ?? [];
    list.push(n);
    byParent.set(n.parent, list);
  }
  for (const list of byParent.values()) list.sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : 0));
  const out: string[] = [];
  const walk = (n: SessionNode, prefix: string, last: boolean, root: boolean) => {
    out.push(root ? describeNode(n) : `${prefix}${last ? '└─ ' : '├─ '}${describeNode(n)}`);
    const childPrefix = root ? '' : `${prefix}${last ? '   ' : '│  '}`;
    type Item = { t: string; node?: SessionNode; line?: string };
    const items: Item[] = [
      ...(byParent.get(n.key) ?? []).map((c) => ({ t: c.start, node: c })),
      ...n.events.map((e) => ({ t: e.time, line: `· ${clock(e.time)} ${e.name}${e.attrs['aep.subject'] ? ` ${e.attrs['aep.subject']}` : ''}` })),
    ].sort((x, y) => (x.t < y.t ? -1 : x.t > y.t ? 1 : 0));
    items.forEach((it, i) => {
      const isLast = i === items.length - 1;
      if (it.node) walk(it.node, childPrefix, isLast, false);
      else out.push(`${childPrefix}${isLast ? '└─ ' : '├─ '}${it.line}`);
    });
    if (n.droppedEvents) out.push(`${childPrefix}   (${n.droppedEvents} more events)`);
  };
  for (const root of byParent.get(undefined) ?? []) walk(root, '', true, true);
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
  const line = (e: AepEvent) => `${clock(e.time)} ${e.type}${e.subject ? ` ${e.subject}` : ''}${e.run ? `  run ${e.run}` : ''}${e.seq !== undefined ? `  #${e.seq}` : ''}`;
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
