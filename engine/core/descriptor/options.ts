// A descriptor's options (schema `config`): each key's default and what it
// does, and the environment variable that overrides it. The one place the
// HOOKMAP_<AGENT>_<KEY> naming rule lives (the mapper reads it; the agent's
// generated page shows it), and how the options an agent runs with resolve.
export interface AgentOption {
  key: string;
  default: unknown;
  doc: string;
  env: string;
}

/** HOOKMAP_<AGENT>_<KEY>: upper case, anything outside [A-Z0-9] an underscore. */
export function optionEnvName(agent: string, key: string): string {
  const up = (s: string) => s.toUpperCase().replace(/[^A-Z0-9]/g, '_');
  return `HOOKMAP_${up(agent)}_${up(key)}`;
}

export function compileOptions(agent: string, config: Record<string, { default: unknown; doc: string }> | undefined): AgentOption[] {
  return Object.entries(config ?? {}).map(([key, o]) => ({ key, default: o?.default, doc: o?.doc ?? '', env: optionEnvName(agent, key) }));
}

/**
 * The one resolved options object of an agent ($config): the descriptor's
 * defaults, then HOOKMAP_<AGENT>_<KEY> (`vars`, by variable name, as the CLI
 * edge read them; a JSON value, else the string), then explicit overrides
 * (`hookmap up --config`, a fixture case's `config`). The mapper builds it
 * once and the daemon's decisions read the same object.
 */
export function resolveOptions(
  agent: string,
  defaults: Readonly<Record<string, unknown>>,
  vars: Readonly<Record<string, string>> = {},
  overrides: Readonly<Record<string, unknown>> = {},
): Record<string, unknown> {
  const fromVars: Record<string, unknown> = {};
  for (const key of Object.keys(defaults)) {
    const v = vars[optionEnvName(agent, key)];
    if (v === undefined) continue;
    try {
      fromVars[key] = JSON.parse(v);
    } catch {
      fromVars[key] = v;
    }
  }
  return { ...defaults, ...fromVars, ...overrides };
}
