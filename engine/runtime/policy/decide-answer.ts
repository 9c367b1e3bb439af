// Which answer a held request gets from the rules (docs/rules.md), before a
// card goes out. Every rule that matches is considered, wherever it is
// written: a `deny` wins, then an `ask` (so a narrower rule carves an
// exception out of a broader allow), then an `allow`. An `allow` is then put
// to the floor: a shape that always goes to a human (shell/floor.ts, and the
// path rows for a tool's own paths) turns it back into a card, saying which
// row kept it. An allow written in a policy file that lies inside the
// request's own project, or in any git work tree, never counts: a file that
// came with a cloned repository grants nothing by itself.
import { homedir } from 'node:os';
import { posix } from 'node:path';
import { evaluate } from '../../core/expr/compile.ts';
import { matchAnswerRule, readSubject, type AnswerRule, type AnswerVerb } from './answer-rule.ts';
import { readShell } from './shell/commands.ts';
import { floorHit, type FloorHit } from './shell/floor.ts';
import { quoteArgv } from './rule-words.ts';
import { floorPathHit } from './floor-tool-paths.ts';
import { inside } from './shell/paths.ts';
import type { AskSubject } from './subject.ts';

export interface AnswerDecision {
  /** `none`: no rule matched (a card goes out, as without rules). */
  verb: AnswerVerb | 'none';
  rule?: AnswerRule;
  /** An allow the floor kept for a human (`verb` is then `ask`). */
  floor?: FloorHit;
  why: string;
  /** Rules that matched but were set aside, with why (`rules test` prints them). */
  skipped: { rule: AnswerRule; why: string }[];
}

export interface DecideContext {
  home?: string;
  /** hookmap's own files, links followed (the floor keeps them for a person wherever they are) */
  own?: readonly string[];
  /** The request event, for rules' `when` ($agent, $hook, $session bound). */
  event?: unknown;
  say?: (line: string) => void;
}

const RANK: Record<AnswerVerb, number> = { deny: 0, ask: 1, allow: 2 };

async function whenHolds(r: AnswerRule, s: AskSubject, ctx: DecideContext): Promise<boolean> {
  if (!r.when) return true;
  try {
    return Boolean(await evaluate(r.when, ctx.event ?? {}, { agent: s.agent, hook: s.hook, session: s.session }));
  } catch (e) {
    ctx.say?.(`rule ${r.id}: its when could not be evaluated (${(e as Error).message}); the rule is skipped`);
    return false;
  }
}

/** The floor row the request hits, when an allow would otherwise answer it. */
export function floorOf(s: AskSubject, home: string, own?: readonly string[]): FloorHit | undefined {
  if (s.command !== undefined) {
    const hit = floorHit(s.command, { cwd: s.cwd, home, own });
    if (hit) return hit;
  }
  for (const p of s.paths) {
    const hit = floorPathHit(p, own);
    if (hit) return hit;
  }
  return undefined;
}

export async function decideAnswer(rules: readonly AnswerRule[], subject: AskSubject, ctx: DecideContext = {}): Promise<AnswerDecision> {
  const s = readSubject(subject);
  const skipped: AnswerDecision['skipped'] = [];
  let best: AnswerRule | undefined;
  for (const r of rules) {
    if (best && RANK[r.verb] >= RANK[best.verb]) continue; // cannot beat what already decides
    if (!matchAnswerRule(r, s).match) continue;
    if (!(await whenHolds(r, subject, ctx))) continue;
    if (r.verb === 'allow' && !r.origin.learned && (r.origin.repo || (subject.project && inside(posix.normalize(r.origin.file), subject.project)))) {
      skipped.push({
        rule: r,
        why:
          `written in ${r.origin.file}, inside the repository ${r.origin.repo ?? subject.project}: a ` +
          `rules file that comes with a repository grants nothing (keep allow rules outside any ` +
          `repository, or learn them: docs/rules.md)`,
      });
      continue;
    }
    best = r;
  }
  if (!best) return { verb: 'none', why: 'no rule matches', skipped };
  if (best.verb !== 'allow') return { verb: best.verb, rule: best, why: `rule ${best.id} ${best.verb === 'deny' ? 'denies' : 'asks a human'}`, skipped };
  const floor = floorOf(subject, ctx.home ?? homedir(), ctx.own);
  if (floor)
    return { verb: 'ask', rule: best, floor, why: `rule ${best.id} would allow this; the floor keeps it for you (${floor.row}: ${floor.why})`, skipped };
  // a command an option runs (find … -exec CMD ;) is a command of its own: the rules must allow it too
  for (const inner of optionRun(subject, ctx.home ?? homedir())) {
    const d = await decideAnswer(rules, { ...subject, command: inner.command }, ctx);
    if (d.verb === 'allow') continue;
    const runs = `rule ${best.id} would allow this, but ${inner.by} runs \`${inner.command}\``;
    if (d.verb === 'deny') return { ...d, why: `${runs}: ${d.why}`, skipped };
    return { verb: 'ask', rule: best, floor: d.floor, why: `${runs}, ${d.verb === 'none' ? 'which no rule allows' : `where ${d.why}`}`, skipped };
  }
  return { verb: 'allow', rule: best, why: `rule ${best.id} allows`, skipped };
}

/** The commands the request's options run, each as a command line of its own (its words quoted back). */
function optionRun(s: AskSubject, home: string): { by: string; command: string }[] {
  if (s.command === undefined) return [];
  return readShell(s.command, home)
    .commands.filter((c) => c.runBy !== undefined)
    .map((c) => ({ by: c.runBy!, command: quoteArgv(c.words.map((w) => w.text)) }));
}
