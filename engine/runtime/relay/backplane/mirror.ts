// What feeds a relay's subscribers on the fleet backplane
// (engine/runtime/relay/backplane/): every relay reads the whole stream through an
// ordered consumer into a local mirror (a MemoryStore) and admits by
// (epoch, seq) with the (source, id) dedupe. Every relay reads the same
// stream in the same order, so every relay makes the same decisions: a
// subscriber on any relay sees each event once, in (epoch, seq) order per
// session (one emitter writes a session, in order), and resumes from its
// last position on any relay (AEP-0003 §5). The mirror answers replay
// synchronously (RelayStore's contract); a relay becomes ready only once
// it has caught up with the stream.
//
// Live-only events (agent-scoped, seq-less, the watcher copy of a routed
// command) have no position to resume from: they cross between relays on
// core NATS (<prefix>.live.<agent>), not in the stream.
import { DeliverPolicy, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { MemoryStore } from '../memory-store.ts';
import { comparePos, positionOf, type Position } from '../position.ts';
import type { AepEvent, Held } from '../store.ts';
import { RELAY_HEADER, type Signer } from './signing.ts';

/** The local copy of the stream: a MemoryStore that also answers "would you admit it?" and learns of gaps. */
export class Mirror extends MemoryStore {
  /** Does the buffer know this session (held, or wholly evicted)? */
  knows(session: string): boolean {
    return this.buffers.has(session) || this.tombstones.has(session);
  }

  /** Nothing at or before `pos` will be held for `session` (the stream dropped it): resumes below learn of the gap. */
  markGap(session: string, pos: Position): void {
    if (!this.knows(session)) this.tombstone(session, pos);
  }

  /** Would admit() take it? (Nothing changes.) */
  wouldAdmit(held: Held): boolean {
    const ev = held.ev;
    const buf = this.buffers.get(ev.session!);
    const pos = positionOf(ev);
    if (!buf) {
      const gone = this.tombstones.get(ev.session!);
      return !gone || comparePos(pos, gone) > 0;
    }
    if (buf.evictedHigh && comparePos(pos, buf.evictedHigh) <= 0) return false;
    return !buf.holds(pos, ev.source, ev.id);
  }
}

const dec = new TextDecoder();

export function parseHeld(data: Uint8Array): Held | null {
  const raw = dec.decode(data);
  try {
    const ev = JSON.parse(raw) as AepEvent;
    if (!ev || typeof ev !== 'object' || typeof ev.type !== 'string' || typeof ev.id !== 'string') return null;
    return { ev, raw };
  } catch {
    return null;
  }
}

/** The ordered consumer over the stream, feeding the mirror. */
export class StreamFeed {
  consumedSeq = 0;
  lastSeqSeen = 0;
  consumed = 0;
  duplicates = 0;
  lastError = '';
  private stopFn?: () => void;

  constructor(
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
    private readonly stream: string,
    private readonly signer: Signer,
    readonly mirror: Mirror,
    private readonly log: (line: string) => void,
  ) {}

  /** Resolves once the mirror holds what the stream held at the call; keeps following after. */
  async start(): Promise<void> {
    const info = await this.jsm.streams.info(this.stream);
    const target = info.state.last_seq;
    this.lastSeqSeen = target;
    const consumer = await this.js.consumers.get(this.stream, { deliver_policy: DeliverPolicy.All });
    // short pulls: after a NATS restart the ordered consumer is re-created within seconds (its backoff is the pull expiry)
    const messages = await consumer.consume({ expires: 2000 });
    this.stopFn = () => void messages.stop();
    let caughtUp!: () => void;
    const ready = new Promise<void>((r) => (caughtUp = r));
    if (target === 0 || info.state.messages === 0) caughtUp();
    void (async () => {
      for await (const m of messages) {
        this.consumedSeq = m.seq;
        if (m.seq > this.lastSeqSeen) this.lastSeqSeen = m.seq;
        if (this.signer.verify(m.data, m.headers)) this.onEvent(m.data);
        if (m.seq >= target || m.info.pending === 0) caughtUp();
      }
    })().catch((e) => {
      this.lastError = `consumer stopped: ${(e as Error).message}`;
      this.log(`backplane: ${this.lastError}`);
    });
    await ready;
  }

  private onEvent(data: Uint8Array): void {
    this.consumed++;
    const held = parseHeld(data);
    if (!held || typeof held.ev.session !== 'string' || typeof held.ev.seq !== 'number') return;
    // the first event of a session this relay sees, not at its start: the stream dropped what came before (retention)
    if (held.ev.seq > 1 && !this.mirror.knows(held.ev.session)) this.mirror.markGap(held.ev.session, { epoch: held.ev.epoch ?? 0, seq: held.ev.seq - 1 });
    if (this.mirror.admit(held)) this.mirror.publish(held);
    else this.duplicates++;
  }

  stop(): void {
    this.stopFn?.();
  }
}

/** Live-only events from the other relays (signed, never this relay's own), handed to `deliver`. */
export function followLive(nc: NatsConnection, prefix: string, signer: Signer, deliver: (held: Held) => void): { received: number } {
  const counts = { received: 0 };
  nc.subscribe(`${prefix}.live.>`, {
    callback: (err, m) => {
      if (err || m.headers?.get(RELAY_HEADER) === signer.relayId || !signer.verify(m.data, m.headers)) return;
      const held = parseHeld(m.data);
      if (!held) return;
      counts.received++;
      deliver(held);
    },
  });
  return counts;
}
