// A tiny argv parser shared by the CLI commands. Deliberately small: flags
// are declared up front so a typo is an error (exit 2), never a silently
// ignored option.
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

export function parseArgs(argv: string[], spec: Record<string, FlagSpec>): ParsedArgs {
  const flags: ParsedArgs['flags'] = {};
  const positionals: string[] = [];
  const byShort = new Map(Object.entries(spec).filter(([, s]) => s.short).map(([k, s]) => [s.short!, k]));
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    let name: string | undefined;
    let inline: string | undefined;
    if (arg.startsWith('--')) {
      const eq = arg.indexOf('=');
      name = eq < 0 ? arg.slice(2) : arg.slice(2, eq);
      inline = eq < 0 ? undefined : arg.slice(eq + 1);
    } else if (arg.length === 2 && arg[0] === '-' && arg[1] !== '-') {
      name = byShort.get(arg[1]);
      if (!name) throw new ArgError(`unknown option '${arg}'`);
    } else {
      positionals.push(arg);
      continue;
    }
    const s = spec[name];
    if (!s) throw new ArgError(`unknown option '--${name}'`);
    if (s.type === 'boolean') {
      if (inline !== undefined) throw new ArgError(`option '--${name}' takes no value`);
      flags[name] = true;
      continue;
    }
    const value = inline ?? argv[++i];
    if (value === undefined) throw new ArgError(`option '--${name}' needs a value`);
    if (s.multiple) flags[name] = [...((flags[name] as string[] | undefined) ?? []), value];
    else flags[name] = value;
  }
  return { flags, positionals };
}

/** A non-negative integer flag, or the fallback; rejects junk instead of producing NaN. */
export function intFlag(v: unknown, name: string, fallback: number): number {
  if (v === undefined) return fallback;
  const n = Number(v);
  if (typeof v !== 'string' || !/^\d+$/.test(v) || !Number.isSafeInteger(n)) throw new ArgError(`--${name} must be a non-negative integer`);
  return n;
}
