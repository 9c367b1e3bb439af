// The argv parser shared by the CLI commands: node:util.parseArgs, strict.
// Flags are declared up front so a typo is an error (exit 2), never a
// silently ignored option; its errors are re-worded as one short line.
import { parseArgs as nodeParseArgs, type ParseArgsConfig } from 'node:util';

export interface FlagSpec {
  /** 'string' takes a value (`--port 8787` or `--port=8787`); 'boolean' does not. */
  type: 'string' | 'boolean';
  /** A string flag given several times collects every value. */
  multiple?: boolean;
  short?: string;
}

export interface ParsedArgs {
  flags: Record<string, string | boolean | string[] | undefined>;
  positionals: string[];
}

export class ArgError extends Error {}

/** node:util.parseArgs' error codes, as one line naming the option. */
function reword(err: { code?: string; message: string }): string {
  const name = /'(?:-[^-' ], )?(--?[^' ,]+)/.exec(err.message)?.[1] ?? '';
  if (err.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return `unknown option '${name}'`;
  if (/does not take an argument/.test(err.message)) return `option '${name}' takes no value`;
  if (/argument missing/.test(err.message)) return `option '${name}' needs a value`;
  if (/ambiguous/.test(err.message)) return `option '${name}' needs a value (a value starting with '-' is written ${name}=-value)`;
  return err.message.split('\n')[0];
}

export function parseArgs(argv: string[], spec: Record<string, FlagSpec>): ParsedArgs {
  let parsed;
  try {
    parsed = nodeParseArgs({ args: argv, options: spec as ParseArgsConfig['options'], strict: true, allowPositionals: true });
  } catch (err) {
    throw new ArgError(reword(err as { code?: string; message: string }));
  }
  const flags: ParsedArgs['flags'] = {};
  for (const [k, v] of Object.entries(parsed.values)) flags[k] = v as string | boolean | string[];
  return { flags, positionals: parsed.positionals };
}

/** A non-negative integer flag, or the fallback; rejects junk instead of producing NaN. */
export function intFlag(v: unknown, name: string, fallback: number): number {
  if (v === undefined) return fallback;
  const n = Number(v);
  if (typeof v !== 'string' || !/^\d+$/.test(v) || !Number.isSafeInteger(n)) throw new ArgError(`--${name} must be a non-negative integer`);
  return n;
}
