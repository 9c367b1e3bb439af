// The watch in `hookmap up` (engine/person/watch, docs/watch.md): it reads the
// relay's whole stream live and publishes its attentions in hookmap's own
// session (the operator log), so they reach the inbox, push and the chat
// channels like any card; Moments shows only the ones this watch published.
import type { AepEvent } from '../core/map/envelope.ts';
import { OPERATOR_AGENT, type OperatorLog } from '../runtime/daemon/operator-log.ts';
import type { Relay } from '../runtime/relay/index.ts';
import { UNITS } from '../core/kernel/lifecycle.ts';
import { Watch } from '../person/watch/watch.ts';
import { watchConfigOf, type WatchConfig } from '../person/watch/schema.ts';

const TICK_MIN_MS = 200;
/** A request closed with no timeout (AEP-0002 §7), as the kernel names it. */
const RESOLVED = UNITS.attention.closes[0];
const TICK_MAX_MS = 30_000;

export interface UpWatch {
  /** Whether an attention.requested is one this watch raised (and has not resolved). */
  watched(ev: AepEvent): boolean;
  /** Once the operator session is open: read the stream. */
  start(relay: Pick<Relay, 'subscribe'>, operator: OperatorLog): void;
  close(): void;
}

export function upWatch(given: WatchConfig | undefined, say: (line: string) => void): UpWatch {
  const config = given ?? watchConfigOf(undefined);
  const mine = new Set<string>();
  let stop = () => {};
  return {
    watched: (ev) => mine.has(ev.id),
    start(relay, operator) {
      if (!config.enabled) return;
      const { callMs, runMs } = config;
      const watch = new Watch({
        callMs,
        runMs,
        own: (ev) => ev.session === operator.session && ev.agent === OPERATOR_AGENT,
        say,
        out: {
          request: (data, cause) => {
            const ev = operator.publish(UNITS.attention.opens[0], data, { cause });
            mine.add(ev.id);
            return ev.id;
          },
          resolve: (id, resolution, cause) => {
            mine.delete(id);
            operator.publish(RESOLVED, { resolution }, { subject: id, cause });
          },
        },
      });
      const sub = relay.subscribe({ live: true }, (ev) => watch.add(ev));
      const every = Math.min(TICK_MAX_MS, Math.max(TICK_MIN_MS, Math.min(...[callMs, runMs].filter((x) => x > 0), TICK_MAX_MS * 4) / 4));
      const timer = setInterval(() => watch.tick(), every);
      timer.unref?.();
      stop = () => {
        clearInterval(timer);
        sub.close();
        watch.close();
      };
    },
    close: () => stop(),
  };
}
