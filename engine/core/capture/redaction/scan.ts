// Runs rules over a text and resolves their matches in AEP-0003 §9.4 order:
// (a) secrets and (b) configured names first (overlapping secret spans are
// united, so no part of either leaks), then (c) home paths and (d) PII,
// each dropped where it overlaps what an earlier stage already replaced
// (the earlier replacement would have destroyed it).
import type { Match, Rule } from './types.ts';

const CLASS: Record<Match['stage'], number> = { secret: 0, name: 0, home: 1, pii: 2 };

interface Plan {
  always: Rule[];
  anchored: { rule: Rule; at: RegExp }[];
  any?: RegExp;
}
const plans = new WeakMap<readonly Rule[], Plan>();
/** Past this many anchor hits the prefilter stops deciding and every rule runs (bounded work either way). */
const MAX_ANCHOR_HITS = 256;

function planOf(rules: readonly Rule[]): Plan {
  let p = plans.get(rules);
  if (p) return p;
  const anchored = rules.filter((r) => r.anchor).map((rule) => ({ rule, at: new RegExp(`(?:${rule.anchor})`, 'y') }));
  p = {
    always: rules.filter((r) => !r.anchor),
    anchored,
    any: anchored.length ? new RegExp(anchored.map((a) => `(?:${a.rule.anchor})`).join('|'), 'g') : undefined,
  };
  plans.set(rules, p);
  return p;
}

/** Every rule's matches. Anchored rules run only when one pass over the text finds their anchor (Rule.anchor). */
export function findAll(text: string, rules: readonly Rule[]): Match[] {
  const out: Match[] = [];
  const plan = planOf(rules);
  for (const r of plan.always) r.find(text, out);
  if (!plan.any) return out;
  const present = new Set<Rule>();
  const re = plan.any;
  re.lastIndex = 0;
  let hits = 0;
  let m: RegExpExecArray | null;
  while (present.size < plan.anchored.length && (m = re.exec(text))) {
    if (++hits > MAX_ANCHOR_HITS) {
      for (const a of plan.anchored) present.add(a.rule);
      break;
    }
    for (const a of plan.anchored) {
      if (present.has(a.rule)) continue;
      a.at.lastIndex = m.index;
      if (a.at.test(text)) present.add(a.rule);
    }
    re.lastIndex = m.index + 1;
  }
  for (const a of plan.anchored) if (present.has(a.rule)) a.rule.find(text, out);
  return out;
}

function overlaps(sorted: Match[], m: Match): boolean {
  // the first accepted span ending after m.start
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid].end <= m.start) lo = mid + 1;
    else hi = mid;
  }
  return lo < sorted.length && sorted[lo].start < m.end;
}

/** Non-overlapping matches, sorted by start. */
export function resolve(all: Match[]): Match[] {
  const ms = all.filter((m) => m.end > m.start);
  if (ms.length <= 1) return ms;
  let accepted: Match[] = [];
  for (let cls = 0; cls <= 2; cls++) {
    const group = ms.filter((m) => CLASS[m.stage] === cls).sort((a, b) => a.start - b.start || b.end - a.end);
    if (!group.length) continue;
    const merged: Match[] = [];
    for (const m of group) {
      const last = merged[merged.length - 1];
      if (last && m.start < last.end) {
        if (m.end > last.end) {
          last.end = m.end;
          last.cont = m.cont;
        }
        if (m.ctx < last.ctx) last.ctx = m.ctx;
        if (m.stage === 'secret') last.stage = 'secret';
      } else merged.push({ ...m });
    }
    const keep = accepted.length ? merged.filter((m) => !overlaps(accepted, m)) : merged;
    accepted = accepted.concat(keep).sort((a, b) => a.start - b.start);
  }
  return accepted;
}

/** The text with every resolved match replaced, from `from` to `to` (matches cut at `from` are replaced from there). */
export function apply(text: string, resolved: readonly Match[], from = 0, to = text.length): string {
  let out = '';
  let at = from;
  for (const m of resolved) {
    if (m.end <= from) continue;
    if (m.start >= to) break;
    const s = Math.max(m.start, from);
    if (s > at) out += text.slice(at, s);
    if (s >= at) out += m.rep;
    at = Math.max(at, Math.min(m.end, to));
  }
  if (at < to) out += text.slice(at, to);
  return out;
}

const MARK = '[REDACTED:';

/**
 * Text already redacted stays as it is (idempotence): a match that starts or
 * ends inside a `[REDACTED:...]` placeholder is trimmed to outside it, and
 * dropped when nothing but placeholders and punctuation is left.
 */
export function guardPlaceholders(text: string, ms: Match[]): Match[] {
  if (!ms.length || !text.includes(MARK)) return ms;
  const marks: [number, number][] = [];
  for (let i = text.indexOf(MARK); i >= 0; i = text.indexOf(MARK, i + 1)) {
    const close = text.indexOf(']', i);
    if (close < 0 || close - i > 32) continue;
    marks.push([i, close + 1]);
  }
  if (!marks.length) return ms;
  // marks are sorted: the first mark ending after p
  const firstEndingAfter = (p: number) => {
    let lo = 0;
    let hi = marks.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (marks[mid][1] <= p) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  const out: Match[] = [];
  for (const m of ms) {
    let { start, end } = m;
    let k = firstEndingAfter(start);
    if (k < marks.length && marks[k][0] < start) start = marks[k][1];
    const j = firstEndingAfter(end);
    if (j < marks.length && marks[j][0] < end && end < marks[j][1]) end = marks[j][0];
    if (end <= start) continue;
    // anything but placeholders and punctuation left?
    let real = false;
    for (let p = start; p < end && !real;) {
      k = firstEndingAfter(p);
      const next = k < marks.length && marks[k][0] < end ? marks[k] : undefined;
      const stop = next ? Math.max(p, next[0]) : end;
      if (/[A-Za-z0-9]/.test(text.slice(p, stop))) real = true;
      p = next ? Math.max(next[1], p + 1) : end;
    }
    if (!real) continue;
    out.push(start === m.start && end === m.end ? m : { ...m, start, end });
  }
  return out;
}
