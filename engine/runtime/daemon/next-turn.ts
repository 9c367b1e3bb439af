// The next-turn carrier: how steering reaches an IDLE session (its turn has
// finished, the agent waits at its prompt), where no hook reply is coming.
// The descriptor's `commands.<type>.next_turn` names the hooks whose firing
// starts a background waiter (a second handler the agent runs in the
// background, e.g. one it lets wake the model on a given exit code); the
// waiter long-polls POST /next-turn/<agent> here. While no turn runs and an
// instruction is queued, the newest waiter of the session takes it: its
// reply is the text and the carrier's exit code, and the instruction counts
// as delivered (`x.<vendor>.instruction.delivered`, carrier next-turn) only
// once the waiter acknowledged it (POST /next-turn/<agent>/ack/<token>, sent
// after it wrote the text and just before it exits with the carrier's code;
// a waiter whose ack is refused exits 0 and wakes nothing). A waiter that is
// gone (killed, crashed: its orphaned request may still read the reply, but
// nobody acks) puts the instruction back at the head of the queue once
// ACK_WINDOW_MS pass: it rides the next eligible reply or the next waiter, or
// a session end drops it, audited. Never twice: a taken instruction leaves
// the queue before its bytes go out (no hook reply can carry it meanwhile),
// and one ack at most is answered yes.
// Bounded: one waiter per session (a newer one releases the older), each
// released after `wait_ms`, at the session's end, or when the daemon stops;
// at most MAX_WAITERS in the process (each holds a connection open for up to
// `wait_ms`: a flood of them once filled the server's connection limit, and
// /healthz and every hook were refused). A waiter for a session no firing has
// named yet (a waiter can start beside the session's first hook) is one of
// at most MAX_UNKNOWN_WAITERS and has UNKNOWN_GRACE_MS for its session to
// show up; past either bound a waiter is answered at once (no bytes, exit 0).
// The carrier's `wake` hook (never registered with the agent) is fired here
// with the waiter's payload once the ack is in, before the waiter may exit:
// its rule notes the delivery, so the woken turn's own first hook can open
// its run as trigger control, caused by the instruction.
import { randomBytes } from 'node:crypto';
import type { CompiledCommand } from '../../core/descriptor/types.ts';
import type { DaemonCore } from './core.ts';
import type { HookReply } from './holds.ts';
import { chars, droppedEvent, type InstructionQueue, type Queued } from './instructions.ts';

/** A next-turn reply carrying instructions: `ack` the token the waiter confirms with; `sent(false)`: its bytes never went out. */
export interface CarrierReply extends HookReply {
  ack?: string;
  sent?: (ok: boolean) => void;
}

/** How long a waiter that was sent instructions has to acknowledge them before they go back to the queue. */
export const ACK_WINDOW_MS = 15_000;
/** Waiters held at once in this process, every daemon's together. */
export const MAX_WAITERS = 256;
/** Of those, waiters whose session no firing has named yet ... */
export const MAX_UNKNOWN_WAITERS = 16;
/** ... and how long such a waiter waits for its session to show up. */
export const UNKNOWN_GRACE_MS = 10_000;

/** The process's waiters, every NextTurn's together (each holds a connection open). */
const held = { all: 0, unknown: 0 };

interface InFlight {
  session: string;
  taken: Queued[];
  timer: unknown;
  /** The waiter's hook payload: what the `wake` firing maps. */
  payload?: unknown;
}

interface Waiter {
  session: string;
  resolve: (r: CarrierReply) => void;
  timer: unknown;
  off: () => void;
  payload?: unknown;
  /** Counted among the waiters of sessions not yet known (until its session shows up). */
  unknown: boolean;
  /** When its `wait_ms` ends. */
  until: number;
}

export interface NextTurnOptions {
  /** The steering command that declares the carrier. */
  spec: CompiledCommand;
  queue: InstructionQueue;
  /** The carrier's opt-in is on (and the command accepted). */
  enabled: boolean;
  /** No turn runs in the session now and nothing is held there. */
  idle: (session: string) => boolean;
  /** The session's end was seen: an instruction coming back is dropped, not queued. */
  ended: (session: string) => boolean;
  /** A firing of the session was mapped here. */
  known: (session: string) => boolean;
}

const METADATA = 'metadata' as const;

export class NextTurn {
  private readonly waiters = new Map<string, Waiter>();
  /** Instructions sent to a waiter and not yet acknowledged, by ack token. */
  private readonly inflight = new Map<string, InFlight>();

  constructor(
    private readonly core: DaemonCore,
    private readonly o: NextTurnOptions,
  ) {}

  get enabled(): boolean {
    return this.o.enabled;
  }

  /** Whether a waiter of `session` is waiting now. */
  waiting(session: string): boolean {
    return this.waiters.has(session);
  }

  private neutral(): CarrierReply {
    return this.core.reply('', 0);
  }

  /** A background waiter of `session` (in the serial queue): its reply comes later (an instruction) or neutral (released). */
  wait(session: string | undefined, signal?: AbortSignal, payload?: unknown): Promise<CarrierReply> {
    if (!this.o.enabled || !session || this.core.closed || signal?.aborted) return Promise.resolve(this.neutral());
    this.release(session, 'superseded by a newer waiter');
    const unknown = !this.o.known(session);
    if (held.all >= MAX_WAITERS || (unknown && held.unknown >= MAX_UNKNOWN_WAITERS)) {
      this.core.say(
        `next-turn waiter of session ${session} refused: ${unknown ? `${held.unknown} waiters of unknown sessions` : `${held.all} waiters`} already held`,
      );
      return Promise.resolve(this.neutral());
    }
    return new Promise<CarrierReply>((resolve) => {
      const waitMs = this.o.spec.nextTurn!.waitMs;
      const w: Waiter = { session, resolve, timer: undefined, off: () => {}, payload, unknown, until: this.core.now() + waitMs };
      held.all++;
      if (unknown) held.unknown++;
      this.arm(w, unknown ? Math.min(waitMs, UNKNOWN_GRACE_MS) : waitMs);
      const onAbort = () => void this.core.serial.run(() => this.drop(w, 'gone'));
      signal?.addEventListener('abort', onAbort, { once: true });
      w.off = () => signal?.removeEventListener('abort', onAbort);
      this.waiters.set(session, w);
      this.core.say(`next-turn waiter of session ${session} waiting${unknown ? ' (its session not seen yet)' : ''}`);
      this.poke(session);
    });
  }

  /** The waiter's timer: at its end, a waiter whose session showed up meanwhile waits out the rest of `wait_ms`. */
  private arm(w: Waiter, ms: number): void {
    w.timer = this.core.timers.set(
      () =>
        void this.core.serial.run(() => {
          if (this.waiters.get(w.session) !== w) return;
          if (w.unknown && this.o.known(w.session) && w.until > this.core.now()) {
            this.known(w);
            return this.arm(w, w.until - this.core.now());
          }
          this.drop(w, w.unknown ? 'its session was never seen' : 'bound');
        }),
      ms,
    );
  }

  /** A waiter's session showed up: it no longer counts among the unknown ones. */
  private known(w: Waiter): void {
    if (!w.unknown) return;
    w.unknown = false;
    held.unknown--;
  }

  /** A waiter leaves the maps and the counts (it is answered by the caller). */
  private forget(w: Waiter): void {
    this.waiters.delete(w.session);
    this.core.timers.clear(w.timer);
    w.off();
    this.known(w);
    held.all--;
  }

  /** A waiter leaves without an instruction (neutral reply, or nothing: its connection is gone). */
  private drop(w: Waiter, why: string): void {
    if (this.waiters.get(w.session) !== w) return;
    this.forget(w);
    this.core.say(`next-turn waiter of session ${w.session} released (${why})`);
    w.resolve(this.neutral());
  }

  /** Release the session's waiter (session end, a newer waiter). */
  release(session: string, why: string): void {
    const w = this.waiters.get(session);
    if (w) this.drop(w, why);
  }

  /** Every waiter released, what is in flight back in the queue (the daemon is stopping: the queue is then dropped, audited). */
  releaseAll(): void {
    for (const w of [...this.waiters.values()]) this.drop(w, 'daemon-stopping');
    for (const token of [...this.inflight.keys()]) this.unacked(token, 'the daemon is stopping');
  }

  /** In the serial queue, after anything that may let a waiter carry (a firing, a queued instruction, a new waiter). */
  poke(session: string): void {
    const w = this.waiters.get(session);
    if (!w || !this.o.idle(session)) return;
    const spec = this.o.spec;
    const taken: Queued[] = [];
    let length = 0;
    for (const q of this.o.queue.list(session)) {
      if (q.spec.deliver !== 'context') continue;
      const add = chars(q.text!) + (taken.length ? 2 : 0);
      if (taken.length && length + add > (spec.maxChars ?? Number.POSITIVE_INFINITY)) break;
      taken.push(q);
      length += add;
    }
    if (!taken.length) return;
    this.forget(w);
    this.o.queue.remove(session, taken); // in flight: no hook reply can carry them meanwhile
    const ack = randomBytes(16).toString('hex');
    const f: InFlight = { session, taken, timer: undefined, payload: w.payload };
    f.timer = this.core.timers.set(() => void this.core.serial.run(() => this.unacked(ack, 'no ack in time')), ACK_WINDOW_MS);
    this.inflight.set(ack, f);
    const sent = (ok: boolean) => void (ok || this.core.serial.run(() => this.unacked(ack, 'its bytes never went out')));
    const text = taken.map((q) => q.text).join('\n\n');
    w.resolve({ ...this.core.reply(text, spec.nextTurn!.exit ?? 0), contentType: 'text/plain; charset=utf-8', ack, sent });
  }

  /** A waiter's ack (in the serial queue): yes once per token, while its instructions are in flight; they are delivered now, the turn woken. */
  async acknowledge(token: string): Promise<boolean> {
    const f = this.inflight.get(token);
    if (!f) return false;
    this.inflight.delete(token);
    this.core.timers.clear(f.timer);
    this.settle(f.session, f.taken, true);
    await this.wake(f);
    return true;
  }

  /** The carrier's `wake` hook, fired with the waiter's payload before the waiter exits (what it notes or emits is the descriptor's). */
  private async wake(f: InFlight): Promise<void> {
    const hook = this.o.spec.nextTurn!.wake;
    if (!hook || !f.payload || typeof f.payload !== 'object') return;
    const surface = { carrier: 'next-turn', instruction: f.taken[0].id };
    try {
      const r = await this.core.mapper.map(hook, f.payload as Record<string, unknown>, surface, {});
      this.core.publishChecked(r.events);
    } catch (err) {
      await this.core.diagnose(err, f.payload, hook, surface, true);
    }
  }

  /** A waiter whose host refused the text (its call failed, nothing was delivered): back in the queue at once, not after the ack window. */
  refuse(token: string): boolean {
    if (!this.inflight.has(token)) return false;
    this.unacked(token, 'the host refused the text');
    return true;
  }

  /** Instructions that no waiter acknowledged: back at the head of the queue (dropped if the session has ended). */
  private unacked(token: string, why: string): void {
    const f = this.inflight.get(token);
    if (!f) return;
    this.inflight.delete(token);
    this.core.timers.clear(f.timer);
    this.core.say(`next-turn waiter of session ${f.session}: ${why}`);
    this.settle(f.session, f.taken, false);
  }

  /** Instructions sent and not yet acknowledged (tests, doctor). */
  get pendingAcks(): number {
    return this.inflight.size;
  }

  /** Delivered (audited), or back in the queue. */
  private settle(session: string, taken: Queued[], ok: boolean): void {
    const { core } = this;
    if (!ok && this.o.ended(session)) {
      core.publish(taken.map((q) => ({ session, ...droppedEvent(core.vendor, q, 'session-ended') })).map((a) => core.events.make(a)));
      return;
    }
    if (!ok) {
      this.o.queue.unshift(session, taken);
      core.say(`next-turn: ${taken.length} instruction(s) of session ${session} stay queued`);
      this.poke(session);
      return;
    }
    const now = core.now();
    core.publish(
      taken.map((q) =>
        core.events.make({
          type: `x.${core.vendor}.instruction.delivered`,
          session,
          cause: q.id,
          data: { queued_ms: Math.max(0, Math.round(now - q.at)), carrier: 'next-turn' },
          gates: { queued_ms: METADATA, carrier: METADATA },
        }),
      ),
    );
    core.say(`${taken.length} instruction(s) woke idle session ${session} (next-turn carrier)`);
  }
}
