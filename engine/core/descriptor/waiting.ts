// A descriptor's waiting signs (schema `waiting`, docs/watch.md): which
// firings say the agent shows its own dialog or waits at its terminal. Each
// `when` is compiled at the defer position (the raw payload, $hook, $agent,
// $config, $surface); a sign naming a hook the descriptor lacks is an error.
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
}

interface WaitingDoc {
  hook: string;
  when: string;
  reason: WaitingSign['reason'];
  sign: string;
  evidence: string;
}

export function compileWaiting(x: Expressions, list: WaitingDoc[] | undefined, hooks: ReadonlySet<string>, site: Site): WaitingSign[] {
  return present(list).map(([w, i]) => {
    if (!hooks.has(w.hook))
      x.err('unknown-reference', ['waiting', i, 'hook'], `waiting sign '${w.sign}' names hook '${w.hook}', which this descriptor does not map`);
    return { hook: w.hook, when: x.expr(w.when, ['waiting', i, 'when'], site)!, whenText: w.when, reason: w.reason, sign: w.sign, evidence: w.evidence };
  });
}
