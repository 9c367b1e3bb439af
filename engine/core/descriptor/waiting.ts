// A descriptor's waiting signs (schema `waiting`, docs/watch.md): which
// firings say the agent shows its own dialog or waits at its terminal. Each
// `when` is compiled at the defer position (the raw payload, $hook, $agent,
// $config, $surface); a sign naming a hook the descriptor lacks is an error.
// `unless` names the hooks expected next: the sign holds only when none of
// them came in time (engine/runtime/daemon/waiting-sign.ts waits for them).
import type { Expr } from '../expr/compile.ts';
import type { Expressions, Site } from './expressions.ts';
import { present } from './list-helpers.ts';

export interface WaitingSign {
  hook: string;
  when: Expr;
  whenText: string;
  reason: 'permission' | 'input' | 'question';
  sign: string;
  evidence: string;
  /** A hook expected next: the sign holds only when none of `hooks` fires in the session within `withinMs`. */
  unless?: { hooks: string[]; withinMs: number };
}

interface WaitingDoc {
  hook: string;
  when: string;
  reason: WaitingSign['reason'];
  sign: string;
  evidence: string;
  unless?: { hooks: string[]; within_ms: number };
}

export function compileWaiting(x: Expressions, list: WaitingDoc[] | undefined, hooks: ReadonlySet<string>, site: Site): WaitingSign[] {
  return present(list).map(([w, i]) => {
    if (!hooks.has(w.hook))
      x.err('unknown-reference', ['waiting', i, 'hook'], `waiting sign '${w.sign}' names hook '${w.hook}', which this descriptor does not map`);
    for (const [j, h] of (w.unless?.hooks ?? []).entries())
      if (!hooks.has(h))
        x.err('unknown-reference', ['waiting', i, 'unless', 'hooks', j], `waiting sign '${w.sign}' expects hook '${h}', which this descriptor does not map`);
    const unless = w.unless && { hooks: [...new Set(w.unless.hooks)], withinMs: w.unless.within_ms };
    const when = x.expr(w.when, ['waiting', i, 'when'], site)!;
    return { hook: w.hook, when, whenText: w.when, reason: w.reason, sign: w.sign, evidence: w.evidence, ...(unless ? { unless } : {}) };
  });
}
