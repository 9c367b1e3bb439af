// Redaction across fragment boundaries (AEP-0007 §6 "Redaction across delta
// boundaries"; issue 10): a per-stream redactor that holds back a bounded
// tail of not-yet-emitted text until no rule can match across the boundary.
//
//   push(chunk) -> the text that is now safe to emit (redacted)
//   flush()     -> the rest, at the end of the stream
//
// Invariants: every rule needs at most `hold` characters of context + span
// before it can recognise a match (Rule.window), so text more than `hold`
// characters from the end is final unless a match straddles the cut; then
// the cut moves back to the start of that match's context and the whole
// match is held (bounded: 2 x hold). A secret longer than that (a long PEM
// block, a huge token) is emitted as its replacement at once and its
// continuation is swallowed from the next fragments (Match.cont). The
// concatenated output never contains what whole-text redaction removes
// (the test suite checks every corpus case at every split point).
import { apply } from './scan.ts';
import type { Continuation, Match } from './types.ts';
import { charClass } from './regex-rule.ts';

/** What a stream redactor needs from its Redactor. */
export interface MatchSource {
  /** Resolved (non-overlapping, sorted) matches in `text`. */
  resolvedMatches(text: string): Match[];
  /** The hold-back this configuration needs (>= every rule's window). */
  readonly holdBack: number;
}

const LEFT = 64;
const PEM_END_LINE = charClass('A-Z0-9 _-');

export interface StreamState {
  pending: string;
  left: string;
  cont?: Continuation;
  /** marker continuations: the last characters searched (a marker split over fragments). */
  markerTail?: string;
  /** after a PEM END marker: swallowing the rest of its line (label and dashes). */
  endLine?: boolean;
}

export class StreamRedactor {
  private s: StreamState = { pending: '', left: '' };
  private readonly hold: number;

  constructor(
    private readonly src: MatchSource,
    hold?: number,
  ) {
    this.hold = Math.max(hold ?? src.holdBack, 16);
  }

  /** A copy of the state (the mapper commits stream state only when a firing succeeds). */
  snapshot(): StreamState {
    return { ...this.s };
  }

  restore(s: StreamState): void {
    this.s = { ...s };
  }

  /** Characters held back right now. */
  get held(): number {
    return this.s.pending.length;
  }

  push(chunk: string): string {
    if (!chunk) return '';
    if (this.s.cont || this.s.endLine) {
      const used = this.swallow(chunk);
      chunk = chunk.slice(used);
      if (this.s.cont || this.s.endLine || !chunk) return '';
    }
    const off = this.s.left.length;
    const buf = this.s.left + this.s.pending + chunk;
    const ms = this.src.resolvedMatches(buf);
    let cut = buf.length - this.hold;
    if (cut <= off) {
      this.s.pending = buf.slice(off);
      return '';
    }
    let forced: Match | undefined;
    for (let changed = true, passes = 0; changed; passes++) {
      changed = false;
      if (passes > 16) {
        cut = off;
        break;
      } // never reached with resolved matches; holding is the safe answer
      for (const m of ms) {
        if (!(m.ctx < cut && m.end > cut)) continue;
        let next: number;
        if (buf.length - m.ctx <= 2 * this.hold) {
          next = Math.max(m.ctx, off); // hold the whole match with its context
        } else if (m.end < buf.length) {
          next = m.end; // complete but too long to hold: emit it redacted
        } else {
          next = buf.length; // still growing past the bound: emit the replacement, swallow the rest later
          forced = m;
        }
        if (next !== cut) {
          cut = next;
          changed = true;
        }
      }
    }
    if (cut <= off) {
      this.s.pending = buf.slice(off);
      return '';
    }
    const out = apply(buf, ms, off, cut);
    if (forced) {
      this.s = { pending: '', left: '', cont: forced.cont };
      return out;
    }
    this.s.left = buf.slice(Math.max(0, cut - LEFT), cut);
    this.s.pending = buf.slice(cut);
    return out;
  }

  /** The end of the stream: everything still held, redacted. */
  flush(): string {
    const { left, pending } = this.s;
    this.s = { pending: '', left: '' };
    if (!pending) return '';
    const buf = left + pending;
    return apply(buf, this.src.resolvedMatches(buf), left.length, buf.length);
  }

  /** Consume the continuation of a secret already emitted as its replacement; returns how many characters were used. */
  private swallow(chunk: string): number {
    let k = 0;
    if (this.s.endLine) {
      while (k < chunk.length && PEM_END_LINE(chunk.charCodeAt(k))) k++;
      if (k < chunk.length) this.s.endLine = false;
      return k;
    }
    const c = this.s.cont!;
    if (c.kind === 'class') {
      while (k < chunk.length && c.test(chunk.charCodeAt(k))) k++;
      if (k < chunk.length) this.s.cont = undefined;
      return k;
    }
    if (c.kind === 'until') {
      while (k < chunk.length && !c.chars.includes(chunk[k])) k++;
      if (k < chunk.length) this.s.cont = undefined;
      return k;
    }
    // a marker, possibly split over fragments
    const tail = this.s.markerTail ?? '';
    const hay = tail + chunk;
    const i = hay.indexOf(c.marker);
    if (i < 0) {
      this.s.markerTail = hay.slice(-(c.marker.length - 1));
      return chunk.length;
    }
    this.s.cont = undefined;
    this.s.markerTail = undefined;
    let j = i + c.marker.length - tail.length; // index in chunk just past the marker
    while (j < chunk.length && PEM_END_LINE(chunk.charCodeAt(j))) j++;
    if (j >= chunk.length) this.s.endLine = true;
    return j;
  }
}
