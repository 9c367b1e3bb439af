// SSE delivery (AEP-0003 §3.3) onto a raw Node response. The sink enforces
// the slow-consumer bound (§8.4): above half of maxPending it sheds debug
// events only; above maxPending it ends the stream (a `: closing` comment
// naming why, after the last `id:` the consumer got), so the consumer
// resumes from its last id without loss; one stalled reader costs bounded
// memory. A reader that never drains is cut off after a grace period.
import type { ServerResponse } from 'node:http';
import type { RelayCore } from './core.ts';
import type { Held, Position } from './store.ts';
import { admitted, REPLAY_HIGH_WATER, type Sink } from './subscription.ts';

/** How long an ended stream may take to drain before the socket is destroyed. */
export const CLOSE_GRACE_MS = 10_000;

export function sseSink(res: ServerResponse, core: RelayCore): Sink {
  const maxPending = core.limits.maxPending;
  let ended = false;
  const overflow = (why: string) => {
    if (ended || res.destroyed) return;
    ended = true;
    core.counters.droppedConsumers++;
    // comments carry no id: the consumer's Last-Event-ID stays the last event it got
    res.end(`: closing slow-consumer: ${why.replace(/[\r\n]+/g, ' ')}; resume from your last id\n\n`);
    setTimeout(() => res.destroy(), CLOSE_GRACE_MS).unref();
  };
  return {
    event(text: string, held: Held): boolean {
      if (ended || res.destroyed || res.writableEnded) return false;
      const verdict = admitted(res.writableLength, maxPending, held, core.counters, overflow);
      if (verdict !== 'write') return verdict;
      res.write(frame(text, held));
      return true;
    },
    exhausted(session: string, earliest: Position): void {
      if (!res.destroyed && !ended && !/[\r\n]/.test(session)) res.write(`: replay-exhausted ${session} ${earliest.epoch}:${earliest.seq}\n\n`);
    },
    ready(): Promise<void> | null {
      if (res.destroyed || ended || res.writableLength <= REPLAY_HIGH_WATER) return null;
      return new Promise((resolve) => {
        const done = () => {
          res.off('drain', done);
          res.off('close', done);
          resolve();
        };
        res.on('drain', done);
        res.on('close', done);
      });
    },
    overflow,
    end(): void {
      if (!res.destroyed && !ended) {
        ended = true;
        res.end();
      }
    },
  };
}

function frame(text: string, held: Held): string {
  const ev = held.ev;
  // Session-scoped, sequenced events carry a resume position; agent-scoped and seq-less ones do not.
  // A session containing a line break would forge SSE fields, so it gets no id.
  const id = ev.session !== undefined && ev.seq !== undefined && !/[\r\n]/.test(ev.session) ? `id: ${ev.session}:${ev.epoch ?? 0}:${ev.seq}\n` : '';
  return `${id}event: ${ev.type}\ndata: ${text}\n\n`;
}
