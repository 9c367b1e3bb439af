// The descriptor's `setup:` block compiled with its defaults (schema
// `setup`, closed: every key below is one the engine acts on). Read by
// `hookmap setup` (engine/runtime/setup), `hookmap doctor` and the generated docs;
// never re-read from the YAML.
import type { HookmapDescriptor, SetupShape } from '../generated/descriptor-types.ts';

export type Scope = 'user' | 'project';
export type Unit = 's' | 'ms';

export interface Requirement {
  file: string;
  match: string;
  hint: string;
}

/** The setup block's `mcp`: where `hookmap setup --mcp` registers the hookmap MCP server (engine/runtime/setup/mcp.ts). */
export interface McpSetupSpec {
  scopes: Partial<Record<Scope, string>>;
  format: 'json' | 'toml';
  /** The top-level object / table holding the agent's servers by name. */
  key: string;
  /** The server name hookmap owns. */
  name: string;
  /** split: command + args; array: command is the argument vector. */
  command: 'split' | 'array';
  envField: string;
  fields: Record<string, unknown>;
  notes: string[];
  docs: string[];
}

export interface HandlerShape {
  /** The field(s) carrying the command line (every one carries it: per-shell fields). */
  command: string[];
  timeout: string;
  /** The fields whose command line marks an entry as hookmap's own. */
  recognize: string[];
}

export const DEFAULT_HANDLER: HandlerShape = { command: ['command'], timeout: 'timeout', recognize: ['command'] };

export interface SetupSpec {
  /** The config-format strategy (engine/runtime/setup/formats/<shape>.ts). */
  strategy: SetupShape;
  /** The file syntax, as the descriptor states it (informational). */
  format?: string;
  scopes: Partial<Record<Scope, string>>;
  defaultScope: Scope;
  /** Unit of the handler `timeout` field per handler kind; absent: none written. */
  timeoutUnit: { command?: Unit; http?: Unit };
  /** Explicit handler timeouts in that unit, by hook or `default`. */
  timeouts: Record<string, number>;
  matcher?: string;
  matcherHooks?: string[];
  name?: string;
  /** Constant fields on hookmap's handlers (hook-lists). */
  fields: Record<string, unknown>;
  /** Top-level keys written when the config lacks them (hook-lists). */
  defaults: Record<string, unknown>;
  /** The handler entry's own field names (JSON hook formats): command field(s), timeout field, the fields recognising ours. */
  handler: HandlerShape;
  /** The named entry hookmap owns (named-hook-groups). */
  entry: string;
  /** File name per hook (hooks-dir). */
  fileNames: Record<string, string>;
  notes: string[];
  requires: Requirement[];
  docs: string[];
  /** Where `--mcp` registers the hookmap MCP server; undefined: the agent's MCP config is not known. */
  mcp?: McpSetupSpec;
}

type SetupBlock = NonNullable<HookmapDescriptor['setup']>;

function handlerShape(h: SetupBlock['handler']): HandlerShape {
  if (!h) return DEFAULT_HANDLER;
  const command = h.command === undefined ? DEFAULT_HANDLER.command : [h.command].flat();
  return { command, timeout: h.timeout ?? DEFAULT_HANDLER.timeout, recognize: h.recognize ?? command };
}

/** The setup block with its defaults, or undefined when the descriptor declares none. */
export function compileSetup(s: SetupBlock | undefined): SetupSpec | undefined {
  if (!s) return undefined;
  const tu = s.timeout_unit;
  return {
    strategy: s.shape,
    format: s.format,
    scopes: { ...(s.scopes ?? {}) },
    defaultScope: s.default_scope ?? 'user',
    timeoutUnit: typeof tu === 'string' ? { command: tu, http: tu } : { ...(tu ?? {}) },
    timeouts: { ...(s.timeouts ?? {}) },
    matcher: s.matcher,
    matcherHooks: s.matcher_hooks,
    name: s.name,
    fields: { ...(s.fields ?? {}) },
    defaults: { ...(s.defaults ?? {}) },
    handler: handlerShape(s.handler),
    entry: s.entry ?? 'hookmap',
    fileNames: { ...(s.file_names ?? {}) },
    notes: s.notes ?? [],
    requires: s.requires ?? [],
    docs: s.docs ?? [],
    mcp: s.mcp && {
      scopes: { ...s.mcp.scopes },
      format: s.mcp.format,
      key: s.mcp.key,
      name: s.mcp.name ?? 'hookmap',
      command: s.mcp.command ?? 'split',
      envField: s.mcp.env_field ?? 'env',
      fields: { ...(s.mcp.fields ?? {}) },
      notes: s.mcp.notes ?? [],
      docs: s.mcp.docs ?? [],
    },
  };
}
