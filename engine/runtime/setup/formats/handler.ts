// One hookmap handler object, shared by the JSON-ish formats: the command
// (in the descriptor's command field or per-shell fields, setup.handler) or
// URL, the agent's timeout in its unit and field, the optional `name` and
// the descriptor's constant `fields`.
import type { Handler } from '../recognize.ts';
import type { Registration } from '../registrations.ts';
import type { FormatOptions, Json } from './types.ts';

export const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Structural identity (key order ignored). */
export function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (isObj(v))
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`)
      .join(',')}}`;
  return JSON.stringify(v);
}

/** The handler's timeout in the agent's unit, or undefined when none is written. */
export function timeoutFor(r: Registration, o: FormatOptions): number | undefined {
  const unit = o.timeoutUnit[r.kind];
  if (!unit) return undefined;
  const explicit = o.timeouts[r.hook] ?? o.timeouts.default;
  if (explicit !== undefined) return explicit;
  if (r.timeoutMs !== undefined) return unit === 's' ? Math.ceil(r.timeoutMs / 1000) : r.timeoutMs;
  return undefined;
}

/** `{type, <command fields>|url, <timeout field>?, name?}`; `typed: false` leaves `type` to the descriptor's fields. */
export function handlerFor(r: Registration, o: FormatOptions, typed = true): Handler {
  const commands: Handler = {};
  for (const f of o.handler.command) commands[f] = r.target;
  const base: Handler =
    r.kind === 'http' ? { type: 'http', url: r.target, ...(r.headers ? { headers: r.headers } : {}) } : typed ? { type: 'command', ...commands } : commands;
  const h: Handler = { ...o.fields, ...(r.fields as Handler | undefined), ...base };
  const t = r.fields ? timeoutFor({ ...r, hook: '' }, { ...o, timeouts: {} }) : timeoutFor(r, o); // a waiter's timeout is its own
  if (t !== undefined) h[o.handler.timeout] = t;
  if (o.name) h.name = o.name;
  return h;
}

/** Whether the matcher applies to this hook. */
export const matched = (hook: string, o: FormatOptions) => o.matcher !== undefined && (!o.matcherHooks || o.matcherHooks.includes(hook));
