// SSE delivery (AEP-0003 §3.3) onto a raw Node response. The sink enforces
// the slow-consumer bound: above half of maxPending it sheds debug/info
// events, above maxPending it ends the stream (never silently dropping
// notice-and-above, §8.4), so one stalled reader costs bounded memory.
import type { ServerResponse } from 'node:http';
import type { RelayCore } from './core.ts';
import type { Held, Position } from './store.ts';
import type { Sink } from './subscription.ts';

const REPLAY_HIGH_WATER = 64 * 1024;
const SHEDDABLE = new Set(['debug', 'info', undefined]);

export function sseSink(res: ServerResponse, core: RelayCore): Sink {
  const maxPending = core.limits.maxPending;
  return {
    event(text: string, held: Held): boolean {
      if (res.destroyed || res.writableEnded) return false;
      const pending = res.writableLength;
      if (pending > maxPending) {
        core.counters.droppedConsumers++;
        res.destroy();
        return false;
      }
      if (pending > maxPending / 2 && SHEDDABLE.has(held.ev.severity)) {
        core.counters.droppedEvents++;
        return true;
      }
      res.write(frame(text, held));
      return true;
    },
    exhausted(session: string, earliest: Position): void {
      if (!res.destroyed && !/[\r\n]/.test(session)) res.write(`: replay-exhausted ${session} ${earliest.epoch}:${earliest.seq}\n\n`);
    },
    ready(): Promise<void> | null {
      if (res.destroyed || res.writableLength <= REPLAY_HIGH_WATER) return null;
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
    end(): void {
      if (!res.destroyed) res.end();
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
