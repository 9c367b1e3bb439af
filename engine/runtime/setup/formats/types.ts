// A config FORMAT strategy: how hook registrations live inside one kind of
// agent config. Formats are picked by the descriptor's `setup.shape` (else
// `format`); none of them knows which agent it is writing for: everything
// agent-specific arrives as data (FormatOptions, the registrations).
//
// Three storage kinds:
//   json  one JSON document (parsed, rewritten with the file's own indent)
//   text  one text file edited as text (TOML block, YAML document, a whole
//         generated file hookmap owns)
//   dir   a directory of files, one per hook (hookmap writes only its own)
import type { HandlerShape } from '../../../core/descriptor/setup-spec.ts';
import type { Handler } from '../recognize.ts';
import type { Registration } from '../registrations.ts';

export type Json = Record<string, unknown>;

export interface Entry {
  hook: string;
  handler: Handler;
}

export interface FormatOptions {
  /** The agent id (markers and fences name it; never compared against a literal). */
  agent: string;
  /** Unit of the handler's `timeout` field per handler kind; undefined writes none. */
  timeoutUnit: { command?: 's' | 'ms'; http?: 's' | 'ms' };
  /** Explicit timeouts in that unit, by hook or `default` (else the registration's timeoutMs). */
  timeouts: Record<string, number>;
  /** A matcher on hookmap's groups (only for `matcherHooks` when given). */
  matcher?: string;
  matcherHooks?: string[];
  /** A `name` field on hookmap's handlers. */
  name?: string;
  /** Constant fields on every hookmap handler (setup.fields, e.g. {type: command}). */
  fields: Json;
  /** Top-level keys written when the file lacks them (setup.defaults, e.g. {version: 1}). */
  defaults: Json;
  /** The handler's own field names (setup.handler): command field(s), timeout field, recognising fields. */
  handler: HandlerShape;
  /** The named entry hookmap owns (named-hook-groups; setup.entry, default "hookmap"). */
  entry: string;
  /** File name per hook (hooks-dir; setup.file_names), else the hook name. */
  fileNames: Record<string, string>;
  /** The whole generated file an `owned` format writes (plugin-file), stamp line first. */
  artifact?: string;
}

export interface JsonFormat {
  kind: 'json';
  /** Make hookmap's entries exactly `regs`; everything else stays as it was. Returns a new document. */
  install(doc: Json, regs: Registration[], ours: (h: Handler) => boolean, opts: FormatOptions): Json;
  /** Remove hookmap's entries, pruning only containers our removal emptied. Returns a new document. */
  remove(doc: Json, ours: (h: Handler) => boolean, opts: FormatOptions): Json;
  /** Every handler in the document, by hook (doctor). */
  entries(doc: Json): Entry[];
}

export interface TextFormat {
  kind: 'text';
  /** The whole file is hookmap's (a generated plugin): no backup, uninstall deletes it. */
  owned?: boolean;
  install(text: string, regs: Registration[], ours: (h: Handler) => boolean, opts: FormatOptions): string;
  /** The text without hookmap's entries; the input itself when there were none. */
  remove(text: string, ours: (h: Handler) => boolean, opts: FormatOptions): string;
  entries(text: string, opts: FormatOptions): Entry[];
  /** A comparison form ("did anything but our entries change"); identity when absent. */
  canonical?(text: string): string;
  /** True when the text holds nothing worth keeping (a file only we created can go). */
  empty?(text: string): boolean;
}

/** A directory's regular files, name -> text. */
export type DirFiles = Map<string, string>;

export interface DirFormat {
  kind: 'dir';
  /** The files after install: ours added or rewritten, every other file untouched. */
  install(files: DirFiles, regs: Registration[], ours: (h: Handler) => boolean, opts: FormatOptions): DirFiles;
  remove(files: DirFiles, ours: (h: Handler) => boolean, opts: FormatOptions): DirFiles;
  entries(files: DirFiles, opts: FormatOptions): Entry[];
  /** File mode of the files this format writes. */
  mode: number;
}

export type ConfigFormat = JsonFormat | TextFormat | DirFormat;

export class FormatError extends Error {}
