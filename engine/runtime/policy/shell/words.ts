// A shell word after quote removal (issue 22: rules compare the parsed words,
// never the string). A word is read from its syntax node: unquoted text with
// its backslash escapes, 'single' and "double" quoted parts, and the
// expansions the shell would perform. Only `~`, `$HOME` and `${HOME}` are
// resolved (to the home the caller gives, for the floor's path rows); any
// other expansion leaves the word unresolved, and a glob character outside
// quotes marks it as a pattern. A rule matches only words that are plain
// literals; the floor reads unresolved words as "could be anything".
import type { ShellNode } from './parse.ts';

export interface ShellWord {
  /** the word after quote removal; unresolved expansions keep their source text */
  text: string;
  /** the source text, quotes included */
  source: string;
  /** no expansion the shell would perform (variables, substitutions, `$'…'`) */
  literal: boolean;
  /** an unquoted glob or brace character: the shell would expand it */
  pattern: boolean;
  /** `~`, `$HOME` or `${HOME}` was expanded to the home given */
  home: boolean;
}

const GLOB = new Set(['*', '?', '[', ']', '{', '}']);
/** unquoted characters a plain literal word never has (history, comments, tilde elsewhere) */
const UNSAFE = new Set(['!', '#', '~']);
/** inside double quotes, a backslash escapes only these (bash manual, "Double Quotes") */
const DQ_ESCAPABLE = new Set(['$', '`', '"', '\\']);

export function readWord(node: ShellNode, home: string): ShellWord {
  const word: ShellWord = { text: '', source: node.text, literal: true, pattern: false, home: false };
  append(word, node, home, true);
  // `{}` alone is no brace expansion (bash needs a comma or a sequence inside): find -exec's placeholder is a plain word
  if (node.text === '{}') word.pattern = false;
  return word;
}

function append(word: ShellWord, node: ShellNode, home: string, first: boolean): void {
  switch (node.type) {
    case 'word':
      return unquoted(word, node.text, home, first);
    case 'number':
      word.text += node.text;
      return;
    case 'raw_string':
      word.text += node.text.slice(1, -1);
      return;
    case 'string':
      for (const part of node.children) {
        if (!part.named) continue;
        if (part.type === 'string_content') word.text += doubleQuoted(part.text);
        else append(word, part, home, false);
      }
      return;
    case 'concatenation':
      node.children.forEach((part, i) => append(word, part, home, first && i === 0));
      return;
    case 'simple_expansion':
    case 'expansion':
      if (node.text === '$HOME' || node.text === '${HOME}') {
        word.text += home;
        word.home = true;
        return;
      }
      word.text += node.text;
      word.literal = false;
      return;
    default:
      // command/process substitution, arithmetic, $'…', $"…": not read
      word.text += node.text;
      word.literal = false;
  }
}

function unquoted(word: ShellWord, text: string, home: string, first: boolean): void {
  let i = 0;
  if (first && text.startsWith('~') && (text.length === 1 || text[1] === '/')) {
    word.text += home;
    word.home = true;
    i = 1;
  }
  for (; i < text.length; i++) {
    const c = text[i]!;
    if (c === '\\') {
      const next = text[i + 1];
      if (next === undefined || next === '\n') {
        word.literal = false;
        return;
      }
      word.text += next;
      i++;
      continue;
    }
    if (GLOB.has(c)) word.pattern = true;
    else if (UNSAFE.has(c) || c === '$' || c === '`') word.literal = false;
    word.text += c;
  }
}

function doubleQuoted(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    const next = text[i + 1];
    if (c === '\\' && next !== undefined && DQ_ESCAPABLE.has(next)) {
      out += next;
      i++;
    } else out += c;
  }
  return out;
}

/** The word types a command's argument can be (anything else is an operator, a redirect, a comment). */
export const WORD_TYPES = new Set([
  'word',
  'number',
  'raw_string',
  'string',
  'concatenation',
  'simple_expansion',
  'expansion',
  'command_substitution',
  'process_substitution',
  'arithmetic_expansion',
  'ansi_c_string',
  'translated_string',
]);
