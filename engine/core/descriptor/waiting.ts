// A descriptor's waiting signs (schema `waiting`, docs/watch.md): which
// firings say the agent shows its own dialog or waits at its terminal. Each
// `when` is compiled at the defer position (the raw payload, $hook, $agent,
// $config, $surface); a sign naming a hook the descriptor lacks is an error.
// `unless` names the hooks expected next: the sign holds only when none of
// them came in time (engine/runtime/daemon/waiting-sign.ts waits for them).
// Limit signs (schema `limits`) are compiled the same way: firings in which
// the agent says it stopped on a rate or usage limit, and when it resets.
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

/** What a limit sign says, wherever it is read (a firing's payload, a transcript line). */
export interface LimitRule {
  when: Expr;
  /** The expressions' sources (the capability page shows them). */
  text: { when: string; resetsAt?: string; resetsInS?: string };
  kind: 'rate_limit' | 'usage_limit';
  /** When the limit resets (epoch seconds or an ISO time), if the firing says. */
  resetsAt?: Expr;
  /** Seconds from the firing until the reset, if the firing says. */
  resetsInS?: Expr;
  /** The agent retries by itself at the reset (it did not stop). */
  agentRetries?: true;
  evidence: string;
}

/** A limit sign of a hook (schema `limits`). */
export interface LimitSign extends LimitRule {
  hook: string;
}

export interface LimitDoc {
  when: string;
  kind: LimitRule['kind'];
  resets_at?: string;
  resets_in_s?: string;
  agent_retries?: boolean;
  evidence: string;
}

/** One limit rule at `at` (its schema position). */
export function compileLimitRule(x: Expressions, l: LimitDoc, at: (string | number)[], site: Site): LimitRule {
  const resetsAt = l.resets_at === undefined ? undefined : x.expr(l.resets_at, [...at, 'resets_at'], site);
  const inS = l.resets_in_s === undefined ? undefined : x.expr(l.resets_in_s, [...at, 'resets_in_s'], site);
  return {
    when: x.expr(l.when, [...at, 'when'], site)!,
    text: { when: l.when, ...(l.resets_at ? { resetsAt: l.resets_at } : {}), ...(l.resets_in_s ? { resetsInS: l.resets_in_s } : {}) },
    kind: l.kind,
    evidence: l.evidence,
    ...(resetsAt ? { resetsAt } : {}),
    ...(inS ? { resetsInS: inS } : {}),
    ...(l.agent_retries ? { agentRetries: true as const } : {}),
  };
}

export function compileLimits(x: Expressions, list: (LimitDoc & { hook: string })[] | undefined, hooks: ReadonlySet<string>, site: Site): LimitSign[] {
  return present(list).map(([l, i]) => {
    if (!hooks.has(l.hook))
      x.err('unknown-reference', ['limits', i, 'hook'], `limit sign '${l.kind}' names hook '${l.hook}', which this descriptor does not map`);
    return { hook: l.hook, ...compileLimitRule(x, l, ['limits', i], site) };
  });
}

/** The signs beside the mapping: waiting (a person) and limits (a reset). */
export function compileSigns(x: Expressions, s: { waiting?: WaitingDoc[]; limits?: (LimitDoc & { hook: string })[] }, hooks: ReadonlySet<string>, site: Site) {
  return { waiting: compileWaiting(x, s.waiting, hooks, site), limits: compileLimits(x, s.limits, hooks, site) };
}
