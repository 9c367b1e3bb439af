// What a learned rule is made of (engine/runtime/policy/rulebook.ts keeps the rules): the prefixes an
// "Allow always" proposes for a command, a rule id's readable part, and whether a rule already
// matches what a new one would.
import { shQuote } from '../shim/sh.ts';
import type { AnswerRule } from './answer-rule.ts';
import { compileCommandRule, readPlainCommand } from './shell/match.ts';

/** Words a shell reads as themselves unquoted (anything else is single-quoted). */
const BARE = /^[A-Za-z0-9_@%+=:,./-]+$/;

/**
 * An argv as one command line that parses back to exactly these words (an
 * exact rule's text): plain words bare, every other word single-quoted, so
 * `kubectl 'delete ns prod'` stays two words and never becomes four.
 */
export function quoteArgv(words: readonly string[]): string {
  return words.map((w) => (BARE.test(w) ? w : shQuote(w))).join(' ');
}

/** The words of a command a prefix rule proposes: the command and its first word that is not an option, or one word. */
export function proposePrefixes(command: string): string[] {
  const plain = readPlainCommand(command);
  if ('refused' in plain) return [];
  const w = plain.words;
  const out: string[] = [];
  for (let n = Math.min(w.length, 3); n >= 1; n--) out.push(w.slice(0, n).join(' '));
  // the default first: two words (`npm test`, `git status`) when the second is not an option
  const preferred = w.length >= 2 && !w[1].startsWith('-') ? w.slice(0, 2).join(' ') : w[0];
  return [preferred, ...out.filter((x) => x !== preferred)];
}

/** A rule id's readable part, from what the rule matches. */
export const slug = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 40) || 'rule';

/** An existing allow rule that matches exactly what `doc` would add (learning it again adds nothing). */
export function sameMatch(r: AnswerRule, doc: Record<string, unknown>): boolean {
  const c = doc.command as { exact?: string; prefix?: string } | undefined;
  const tool = doc.tool as string | undefined;
  if (r.verb !== 'allow' || (r.session ?? undefined) !== doc.session || (r.project ?? undefined) !== doc.project) return false;
  if ((r.tools ? [...r.tools].join('|') : undefined) !== tool) return false;
  if (r.agents && !r.agents.has(String(doc.agent))) return false;
  if (!c) return !r.command && !doc.path && !r.paths;
  if (!r.command || r.command.kind !== (c.exact !== undefined ? 'exact' : 'prefix')) return false;
  // the same words, however they are quoted (an older rule's `a b c` is not `a 'b c'`)
  const want = compileCommandRule(c);
  return !('error' in want) && want.words.length === r.command.words.length && want.words.every((w, i) => w === r.command!.words[i]);
}
