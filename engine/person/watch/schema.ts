// The `watch:` block of the up config (docs/watch.md): when the watch
// (engine/person/watch/watch.ts) says a quiet agent may be waiting at its own
// terminal. Every key optional; the defaults are here and in the reference.
import { z } from 'zod';

export const DEFAULT_WATCH_CALL_MS = 5 * 60_000;
export const DEFAULT_WATCH_RUN_MS = 10 * 60_000;

const ms = (what: string) =>
  z
    .number()
    .int()
    .min(0)
    .max(7 * 24 * 3_600_000)
    .describe(what);

export const WatchBlockSchema = z
  .strictObject({
    enabled: z.boolean().optional().meta({ default: true }).describe('false: no watch (nothing waiting unseen is raised)'),
    call_ms: ms('a tool call requested and not finished this long raises an attention, ms (0: never)').optional().meta({ default: DEFAULT_WATCH_CALL_MS }),
    run_ms: ms('a run with no event this long raises an attention, ms (0: never)').optional().meta({ default: DEFAULT_WATCH_RUN_MS }),
  })
  .describe('the watch: an attention "answer at the agent" when an agent waits where no hookmap card asks (docs/watch.md)');

export type WatchBlock = z.infer<typeof WatchBlockSchema>;

export interface WatchConfig {
  enabled: boolean;
  callMs: number;
  runMs: number;
}

export function watchConfigOf(doc: WatchBlock | undefined): WatchConfig {
  return { enabled: doc?.enabled ?? true, callMs: doc?.call_ms ?? DEFAULT_WATCH_CALL_MS, runMs: doc?.run_ms ?? DEFAULT_WATCH_RUN_MS };
}
