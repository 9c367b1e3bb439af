// The floor's reading of a command line (issue 22 "A floor no rule can
// cross"): every simple command it would run, wherever it sits (lists,
// pipelines, subshells, groups, loops, functions, command and process
// substitutions), each with the redirections that apply to it and its place
// in a pipeline. Commands that run other commands are read through:
// wrappers (`env`, `command`, `exec`, `xargs`, `nohup`, `sudo` ...) add the
// command they run, `sh -c` / `bash -c` / `su -c` / `eval` strings are parsed
// in turn, and a shell fed a here-document or here-string reads it as a
// script. What cannot be read (a `-c` script built at run time, nesting
// deeper than MAX_DEPTH) is recorded, and the floor sends it to a person.
import { basename } from 'node:path';
import { parseShell, type ShellNode } from './parse.ts';
import { EVALUATORS, SHELLS, WRAPPERS, wrappedStart } from './runners.ts';
import { readWord, WORD_TYPES, type ShellWord } from './words.ts';

export interface ShellRedirect {
  /** the operator: `>`, `>>`, `&>`, `<`, `<<`, `<<<`, `>&` ... */
  op: string;
  target?: ShellWord;
  /** a here-document's or here-string's text */
  body?: string;
}

export interface ReadCommand {
  words: ShellWord[];
  /** the command's name without its directory (`/usr/bin/sudo` is `sudo`) */
  name: string;
  redirects: ShellRedirect[];
  /** which pipeline and which stage of it (0 first), when it is in one */
  pipe?: { id: number; stage: number };
  /** commands inside this command's words ($(…), `…`, <(…)) */
  substituted: ReadCommand[];
  /** the wrapper or shell it was read out of */
  via?: string;
  /** the option of the command before it that runs it (`find … -exec CMD ;`): a command of its own, which rules match too */
  runBy?: string;
  /** `NAME=value` prefixes it runs with (`GIT_PAGER=… git log`) */
  assignments?: { name: string; value: ShellWord }[];
}

export interface ShellReading {
  commands: ReadCommand[];
  /** why part of it cannot be read (the floor sends it to a person) */
  unreadable?: string;
  /** a `cd`, `pushd` or `popd` runs: relative paths after it are not relative to the cwd given */
  changesDirectory: boolean;
}

const MAX_DEPTH = 4;
const REDIRECTS = new Set(['file_redirect', 'heredoc_redirect', 'herestring_redirect']);

interface Context {
  redirects: ShellRedirect[];
  pipe?: { id: number; stage: number };
}

class Reader {
  commands: ReadCommand[] = [];
  unreadable?: string;
  private pipes = 0;
  constructor(
    private readonly home: string,
    private readonly depth: number,
  ) {}

  walk(node: ShellNode, ctx: Context, into: ReadCommand[]): void {
    if (node.type === 'command') return this.command(node, ctx, into);
    if (node.type === 'redirected_statement') {
      const trailing: ShellNode[] = [];
      const redirects = node.children.filter((c) => REDIRECTS.has(c.type)).flatMap((r) => this.redirect(r, into, trailing));
      const inner = { ...ctx, redirects: [...ctx.redirects, ...redirects] };
      const pipeline = trailing.find((t) => t.type === 'pipeline');
      // `cat <<EOF | sh`: the grammar hangs the rest of the pipeline on the here-document
      const id = pipeline ? ++this.pipes : 0;
      const body = node.children.filter((c) => !REDIRECTS.has(c.type));
      // `> ~/.bashrc` alone still writes the file
      if (body.length === 0) this.record({ words: [], name: '', redirects: inner.redirects, pipe: ctx.pipe, substituted: [] }, into);
      for (const c of body) this.walk(c, pipeline ? { ...inner, pipe: { id, stage: 0 } } : inner, into);
      pipeline?.children.filter((c) => c.named).forEach((stage, i) => this.walk(stage, { ...ctx, pipe: { id, stage: i + 1 } }, into));
      for (const t of trailing) if (t !== pipeline) this.walk(t, ctx, into);
      return;
    }
    if (node.type === 'pipeline') {
      const id = ++this.pipes;
      node.children.filter((c) => c.named).forEach((stage, i) => this.walk(stage, { ...ctx, pipe: { id, stage: i } }, into));
      return;
    }
    // `>(sh)` reads what is written to it, as a pipe's next stage would
    const pipe = node.type === 'process_substitution' && node.text.startsWith('>(') ? { id: ++this.pipes, stage: 1 } : ctx.pipe;
    for (const c of node.children) if (c.named) this.walk(c, { ...ctx, pipe }, into);
  }

  private record(cmd: ReadCommand, into: ReadCommand[]): void {
    into.push(cmd);
    if (into !== this.commands) this.commands.push(cmd);
  }

  private command(node: ShellNode, ctx: Context, into: ReadCommand[]): void {
    const cmd: ReadCommand = { words: [], name: '', redirects: [...ctx.redirects], pipe: ctx.pipe, substituted: [] };
    const trailing: ShellNode[] = [];
    for (const part of node.children) {
      const wordNode = part.type === 'command_name' ? part.children[0] : part;
      if (REDIRECTS.has(part.type)) cmd.redirects.push(...this.redirect(part, cmd.substituted, trailing));
      else if (part.type === 'variable_assignment') {
        const value = part.children.slice(2)[0];
        const word = value && WORD_TYPES.has(value.type) ? readWord(value, this.home) : { text: '', source: '', literal: true, pattern: false, home: false };
        (cmd.assignments ??= []).push({ name: part.children[0]?.text ?? '', value: word });
        this.walk(part, { redirects: [] }, cmd.substituted);
      } else if (wordNode && WORD_TYPES.has(wordNode.type)) {
        cmd.words.push(readWord(wordNode, this.home));
        this.walk(wordNode, { redirects: [] }, cmd.substituted);
      } else this.walk(part, { redirects: [] }, cmd.substituted);
    }
    cmd.name = cmd.words[0] ? basename(cmd.words[0].text) : '';
    const first = cmd.words[0];
    if (first && (!first.literal || first.pattern)) this.cannot(`runs a command whose name is decided at run time (${first.source})`);
    this.record(cmd, into);
    this.through(cmd);
    // commands the grammar hung on a here-document inside this command still run
    for (const t of trailing) this.walk(t, { redirects: [] }, into);
  }

  /** A redirection (and those the grammar nests in a here-document's line); what else hangs there goes to `trailing`. */
  private redirect(node: ShellNode, into: ReadCommand[], trailing: ShellNode[]): ShellRedirect[] {
    const op = node.children.find((c) => !c.named)?.text ?? '';
    const target = node.children.find((c) => c.named && WORD_TYPES.has(c.type));
    if (target) this.walk(target, { redirects: [] }, into);
    if (node.type === 'file_redirect') return [{ op, target: target && readWord(target, this.home) }];
    if (node.type === 'herestring_redirect') return [{ op, body: target && readWord(target, this.home).text }];
    const body = node.children.find((c) => c.type === 'heredoc_body')?.text ?? '';
    const start = node.children.find((c) => c.type === 'heredoc_start')?.text ?? '';
    if (![...start].some((c) => c === "'" || c === '"' || c === '\\')) this.expansionsIn(body, into);
    const nested = node.children.filter((c) => c.type === 'file_redirect').flatMap((c) => this.redirect(c, into, trailing));
    trailing.push(...node.children.filter((c) => c.named && !c.type.startsWith('heredoc_') && c.type !== 'file_redirect'));
    return [{ op, body }, ...nested];
  }

  /**
   * An unquoted here-document expands `$(…)`, backticks and variables as a
   * double-quoted string does (the grammar leaves backticks there unparsed):
   * read it as one, so the commands inside count.
   */
  private expansionsIn(body: string, into: ReadCommand[]): void {
    const asString = parseShell(`"${[...body].map((c) => (c === '"' ? '\\"' : c)).join('')}"`);
    if (!asString) return this.cannot('has a here-document whose expansions cannot be read');
    // the tree is program > command > command_name > string: read what is inside the string
    const str = asString.children[0]?.children[0]?.children[0];
    if (asString.children.length !== 1 || str?.type !== 'string') return this.cannot('has a here-document whose expansions cannot be read');
    for (const part of str.children) if (part.named) this.walk(part, { redirects: [] }, into);
  }

  /** the commands a wrapper, a shell or eval runs */
  private through(cmd: ReadCommand): void {
    const texts = cmd.words.map((w) => w.text);
    if (cmd.name === 'command' && (texts.includes('-v') || texts.includes('-V'))) return; // only looks the name up
    if (cmd.name === 'find') return this.findExec(cmd, texts);
    if (WRAPPERS.has(cmd.name) && !(cmd.name === 'su' && scriptOption(texts))) {
      const start = wrappedStart(texts);
      if (start === undefined) return;
      const inner: ReadCommand = { ...cmd, words: cmd.words.slice(start), name: basename(texts[start]!), substituted: [], via: cmd.name };
      this.commands.push(inner);
      return this.through(inner);
    }
    if (SHELLS.has(cmd.name) || cmd.name === 'su') {
      const script = scriptOption(texts);
      if (script !== undefined) {
        const word = cmd.words[script];
        if (!word) return this.cannot(`${cmd.name} -c without a script`);
        if (!word.literal) return this.cannot(`${cmd.name} -c runs a script built at run time (${word.source})`);
        return this.nested(word.text, cmd);
      }
      for (const r of cmd.redirects) if (r.body !== undefined) this.nested(r.body, cmd);
      const readsInput = texts.slice(1).every((t) => t.startsWith('-'));
      if (readsInput && cmd.pipe && cmd.pipe.stage > 0) this.cannot(`${cmd.name} reads its script from a pipe`);
      return;
    }
    if (cmd.name === 'trap') {
      const action = cmd.words.slice(1).find((w) => !w.text.startsWith('-'));
      if (action && !action.literal) return this.cannot(`trap runs text built at run time (${action.source})`);
      if (action) this.nested(action.text, cmd);
      return;
    }
    if (cmd.name === 'alias' && cmd.words.some((w) => w.text.includes('='))) return this.cannot('defines an alias (what it runs later is not read)');
    if (cmd.name === 'eval') {
      const args = cmd.words.slice(1);
      if (args.some((w) => !w.literal)) return this.cannot(`eval runs text built at run time (${args.map((w) => w.source).join(' ')})`);
      this.nested(args.map((w) => w.text).join(' '), cmd);
    }
  }

  /** `find … -exec CMD … ;` runs CMD on every path it finds */
  private findExec(cmd: ReadCommand, texts: string[]): void {
    texts.forEach((t, i) => {
      if (!['-exec', '-execdir', '-ok', '-okdir'].includes(t) || i + 1 >= texts.length) return;
      let end = i + 1;
      while (end < texts.length && texts[end] !== ';' && texts[end] !== '+') end++;
      const words = cmd.words.slice(i + 1, end);
      const inner: ReadCommand = { ...cmd, words, name: basename(texts[i + 1]!), substituted: [], via: 'find', runBy: `find ${t}` };
      this.commands.push(inner);
      this.through(inner);
    });
  }

  private nested(script: string, outer: ReadCommand): void {
    if (this.depth >= MAX_DEPTH) return this.cannot('scripts nested too deep to read');
    const inner = readShell(script, this.home, this.depth + 1);
    if (inner.unreadable) this.cannot(`${outer.name} runs a script that ${inner.unreadable}`);
    for (const c of inner.commands)
      this.commands.push({
        ...c,
        via: c.via ?? outer.name,
        pipe: c.pipe ?? outer.pipe,
        redirects: [...outer.redirects.filter((r) => !r.op.startsWith('<')), ...c.redirects],
      });
  }

  private cannot(why: string): void {
    this.unreadable ??= why;
  }
}

/** The index of a shell's `-c` script (`-c`, `-lc`, `-ec` ...), or undefined. */
function scriptOption(words: string[]): number | undefined {
  for (let i = 1; i < words.length; i++) {
    const w = words[i]!;
    if (w === '--command' || (w.startsWith('-') && !w.startsWith('--') && w.slice(1).includes('c'))) {
      let j = i + 1;
      while (j < words.length && words[j]!.startsWith('-') && words[j] !== '-') j++;
      return j;
    }
    if (!w.startsWith('-') && !w.startsWith('+')) return undefined;
  }
  return undefined;
}

export function readShell(command: string, home: string, depth = 0): ShellReading {
  const root = parseShell(command);
  if (!root) return { commands: [], unreadable: 'does not parse', changesDirectory: false };
  const reader = new Reader(home, depth);
  reader.walk(root, { redirects: [] }, reader.commands);
  const changesDirectory = reader.commands.some((c) => c.name === 'cd' || c.name === 'pushd' || c.name === 'popd');
  return { commands: reader.commands, unreadable: reader.unreadable, changesDirectory };
}

export { EVALUATORS };
