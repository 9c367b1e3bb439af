// The doctor tests' sandboxes: a temp HOME / HOOKMAP_HOME / CODEX_HOME per
// case under one root removed after the file, and `setup` as the CLI runs it
// (user scope by default).
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { loadVendor } from '../../../engine/core/descriptor/registry.ts';
import { commitSetup, planSetup, type SetupOptions } from '../../../engine/runtime/setup/apply.ts';
import { resolveTarget } from '../../../engine/cli/config.ts';

/** Call at a test file's top level: each `sandbox()` is a fresh folder under one root, removed after the file. */
export function sandboxes(prefix: string): () => { dir: string; env: NodeJS.ProcessEnv } {
  const root = mkdtempSync(join(tmpdir(), prefix));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  let n = 0;
  return () => {
    const dir = join(root, String(n++));
    const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: join(dir, 'home'), HOOKMAP_HOME: join(dir, 'hm'), CODEX_HOME: join(dir, 'codex') };
    mkdirSync(env.HOME!, { recursive: true });
    return { dir, env };
  };
}

/** `hookmap setup <agent>` (user scope, sh shim) into the sandbox's environment. */
export function setup(agent: string, env: NodeJS.ProcessEnv, o: Partial<SetupOptions> = {}) {
  const d = loadVendor(agent);
  const plan = planSetup(d, { scope: 'user', dir: env.HOME!, uninstall: false, shim: 'sh', target: resolveTarget(env), ...o });
  commitSetup(d, plan, resolveTarget(env));
  return plan;
}
