// Redaction across the fragments of a streamed text (AEP-0007 §6): the
// engine-side state behind a descriptor emit's `fragment_of`. Each
// (session, event type, subject, stream id, field path) has its own
// StreamRedactor; a fragment event carries what is safe to emit so far and
// the held tail is released with the next fragment, or as one closing
// fragment event when the session emits anything that is not a fragment
// (the stream's end: e.g. the assembled message). State changes only when
// the mapper commits a firing (a firing is atomic). Bounded: at most
// `perSession` open streams per session (the oldest is closed first) and
// `sessions` sessions (the least recently used is dropped, tail and all:
// held text is never emitted unredacted, at worst it is lost).
import type { StreamRedactor, StreamState } from './stream.ts';

/** The redaction surface the capture gate calls (the Redactor, or a per-event view of it). */
export interface TextRedactor {
  text(s: string): string;
  deep(value: unknown, path?: string): unknown;
}

export interface FragmentSource extends TextRedactor {
  stream(): StreamRedactor;
}

/** What a closing fragment event copies from the last fragment of its stream. */
export interface FragmentEvent {
  type: string;
  subject?: string;
  step?: string;
  run?: string;
  /** The last fragment's gated data (the streamed paths are replaced). */
  data: Record<string, unknown>;
  /** Anything the caller needs to rebuild the event (its emit rule). */
  meta?: unknown;
}

interface Open {
  state: StreamState;
  event?: FragmentEvent;
  eventKey: string;
  path: string;
}

export interface FragmentOptions {
  sessions?: number;
  perSession?: number;
}

export class FragmentStreams {
  private readonly bySession = new Map<string, Map<string, Open>>();
  private readonly maxSessions: number;
  private readonly perSession: number;

  constructor(
    private readonly src: FragmentSource,
    opts: FragmentOptions = {},
  ) {
    this.maxSessions = opts.sessions ?? 1024;
    this.perSession = opts.perSession ?? 16;
  }

  /** Open streams of a session (tests, docs). */
  open(session: string): number {
    return this.bySession.get(session)?.size ?? 0;
  }

  begin(session: string): FragmentTxn {
    return new FragmentTxn(this, session, this.bySession.get(session));
  }

  /** @internal */
  commit(session: string, streams: Map<string, Open> | undefined): void {
    this.bySession.delete(session);
    if (!streams || !streams.size) return;
    this.bySession.set(session, streams);
    while (this.bySession.size > this.maxSessions) this.bySession.delete(this.bySession.keys().next().value as string);
  }

  /** @internal */
  get limits() {
    return { perSession: this.perSession, src: this.src };
  }
}

const setPath = (obj: Record<string, unknown>, path: string, v: unknown) => {
  const parts = path.split('.');
  let o: Record<string, unknown> = obj;
  for (const p of parts.slice(0, -1)) {
    const next = o[p];
    if (!next || typeof next !== 'object' || Array.isArray(next)) return;
    o = o[p] = { ...(next as Record<string, unknown>) };
  }
  o[parts[parts.length - 1]] = v;
};

/** One firing's view of a session's fragment streams: nothing changes until `commit`. */
export class FragmentTxn {
  private readonly work: Map<string, Open>;
  private readonly live = new Map<string, StreamRedactor>();

  constructor(
    private readonly owner: FragmentStreams,
    private readonly session: string,
    committed: Map<string, Open> | undefined,
  ) {
    this.work = new Map([...(committed ?? [])].map(([k, o]) => [k, { ...o, state: { ...o.state } }]));
  }

  private redactorOf(key: string, eventKey: string, path: string): StreamRedactor {
    let r = this.live.get(key);
    if (r) return r;
    r = this.owner.limits.src.stream();
    const open = this.work.get(key);
    if (open) r.restore(open.state);
    else this.work.set(key, { state: r.snapshot(), eventKey, path });
    this.live.set(key, r);
    return r;
  }

  /**
   * The redactor the capture gate uses for one fragment event: strings at
   * object paths go through their stream; anything else is redacted whole.
   */
  view(eventKey: string): TextRedactor {
    const src = this.owner.limits.src;
    return {
      text: (s) => src.text(s),
      deep: (v, path) => {
        if (typeof v !== 'string' || !path || path.includes('[]')) return src.deep(v, path);
        return this.redactorOf(`${eventKey}\u0000${path}`, eventKey, path).push(v);
      },
    };
  }

  /** Remember the fragment event a stream's closing fragment will copy. */
  noteEvent(eventKey: string, ev: FragmentEvent): void {
    for (const o of this.work.values()) if (o.eventKey === eventKey) o.event = ev;
  }

  /** Close streams: every open one (`all`), or the oldest past the per-session bound. One closing event per stream event with its held tails. */
  close(all: boolean): FragmentEvent[] {
    const byEvent = new Map<string, Open[]>();
    for (const o of this.work.values()) {
      const list = byEvent.get(o.eventKey) ?? [];
      list.push(o);
      byEvent.set(o.eventKey, list);
    }
    const closing = all ? [...byEvent.keys()] : [...byEvent.keys()].slice(0, Math.max(0, byEvent.size - this.owner.limits.perSession));
    const out: FragmentEvent[] = [];
    for (const eventKey of closing) {
      let ev: FragmentEvent | undefined;
      let any = false;
      for (const o of byEvent.get(eventKey)!) {
        const key = `${eventKey}\u0000${o.path}`;
        const tail = this.redactorOf(key, eventKey, o.path).flush();
        this.live.delete(key);
        this.work.delete(key);
        if (!o.event) continue;
        ev ??= { ...o.event, data: structuredClone(o.event.data) };
        setPath(ev.data, o.path, tail);
        if (tail) any = true;
      }
      if (ev && any) out.push(ev);
    }
    return out;
  }

  commit(): void {
    for (const [key, r] of this.live) {
      const o = this.work.get(key);
      if (o) o.state = r.snapshot();
    }
    this.owner.commit(this.session, this.work);
  }
}
