// `hookmap replay`'s plan: a captured session re-emitted as a NEW session
// (a re-emitter cannot carry a foreign emitter's (epoch, seq) forward,
// AEP-0001 §7): fresh session id and event ids, one fresh epoch, contiguous
// seq from 0, restamped times that keep the recorded pacing (scaled, dead
// air capped); `cause` and id-valued `subject`s rewritten through the id
// map so causal chains and attention lifecycles still resolve; provenance in
// extension attributes (AEP-0001 §5.4); commands never replayed (a replay
// must not drive a live target, AEP-0004).
import { ulid } from 'ulid';
import { isCommand } from '../../runtime/relay/core.ts';
import type { AepEvent } from './projection/common.ts';
import { sortSession } from './timeline.ts';

export interface ReplayOptions {
  /** Time scale: 2 = twice as fast; 0 = no pacing (every event due at once). */
  speed?: number;
  /** Longest pause kept between two events, ms (before scaling). */
  maxGapMs?: number;
  now?: number;
}

export interface ReplayGroup {
  from: { source: string; session: string };
  session: string;
  events: AepEvent[];
}
export interface ReplayPlan {
  replayId: string;
  groups: ReplayGroup[];
  /** every event with its due time (ms from start), interleaved by recorded time */ schedule: { at: number; ev: AepEvent }[];
  skipped: { commands: number; agentScoped: number; unsequenced: number };
}

export function planReplay(events: AepEvent[], o: ReplayOptions = {}): ReplayPlan {
  const replayId = ulid();
  const skipped = { commands: 0, agentScoped: 0, unsequenced: 0 };
  const groups = new Map<string, AepEvent[]>();
  for (const ev of events) {
    if (isCommand(ev.type)) {
      skipped.commands++;
      continue;
    }
    if (ev.session === undefined) {
      skipped.agentScoped++;
      continue;
    }
    if (typeof ev.seq !== 'number') {
      skipped.unsequenced++;
      continue;
    } // a foreign emitter's event (attention.routed): not the session's to re-emit
    const i = ev.source.indexOf('/session/');
    const key = `${i >= 0 ? ev.source.slice(0, i) : ev.source}\u0000${ev.session}`;
    const l = groups.get(key) ?? [];
    l.push(ev);
    groups.set(key, l);
  }
  const speed = o.speed ?? 1;
  const maxGap = o.maxGapMs ?? 2_000;
  const base = o.now ?? Date.now();
  const out: ReplayGroup[] = [];
  const timed: { t: number; g: number; i: number; ev: AepEvent }[] = [];
  [...groups.values()].forEach((list, g) => {
    const sorted = sortSession(list);
    const oldSession = sorted[0].session!;
    const session = `replay-${ulid().toLowerCase()}`;
    const ids = new Map<string, string>();
    for (const ev of sorted) ids.set(ev.id, ulid());
    const rewritten = sorted.map((ev, seq) => {
      const n: AepEvent = { ...ev, id: ids.get(ev.id)!, session, seq, epoch: 0, source: rewriteSource(ev.source, oldSession, session) };
      if (ev.cause !== undefined) n.cause = ids.get(ev.cause) ?? ev.cause;
      if (ev.subject !== undefined && ids.has(ev.subject)) n.subject = ids.get(ev.subject)!;
      n.aepreplayof = ev.id;
      n.aepreplayid = replayId;
      n.aepreplaytime = ev.time;
      return n;
    });
    out.push({ from: { source: sorted[0].source, session: oldSession }, session, events: rewritten });
    rewritten.forEach((ev, i) => timed.push({ t: Date.parse(sorted[i].time), g, i, ev }));
  });
  // interleave groups by recorded time (a merge: each group keeps its own (epoch, seq) order)
  const heads = out.map(() => 0);
  const byGroup = out.map((_, g) => timed.filter((x) => x.g === g));
  const schedule: { at: number; ev: AepEvent }[] = [];
  let at = 0;
  let prevT: number | undefined;
  for (;;) {
    let pick = -1;
    for (let g = 0; g < byGroup.length; g++) {
      const x = byGroup[g][heads[g]];
      if (x && (pick < 0 || x.t < byGroup[pick][heads[pick]].t)) pick = g;
    }
    if (pick < 0) break;
    const x = byGroup[pick][heads[pick]++];
    const t = Number.isFinite(x.t) ? Math.max(x.t, prevT ?? x.t) : (prevT ?? 0);
    if (prevT !== undefined) at += speed > 0 ? Math.min(t - prevT, maxGap) / speed : 0;
    prevT = t;
    x.ev.time = new Date(base + Math.round(at)).toISOString();
    schedule.push({ at, ev: x.ev });
  }
  return { replayId, groups: out, schedule, skipped };
}

function rewriteSource(source: string, oldSession: string, session: string): string {
  const tail = `/session/${encodeURIComponent(oldSession)}`;
  if (source.endsWith(tail)) return source.slice(0, -tail.length) + `/session/${session}`;
  const raw = `/session/${oldSession}`;
  if (source.endsWith(raw)) return source.slice(0, -raw.length) + `/session/${session}`;
  return source;
}
