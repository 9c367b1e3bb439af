// A command rule's match (issue 22 "Rules that understand what is asked"):
// `exact:` or `prefix:` compares the words of one parsed simple command, after
// quote removal, with the rule's words. Anything beyond one plain command is
// refused, never guessed at: lists (`;`, `&&`, `||`, a newline), pipelines,
// `&`, redirections and here-documents, subshells and groups, substitutions,
// variables, globs and other expansions in a word, environment prefixes
// (unless the rule allows them), commands that run other commands (`env`,
// `command`, `exec`, `xargs`, `bash -c`, `eval` ...), non-ASCII characters
// the rule does not itself contain (lookalike letters, zero-width spaces),
// and whatever does not parse. A refusal is `match: false` with the reason.
import { parseShell, type ShellNode } from './parse.ts';
import { runsOtherCommands } from './runners.ts';
import { readWord, WORD_TYPES } from './words.ts';

export interface CommandRule {
  exact?: string;
  prefix?: string;
  /** allow `NAME=value` prefixes before the command (their values must be plain literals) */
  allowEnv?: boolean;
}

export interface CommandMatch {
  match: boolean;
  why: string;
}

/**
 * A command line read once for every rule: the words of exactly one plain
 * simple command and its `NAME=value` prefixes, or why it is not one.
 */
export type PlainCommand = { text: string; words: string[]; env: string[]; envRefused?: string } | { text: string; refused: string };

export function readPlainCommand(command: string): PlainCommand {
  const refuse = (refused: string) => ({ text: command, refused });
  for (const c of command) {
    const code = c.codePointAt(0)!;
    if (c === '\n' || c === '\r') return refuse('has a line break (a second command)');
    if ((code < 0x20 && c !== '\t') || code === 0x7f) return refuse(`has a control character (U+${hex(code)})`);
  }
  const root = parseShell(command);
  if (!root) return refuse('cannot be parsed');
  const top = root.children;
  if (top.length === 0) return refuse('is empty');
  if (top.length > 1) return refuse(`is more than one command (${describe(top.find((n) => n !== top[0]) ?? top[0]!)})`);
  const only = top[0]!;
  if (only.type !== 'command') return refuse(`is not a plain command (${describe(only)})`);
  // every character outside whitespace must be in the tree: nothing the grammar skipped can ride along
  if (visible(leaves(only)) !== visible(command)) return refuse('has text the parser did not place in the command');
  const words: string[] = [];
  const env: string[] = [];
  let envRefused: string | undefined;
  for (const part of only.children) {
    if (part.type === 'variable_assignment') {
      env.push(part.text);
      const value = part.children.slice(2)[0];
      if (value && !plainWord(value)) envRefused ??= `sets the environment from an expansion (${part.text})`;
      continue;
    }
    const node = part.type === 'command_name' ? part.children[0] : part;
    if (!node || !WORD_TYPES.has(node.type)) return refuse(`has ${describe(part)}`);
    const word = plainWord(node);
    if (word === undefined) return refuse(`has a word the shell would expand (${node.text})`);
    words.push(word);
  }
  if (words.length === 0) return refuse('runs no command');
  if (runsOtherCommands(words[0]!)) return refuse(`runs another command through ${words[0]} (the floor reads inside; a rule never allows it)`);
  return { text: command, words, env, envRefused };
}

function leaves(node: ShellNode): string {
  return node.children.length ? node.children.map(leaves).join('') : node.text;
}

const visible = (text: string) => [...text].filter((c) => c !== ' ' && c !== '\t').join('');

function plainWord(node: ShellNode): string | undefined {
  const word = readWord(node, '~');
  return word.literal && !word.pattern && !word.home ? word.text : undefined;
}

const DESCRIPTIONS: Record<string, string> = {
  list: 'a && or || list',
  pipeline: 'a pipeline',
  redirected_statement: 'a redirection',
  subshell: 'a subshell',
  compound_statement: 'a { } group',
  comment: 'a comment',
  '&': 'a background &',
  ';': 'a ; separator',
  function_definition: 'a function definition',
  herestring_redirect: 'a here-string',
  heredoc_redirect: 'a here-document',
  file_redirect: 'a redirection',
  negated_command: 'a ! negation',
  variable_assignment: 'an assignment',
  declaration_command: 'a declaration',
};

function describe(node: ShellNode): string {
  return DESCRIPTIONS[node.type] ?? `a ${node.type.replace(/_/g, ' ')}`;
}

const hex = (code: number) => code.toString(16).toUpperCase().padStart(4, '0');

/** the first character of `s` beyond ASCII that `allowed` does not itself contain */
const nonAscii = (s: string, allowed: string) => [...s].find((c) => c.codePointAt(0)! > 0x7e && !allowed.includes(c));

/** A command rule read once: its kind and words, or why it cannot allow anything. */
export type CompiledCommandRule = { kind: 'exact' | 'prefix'; text: string; words: string[]; allowEnv: boolean } | { error: string };

export function compileCommandRule(rule: CommandRule): CompiledCommandRule {
  const kind = rule.exact !== undefined ? 'exact' : rule.prefix !== undefined ? 'prefix' : undefined;
  if (!kind || (rule.exact !== undefined && rule.prefix !== undefined)) return { error: 'the rule needs exactly one of exact or prefix' };
  const text = (kind === 'exact' ? rule.exact : rule.prefix)!;
  const read = readPlainCommand(text);
  if ('refused' in read) return { error: `the rule cannot be read as one plain command: it ${read.refused}` };
  if (read.env.length) return { error: 'the rule cannot be read as one plain command: it sets the environment (say allowEnv instead)' };
  return { kind, text, words: read.words, allowEnv: rule.allowEnv === true };
}

/** Does a compiled rule allow a command line read by readPlainCommand? */
export function matchPlainCommand(rule: CompiledCommandRule, command: PlainCommand): CommandMatch {
  if ('error' in rule) return { match: false, why: rule.error };
  const odd = nonAscii(command.text, rule.text);
  if (odd !== undefined) return { match: false, why: `the command has a non-ASCII character (U+${hex(odd.codePointAt(0)!)}) the rule does not` };
  if ('refused' in command) return { match: false, why: `the command ${command.refused}` };
  if (command.env.length && !rule.allowEnv)
    return { match: false, why: `the command sets the environment (${command.env.join(' ')}) and the rule does not allow that` };
  if (command.envRefused) return { match: false, why: `the command ${command.envRefused}` };
  const want = rule.words;
  const words = command.words;
  if (rule.kind === 'exact' && words.length !== want.length) return { match: false, why: `the command has ${words.length} words, the rule ${want.length}` };
  if (words.length < want.length) return { match: false, why: 'the command is shorter than the prefix' };
  const differs = want.findIndex((w, i) => words[i] !== w);
  if (differs >= 0) return { match: false, why: `word ${differs + 1} is ${JSON.stringify(words[differs])}, the rule says ${JSON.stringify(want[differs])}` };
  return { match: true, why: `${rule.kind} match on ${JSON.stringify(want.join(' '))}` };
}

/** Does a command rule allow this command line? (Many rules: compile each once, read the command once.) */
export function matchCommand(rule: CommandRule, command: string): CommandMatch {
  return matchPlainCommand(compileCommandRule(rule), readPlainCommand(command));
}
