// Loading a generated in-process plugin the way its host does (ESM dynamic
// import of the generated file), and calling one host hook on it: the pieces
// shared by the plugin fixture cases (`shim: plugin` in kind: shim files)
// and test/runtime/shim/plugin-shim.test.ts. Generic over the descriptor's
// `shim.plugin` data: `host: hooks` (factory(input) -> hooks object, export
// default or { server }) and `host: bus` (factory(api) registering
// api.on(name, handler); its handlers read the session from the host
// context's sessionManager).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Descriptor } from '../../../engine/core/descriptor/types.ts';
import { pluginSpec, renderPlugin } from '../../../engine/runtime/shim/plugin/generate.ts';

/** Run `fn` with these environment variables set, restoring the previous values after. */
export async function withEnv<T>(env: Record<string, string | undefined>, fn: () => T | Promise<T>): Promise<T> {
  const prev = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
  for (const [k, v] of Object.entries(env))
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  try {
    return await fn();
  } finally {
    for (const [k, v] of Object.entries(prev))
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
  }
}

let n = 0;
/** Generate, write and import the plugin as its host would; `env` (HOOKMAP_URL, HOOKMAP_SHIM_TIMEOUT_MS) is what the host process had at load time. */
export async function importPlugin(d: Descriptor, dir: string, env: Record<string, string | undefined>): Promise<any> {
  const file = join(dir, `${d.vendor}-${process.pid}-${++n}.mjs`);
  writeFileSync(file, renderPlugin(d));
  return withEnv(env, () => import(pathToFileURL(file).href));
}

export interface SessionIdentity {
  id?: string;
  file?: string;
  cwd?: string;
}

/** A bus host's handler context carrying this session identity. */
export function busContext(s: SessionIdentity): unknown {
  return { sessionManager: { getSessionId: () => s.id, getSessionFile: () => s.file, getCwd: () => s.cwd }, hasUI: false };
}

/**
 * Instantiate the loaded plugin as its host does (`input`: the factory's
 * argument for a hooks host; `env`: the environment at registration, where
 * opt-in switches are read) and return its registered hook handlers.
 */
export async function hostHandlers(
  d: Descriptor,
  mod: any,
  input: unknown,
  env: Record<string, string | undefined> = {},
): Promise<Map<string, (...a: unknown[]) => unknown>> {
  const spec = pluginSpec(d);
  if (!spec) throw new Error(`${d.file}: no shim.plugin`);
  const handlers = new Map<string, (...a: unknown[]) => unknown>();
  if (spec.host === 'bus') {
    await withEnv(env, () => mod.default({ on: (name: string, h: (...a: unknown[]) => unknown) => handlers.set(name, h) }));
    return handlers;
  }
  const factory = spec.export === 'server' ? mod.default.server : mod.default;
  const hooks = await withEnv(env, () => factory(input));
  for (const [name, h] of Object.entries(hooks ?? {})) if (typeof h === 'function') handlers.set(name, h as (...a: unknown[]) => unknown);
  return handlers;
}
