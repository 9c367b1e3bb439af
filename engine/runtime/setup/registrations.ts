// What `hookmap setup` registers for one agent, format-independent: one entry
// per hook the descriptor registers (`register`, default true). A hook the
// agent can deliver over native HTTP (`http: true`) posts straight to the
// daemon, no shim at all, presenting the home's hook key in a header the
// agent's config holds (the agent sends only what its config says); every
// other hook runs a shim, which reads the key from the home at run time.
// Where the key must not be written into the config (a project's, which may
// be committed: no `hookKey` given), a native HTTP hook runs the shim too.
import { nextTurnCommand, type Descriptor } from '../../core/descriptor/types.ts';
import { shQuote } from '../shim/sh.ts';
import { HOOK_KEY_HEADER } from '../auth/hook-key.mjs';

export type ShimKind = 'sh' | 'node';

export interface Registration {
  hook: string;
  kind: 'command' | 'http';
  /** The command line (kind command) or the URL (kind http). */
  target: string;
  /** The agent's own timeout for this handler, when the descriptor states it. */
  timeoutMs?: number;
  /** The command as an argument vector (formats that store command + args apart, e.g. an editor's agent servers). */
  argv?: string[];
  /** Constant fields of this handler beyond the format's own (a next-turn waiter's e.g. {asyncRewake: true}). */
  fields?: Record<string, unknown>;
  /** Headers a native HTTP hook sends (kind http: the hook key). */
  headers?: Record<string, string>;
}

/** How much longer than its wait the agent lets a next-turn waiter run (its handler timeout). */
export const NEXT_TURN_TIMEOUT_MARGIN_MS = 60_000;

export interface RegistrationOptions {
  shim: ShimKind;
  shPath: string;
  nodeCommand: string[];
  baseUrl: string;
  /** The home's hook key, for native HTTP hooks; absent: they run the shim (the key stays out of the config). */
  hookKey?: string;
}

const safeWord = (s: string) => (/^[A-Za-z0-9_./:=@%+-]+$/.test(s) ? s : shQuote(s));

export function registrations(d: Descriptor, o: RegistrationOptions): Registration[] {
  const out: Registration[] = [];
  const timeoutMs = d.surface.hookTimeoutMs;
  // Without a hook name in the payload, the registration itself must carry it (argv, URL path).
  const pathHook = !d.surface.hookNameText;
  for (const [name, hook] of d.hooks) {
    if (!hook.register) continue;
    if (hook.http && o.hookKey) {
      const url = `${o.baseUrl}/hooks/${encodeURIComponent(d.vendor)}${pathHook ? `/${encodeURIComponent(name)}` : ''}`;
      out.push({ hook: name, kind: 'http', target: url, timeoutMs, headers: { [HOOK_KEY_HEADER]: o.hookKey } });
      continue;
    }
    const argv = o.shim === 'sh' ? [o.shPath, name] : [...o.nodeCommand, 'hook', d.vendor, name];
    out.push({ hook: name, kind: 'command', target: argv.map(safeWord).join(' '), timeoutMs });
  }
  // the next-turn carrier (engine/runtime/daemon/next-turn.ts): a second, background handler on each of its hooks (either shim's waiter mode)
  const nt = nextTurnCommand(d)?.nextTurn;
  if (nt?.exit !== undefined) {
    const argv = o.shim === 'sh' ? [o.shPath, 'next-turn'] : [...o.nodeCommand, 'hook', d.vendor, 'next-turn'];
    for (const hook of nt.on)
      out.push({
        hook,
        kind: 'command',
        target: argv.map(safeWord).join(' '),
        timeoutMs: nt.waitMs + NEXT_TURN_TIMEOUT_MARGIN_MS,
        fields: nt.register,
      });
  }
  return out;
}

/** A word list as a shell would split it: whitespace, '...' and "..." quoting, backslash escapes. */
export function splitCommand(line: string): string[] {
  const out: string[] = [];
  let cur = '';
  let has = false;
  let q: '"' | "'" | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (q) {
      if (c === q) q = undefined;
      else if (c === '\\' && q === '"' && i + 1 < line.length) cur += line[++i];
      else cur += c;
    } else if (c === '"' || c === "'") {
      q = c;
      has = true;
    } else if (c === '\\' && i + 1 < line.length) {
      cur += line[++i];
      has = true;
    } else if (/\s/.test(c)) {
      if (has || cur) out.push(cur);
      cur = '';
      has = false;
    } else {
      cur += c;
      has = true;
    }
  }
  if (q) throw new Error(`unbalanced ${q} quote in: ${line}`);
  if (has || cur) out.push(cur);
  return out;
}

/**
 * A stdio-tee agent is wired by wrapping the user's agent command: one
 * registration per wrapped command, named as the editor will list it.
 */
export function teeRegistrations(d: Descriptor, wrap: string[], name: string | undefined, nodeCommand: string[]): Registration[] {
  return wrap.map((line, i) => {
    const argv = splitCommand(line);
    if (!argv.length) throw new Error('--wrap needs the agent command, e.g. --wrap "my-agent --acp"');
    const base = name ?? `${argv[0].split('/').pop()} (hookmap)`;
    const full = [...nodeCommand, 'tee', d.vendor, '--', ...argv];
    return { hook: wrap.length > 1 && i > 0 ? `${base} ${i + 1}` : base, kind: 'command' as const, target: full.map(safeWord).join(' '), argv: full };
  });
}
