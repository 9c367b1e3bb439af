// Why an instruction accepted for an idle session reaches nobody until the
// human prompts again: the next-turn carrier that would wake it is off. The
// note names the options (their variables, from the descriptor) and the setup
// step that turn it on (issue 45: `hookmap steer` says so and exits 1).
import type { CompiledCommand } from '../../core/descriptor/types.ts';
import type { DaemonCore } from './core.ts';
import { optInStates } from './hello.ts';

/** `spec`: the command that declares the carrier (its opt-in is off); `session`: idle. */
export function carrierOffNote(core: DaemonCore, spec: CompiledCommand, session: string): string {
  const states = optInStates(core.d, (k) => core.mapper.configValue(k));
  const envOf = (key: string | undefined) => states.find((o) => o.key === key)?.env;
  const nt = envOf(spec.nextTurn!.optIn) ?? spec.nextTurn!.optIn;
  const own = envOf(spec.optIn);
  return (
    `next-turn-off: session ${session} is idle and the ${core.vendor} next-turn carrier is off, so nothing wakes it: ` +
    `the instruction waits for the session's next prompt. To reach idle sessions, restart \`hookmap up\` with ` +
    `${nt}=true${own ? ` (with ${own}=true)` : ''} and run \`hookmap setup ${core.vendor}\` (it wires the next-turn waiter); ` +
    `sessions started after that are woken`
  );
}
