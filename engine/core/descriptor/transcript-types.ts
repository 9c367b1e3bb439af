// The compiled form of the descriptor's `transcript` (engine/core/descriptor/transcript.ts):
// where an agent keeps each response's token usage, and how `hookmap history import`
// reads the sessions it kept before hookmap.
import type { Expr } from '../expr/compile.ts';
import type { LimitRule } from './waiting.ts';

/** A transcript usage source (the descriptor's `transcript`): where the agent keeps each response's token usage. */
export interface CompiledTranscript {
  path: Expr;
  /** A part of the session with its own transcript (a sub-agent's): its name, from the payload. */
  part?: Expr;
  /** Literal folders (`~/` = home) or expressions over `$home` / `$config`. */
  folders: (string | Expr)[];
  readOn: Set<string>;
  maxBytes: number;
  maxLineBytes: number;
  when?: Expr;
  id?: Expr;
  model?: Expr;
  usage: Expr;
  /** Lines that say the agent stopped on a rate or usage limit (the descriptor's `transcript.limits`). */
  limits: LimitRule[];
  /** How `hookmap history import` reads the sessions kept before hookmap (the descriptor's `transcript.import`). */
  import?: CompiledImport;
}

/** The descriptor's `transcript.import`: expressions over each line of a past session's file. */
export interface CompiledImport {
  /** File names to read (`*` wildcards), as a whole-name pattern. */
  files: RegExp;
  session: Expr;
  time?: Expr;
  cwd?: Expr;
  run?: Expr;
  tools?: Expr;
  results?: Expr;
  maxFileBytes: number;
  maxFiles: number;
}
