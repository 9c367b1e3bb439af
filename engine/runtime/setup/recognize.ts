// Which hook handlers in an agent's config are hookmap's: a command (in the
// descriptor's `setup.handler.recognize` fields, default `command`) running
// one of our shims (`.../shims/<agent>.sh`, `hookmap hook <agent>`, the tee
// `hookmap tee <agent> -- ...`) or an
// HTTP hook posting to our daemon route (`/hooks/<agent>`). Recognition is by
// shape, not by a marker field, because the agents reject or drop unknown keys.
export interface Handler {
  type?: unknown;
  command?: unknown;
  url?: unknown;
  [k: string]: unknown;
}

const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** hookmap's handlers of `agent`, read from `fields` (the descriptor's setup.handler.recognize). */
export function hookmapMatcher(agent: string, fields: readonly string[] = ['command']): (h: Handler) => boolean {
  return matcherFor(esc(agent), fields);
}

function matcherFor(a: string, fields: readonly string[]): (h: Handler) => boolean {
  const sh = new RegExp(`(^|[/'"\\s])shims/${a}\\.sh(['"\\s]|$)`);
  const node = new RegExp(`hookmap(\\.mjs)?['"]?\\s+(hook|tee)\\s+${a}(\\s|$)`);
  const url = new RegExp(`/hooks/${a}(/[^/?#]*)?([?#].*)?$`);
  return (h) => {
    if (!h || typeof h !== 'object') return false;
    if (typeof h.url === 'string' && h.type === 'http') return url.test(h.url);
    if (h.type !== undefined && h.type !== 'command') return false;
    return fields.some((f) => typeof h[f] === 'string' && (sh.test(h[f] as string) || node.test(h[f] as string)));
  };
}

const ANY = '[a-z0-9][a-z0-9-]*';

/** Any hookmap handler, of any agent (doctor: hookmap entries that belong to another agent). */
export function anyHookmap(h: Handler, fields: readonly string[] = ['command']): boolean {
  return matcherFor(ANY, fields)(h);
}

/** The command line a handler runs: the first of `fields` holding a string. */
export function commandOf(h: Handler, fields: readonly string[] = ['command']): string | undefined {
  for (const f of fields) if (typeof h[f] === 'string') return h[f] as string;
  return undefined;
}

/** The shim script path a command handler runs, if it runs our sh shim. */
export function shimPathOf(command: string): string | undefined {
  const m = /^\s*(?:'([^']*)'|"([^"]*)"|(\S+))/.exec(command);
  const p = m?.[1] ?? m?.[2] ?? m?.[3];
  return p && /shims\/[a-z0-9-]+\.sh$/.test(p) ? p : undefined;
}
