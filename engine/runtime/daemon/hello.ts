// What a daemon declares in its relay hello (AEP-0003 §4): the event
// categories it emits, the capture levels it can produce, and the commands
// it accepts (AEP-0004 §4.2: the declaration is authoritative; a command not
// declared is refused `unsupported`).
import { captureRank } from '../../core/aep/schemas.ts';
import type { Descriptor } from '../../core/descriptor/types.ts';
import { DOOR_COMMANDS } from './door.ts';

import { RESPOND } from '../../core/kernel/lifecycle.ts';

export { RESPOND };

/**
 * The commands this agent's daemon accepts: answers always (a hook's held
 * request, or the model's own `ask_human` through `hookmap mcp`, which every
 * agent can raise whatever its posture: the ask waits in the daemon, not in
 * the agent's hook); surface and delivered commands only while their opt-in
 * is on (declaring what always refuses is noise), and none in an
 * observe-only posture.
 */
export function acceptedCommands(d: Descriptor, configValue: (key: string) => unknown): string[] {
  // a telemetry channel (otlp-receiver) holds nothing and writes nothing back: it accepts no command, so it never
  // claims a session the agent's hook channel answers for (two claimants would make every command ambiguous)
  if (d.surface.kind === 'otlp-receiver') return [];
  // hookmap's own control queries (door.ts) wherever an answer is: what a card or a rule needs of a pending request
  const accepts = [RESPOND, ...DOOR_COMMANDS];
  for (const c of d.commands.values()) if (d.posture !== 'observe-only' && (!c.optIn || configValue(c.optIn) === true)) accepts.push(c.type);
  return accepts;
}

/** The hello capabilities of a daemon's relay connection. */
export function helloCapabilities(d: Descriptor, accepts: string[], captureAtLeast?: string): Record<string, unknown> {
  const cats = new Set<string>();
  for (const h of d.hooks.values()) for (const e of h.emit) if (e.type) cats.add(e.type.startsWith('x.') ? 'x' : e.type.split('.')[0]);
  cats.add('control');
  return {
    emits: [...cats].filter((c) => c !== 'x').sort(),
    capture: ['none', 'metadata', 'redacted', 'full'].filter(
      (l) =>
        captureRank(l) <= Math.max(captureRank(d.capture.ceiling), captureRank(captureAtLeast)) ||
        Object.values(d.capture.overrides).some((o) => captureRank(l) <= captureRank(o)),
    ),
    control: { accepts, ack_window_ms: 10_000 },
  };
}

/** The options that switch commands on (a command's `opt_in`): each one's state as resolved, its variable, and what it does. */
/** Every descriptor option as this daemon runs it (`up` prints them): its value, whether that is the default, the variable that sets it. */
export function optionStates(
  d: Descriptor,
  configValue: (key: string) => unknown,
): { key: string; value: unknown; default: unknown; changed: boolean; env: string; doc: string; optIn: boolean }[] {
  const optIns = new Set([...d.commands.values()].flatMap((c) => [c.optIn, c.nextTurn?.optIn]).filter((k) => k !== undefined));
  return d.options.map((o) => {
    const value = configValue(o.key);
    return {
      key: o.key,
      value,
      default: o.default,
      changed: JSON.stringify(value) !== JSON.stringify(o.default),
      env: o.env,
      doc: o.doc,
      optIn: optIns.has(o.key),
    };
  });
}

export function optInStates(
  d: Descriptor,
  configValue: (key: string) => unknown,
): { key: string; on: boolean; env: string; doc: string; commands: string[] }[] {
  const byKey = new Map<string, string[]>();
  for (const c of d.commands.values()) if (c.optIn) byKey.set(c.optIn, [...(byKey.get(c.optIn) ?? []), c.type]);
  // a next-turn carrier's own opt-in (it reaches idle sessions with the command it extends)
  for (const c of d.commands.values()) if (c.nextTurn) byKey.set(c.nextTurn.optIn, [...(byKey.get(c.nextTurn.optIn) ?? []), `${c.type} (next turn)`]);
  return [...byKey].map(([key, commands]) => {
    const o = d.options.find((x) => x.key === key);
    return { key, on: configValue(key) === true, env: o?.env ?? key, doc: o?.doc ?? '', commands };
  });
}
