// The AEP the inbox reads, from the kernel (engine/core/kernel/: the one event
// type, positions and their order, the command builder), with the names the
// inbox's modules use: an event read loosely (`Ev`), a command envelope as
// the inbox sends it (AEP-0004 §2: no `seq`, the envelope id is the
// idempotency key, `agent` names the sender).
import { makeCommand as buildCommand, type CommandParts } from '../../../engine/core/kernel/command.ts';
import type { LooseEvent } from '../../../engine/core/kernel/event.ts';
import { positionOf, type Position } from '../../../engine/core/kernel/position.ts';

export { AEP_VERSION, isCommand, isPositioned, keyOf } from '../../../engine/core/kernel/event.ts';
export { newId, type CommandParts } from '../../../engine/core/kernel/command.ts';
export { comparePositions as comparePos, insertSorted, type Position } from '../../../engine/core/kernel/position.ts';

/**
 * An event as the inbox reads it: the envelope's attributes as generated
 * from the AEP schema (the kernel's event type, `hookmap codegen`); the
 * payload is read loosely, per type, where it is shown.
 */
export type Ev = LooseEvent;

export const posOf = (e: Ev): Position => positionOf(e);

/** A command envelope from the inbox: `agent` names the sender (AEP-0004 §2.2), no `seq`. */
export function makeCommand(type: string, parts: CommandParts, host: string, instance: string): Ev {
  return buildCommand(type, parts, { source: `aep://${host}/agent/hookmap-inbox/${encodeURIComponent(instance)}`, agent: 'hookmap-inbox' }) as Ev;
}
