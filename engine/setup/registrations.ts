// What `hookmap setup` registers for one agent, format-independent: one entry
// per hook the descriptor registers (`register`, default true). A hook the
// agent can deliver over native HTTP (`http: true`) posts straight to the
// daemon, no shim at all; every other hook runs a shim.
import type { Descriptor } from '../descriptor/types.ts';
import { shQuote } from '../shim/sh.ts';

export type ShimKind = 'sh' | 'node';

export interface Registration {
  hook: string;
  kind: 'command' | 'http';
  /** The command line (kind command) or the URL (kind http). */
  target: string;
  /** The agent's own timeout for this handler, when the descriptor states it. */
  timeoutMs?: number;
}

export interface RegistrationOptions { shim: ShimKind; shPath: string; nodeCommand: string[]; baseUrl: string }

const safeWord = (s: string) => (/^[A-Za-z0-9_./:=@%+-]+$/.test(s) ? s : shQuote(s));

export function registrations(d: Descriptor, o: RegistrationOptions): Registration[] {
  const out: Registration[] = [];
  const timeoutMs = d.surface.hookTimeoutMs;
  // Without a hook name in the payload, the registration itself must carry it (argv, URL path).
  const pathHook = !d.surface.hookNameText;
  for (const [name, hook] of d.hooks) {
    if (!hook.register) continue;
    if (hook.http) {
      const url = `${o.baseUrl}/hooks/${encodeURIComponent(d.vendor)}${pathHook ? `/${encodeURIComponent(name)}` : ''}`;
      out.push({ hook: name, kind: 'http', target: url, timeoutMs });
      continue;
    }
    const argv = o.shim === 'sh' ? [o.shPath, name] : [...o.nodeCommand, 'hook', d.vendor, name];
    out.push({ hook: name, kind: 'command', target: argv.map(safeWord).join(' '), timeoutMs });
  }
  return out;
}
