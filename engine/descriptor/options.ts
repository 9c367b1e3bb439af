// A descriptor's options (schema `config`): each key's default and what it
// does, and the environment variable that overrides it. The one place the
// HOOKMAP_<AGENT>_<KEY> naming rule lives (the mapper reads it; the agent's
// generated page shows it).
export interface AgentOption { key: string; default: unknown; doc: string; env: string }

/** HOOKMAP_<AGENT>_<KEY>: upper case, anything outside [A-Z0-9] an underscore. */
export function optionEnvName(agent: string, key: string): string {
  const up = (s: string) => s.toUpperCase().replace(/[^A-Z0-9]/g, '_');
  return `HOOKMAP_${up(agent)}_${up(key)}`;
}

export function compileOptions(agent: string, config: Record<string, { default: unknown; doc: string }> | undefined): AgentOption[] {
  return Object.entries(config ?? {}).map(([key, o]) => ({ key, default: o?.default, doc: o?.doc ?? '', env: optionEnvName(agent, key) }));
}
