// Publishing a relay's admitted events to the fleet's JetStream stream
// (engine/runtime/relay/backplane/), in admission order, exactly once:
//
// - dedupe: JetStream's duplicate window on the message id
//   (Nats-Msg-Id = source#id, AEP-0001 §5 identity) plus the mirror's
//   position dedupe (mirror.ts) absorb re-sends after a failover;
// - order: the outbox keeps JetStream order equal to admission order.
//   While all is well publishes are pipelined; the first failure (or a
//   disconnect) stops new publishes, waits for what is in flight to
//   settle, then re-publishes the failed and the queued ones one at a
//   time, each retried until JetStream acknowledges it, before pipelining
//   again. A message a failing server dropped is never overtaken by a later
//   one from this relay;
// - durability for emitters: barrier() resolves once every publish issued
//   so far is acknowledged. The WebSocket `pong` and the POST answer wait
//   for it, so what a daemon counts as confirmed is in the stream: a relay
//   killed mid-stream loses nothing its daemons will not re-send.
import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import type { Held } from '../store.ts';
import { BackplaneError } from './stream.ts';
import type { Signer } from './signing.ts';

const PUBLISH_TIMEOUT_MS = 5000;
/** Events admitted but not yet stored, at most (an outage past it refuses more: emitters keep them in their logs). */
const OUTBOX_MAX = 100_000;

interface Entry {
  held: Held;
  subject: string;
  msgId: string;
  state: 'queued' | 'inflight' | 'failed' | 'acked';
  done: Promise<void>;
  resolve: () => void;
}

const enc = new TextEncoder();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class Outbox {
  published = 0;
  failures = 0;
  lastError = '';
  /** Highest stream sequence an ack named. */
  lastSeq = 0;
  closed = false;
  private entries: Entry[] = [];
  private recovering = false;
  private disconnected = false;
  private refusedSinceBarrier?: Promise<void>;

  constructor(
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
    private readonly stream: string,
    private readonly signer: Signer,
    private readonly log: (line: string) => void,
  ) {}

  /** The NATS connection went down (nothing new goes out until it is back and the stream answers) or came back. */
  connection(up: boolean): void {
    this.disconnected = !up;
    if (!up) this.recover();
  }

  /** Queue one admitted event for the stream. */
  push(held: Held, subject: string): void {
    if (this.entries.length >= OUTBOX_MAX) {
      // the backplane has been unreachable for long: refuse more (the emitter keeps it in its log and re-sends)
      this.failures++;
      const p = Promise.reject(new BackplaneError(`backplane outage: ${OUTBOX_MAX} events already wait to be stored`));
      p.catch(() => {});
      this.refusedSinceBarrier = p;
      return;
    }
    const entry = { held, subject, msgId: `${held.ev.source}#${held.ev.id}`, state: 'queued' } as Entry;
    entry.done = new Promise<void>((r) => (entry.resolve = r));
    this.entries.push(entry);
    if (!this.recovering) void this.send(entry);
  }

  /** Resolves once every publish issued so far is acknowledged by JetStream; rejects if one was refused. */
  barrier(): Promise<void> {
    if (this.refusedSinceBarrier) {
      const r = this.refusedSinceBarrier;
      this.refusedSinceBarrier = undefined;
      return r;
    }
    const waiting = this.entries.filter((e) => e.state !== 'acked').map((e) => e.done);
    if (waiting.length === 0) return Promise.resolve();
    return Promise.all(waiting).then(() => undefined);
  }

  /** Wait (at most `ms`) for what is queued to be stored, and stop. */
  async close(ms: number): Promise<void> {
    await Promise.race([Promise.all(this.entries.map((e) => e.done)), sleep(ms)]);
    this.closed = true;
  }

  private send(entry: Entry): Promise<boolean> {
    entry.state = 'inflight';
    const body = enc.encode(entry.held.raw);
    const h = this.signer.headers(body);
    h.set('Nats-Msg-Id', entry.msgId);
    return this.js.publish(entry.subject, body, { headers: h, timeout: PUBLISH_TIMEOUT_MS }).then(
      (ack) => {
        this.published++;
        if (ack.seq > this.lastSeq) this.lastSeq = ack.seq;
        entry.state = 'acked';
        entry.resolve();
        this.trim();
        return true;
      },
      (e: Error) => {
        this.failures++;
        this.lastError = `publish failed: ${e.message}`;
        entry.state = 'failed';
        this.recover();
        return false;
      },
    );
  }

  private trim(): void {
    let i = 0;
    while (i < this.entries.length && this.entries[i].state === 'acked') i++;
    if (i) this.entries.splice(0, i);
  }

  private async streamAnswers(): Promise<boolean> {
    try {
      await this.jsm.streams.info(this.stream);
      return true;
    } catch {
      return false;
    }
  }

  private recover(): void {
    if (this.recovering || this.closed) return;
    this.recovering = true;
    void (async () => {
      let delay = 100;
      // what is in flight settles first (acked, or failed on its timeout)
      while (this.entries.some((e) => e.state === 'inflight')) await sleep(20);
      while (!this.closed) {
        // not while the connection is down, nor before JetStream answers for the stream again (after a restart it recovers first)
        const ready = !this.disconnected && (await this.streamAnswers());
        const next = ready ? this.entries.find((e) => e.state !== 'acked') : undefined;
        if (ready && !next) break;
        if (next && (await this.send(next))) {
          delay = 100;
          continue;
        }
        await sleep(delay);
        delay = Math.min(2000, delay * 2);
      }
      this.trim();
      this.recovering = false;
      if (!this.closed) this.log(`backplane: publishing again (${this.published} stored by this relay)`);
    })();
  }
}
