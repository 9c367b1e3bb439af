// A descriptor's waiting signs (docs/watch.md), evaluated beside the mapping
// of each firing: the agent says it shows its own dialog or waits at its
// prompt. One `x.hookmap.watch.waiting` event in the firing's session; a sign
// that cannot be evaluated is said, never the firing's reply's concern.
import type { Descriptor } from '../../core/descriptor/types.ts';
import type { Mapper, MapResult } from '../../core/map/mapper.ts';
import { waitingEvent } from '../../core/map/waiting.ts';
import { opens } from '../../core/kernel/lifecycle.ts';
import type { DaemonCore } from './core.ts';

export async function publishWaiting(core: DaemonCore, mapper: Mapper, result: MapResult, payload: unknown, surface?: Record<string, unknown>): Promise<void> {
  try {
    const ev = await waitingEvent(mapper, result, payload, surface);
    if (ev) core.publish([ev]);
  } catch (e) {
    core.say(`waiting sign of ${result.hook} not evaluated: ${(e as Error).message}`);
  }
}

/** Whether the agent can refuse a tool call before it runs (a hook that opens a tool call and can block); else a budget cancels the turn. */
export function canBlockToolCalls(d: Descriptor): boolean {
  return [...d.hooks.values()].some((h) => h.decide.has('block') && h.emit.some((e) => opens(e.type) === 'tool'));
}
