// A config FORMAT strategy: how hook registrations live inside one kind of
// agent config file. Formats are picked by the descriptor's `setup.format`;
// none of them knows which agent it is writing for.
import type { Handler } from '../recognize.ts';
import type { Registration } from '../registrations.ts';

export type Json = Record<string, unknown>;

export interface FormatOptions {
  /** Unit of the handler's `timeout` field per handler kind; undefined writes none. */
  timeoutUnit: { command?: 's' | 'ms'; http?: 's' | 'ms' };
  /** Explicit timeouts in that unit, by hook or `default` (else the registration's timeoutMs). */
  timeouts: Record<string, number>;
  /** A matcher on hookmap's groups (only for `matcherHooks` when given). */
  matcher?: string;
  matcherHooks?: string[];
  /** A `name` field on hookmap's handlers. */
  name?: string;
}

export interface ConfigFormat {
  /** Make hookmap's entries exactly `regs`; everything else stays as it was. Returns a new document. */
  install(doc: Json, regs: Registration[], ours: (h: Handler) => boolean, opts: FormatOptions): Json;
  /** Remove hookmap's entries, pruning only containers our removal emptied. Returns a new document. */
  remove(doc: Json, ours: (h: Handler) => boolean): Json;
  /** Every handler in the document, by hook (doctor). */
  entries(doc: Json): { hook: string; handler: Handler }[];
}

export class FormatError extends Error {}
