// The machine setup and doctor act on is resolved once at the CLI edge
// (engine/cli/config.ts resolveTarget) from the environment they target, and
// handed down as values: the user's home from its HOME (never the real one
// when a test or an operator names another), hookmap's home and address, and
// the other variables for the config paths descriptors name.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resolveTarget } from '../../../engine/cli/config.ts';
import { loadVendor } from '../../../engine/core/descriptor/registry.ts';
import { commitSetup, planSetup } from '../../../engine/runtime/setup/apply.ts';
import { expandPath } from '../../../engine/runtime/setup/expand.ts';
import { mcpArgv, mcpEntry } from '../../../engine/runtime/setup/mcp.ts';

const root = mkdtempSync(join(tmpdir(), 'hookmap-target-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('resolveTarget', () => {
  it("finds hookmap's home under the target's HOME when HOOKMAP_HOME is not set, and names nothing it defaulted", () => {
    const t = resolveTarget({ HOME: '/u/ann', PATH: '/bin' });
    expect(t).toEqual({ userHome: '/u/ann', vars: { HOME: '/u/ann', PATH: '/bin' }, home: '/u/ann/.hookmap', url: 'http://127.0.0.1:8787', named: {} });
  });

  it("takes HOOKMAP_HOME and HOOKMAP_URL as named (a trailing slash dropped) and keeps hookmap's variables out of the path variables", () => {
    const t = resolveTarget({
      HOME: '/u/ann',
      HOOKMAP_HOME: '/srv/hm',
      HOOKMAP_URL: 'http://127.0.0.1:9999/',
      HOOKMAP_TOKEN: 'secret',
      XDG_CONFIG_HOME: '/u/ann/cfg',
    });
    expect(t.home).toBe('/srv/hm');
    expect(t.url).toBe('http://127.0.0.1:9999');
    expect(t.named).toEqual({ home: '/srv/hm', url: 'http://127.0.0.1:9999' });
    expect(Object.keys(t.vars).filter((k) => k.startsWith('HOOKMAP_'))).toEqual([]);
    // a descriptor's config path cannot read hookmap's own settings (a token) through a variable
    expect(expandPath('${HOOKMAP_TOKEN:-~/none}/x', t, '/tmp')).toBe('/u/ann/none/x');
    expect(expandPath('${XDG_CONFIG_HOME:-~/.config}/opencode', t, '/tmp')).toBe('/u/ann/cfg/opencode');
    expect(expandPath('$HOME/.codex', t, '/tmp')).toBe('/u/ann/.codex');
  });

  it('an empty HOME or HOOKMAP_HOME counts as unset', () => {
    const t = resolveTarget({ HOME: '', HOOKMAP_HOME: '' });
    expect(t.userHome).toBe(homedir());
    expect(t.named.home).toBeUndefined();
  });
});

describe('setup against a target without HOOKMAP_HOME', () => {
  it("writes the shims (and names them in the agent's config) under the target's HOME, never into the real ~/.hookmap", () => {
    const home = join(root, 'home');
    mkdirSync(home, { recursive: true });
    const target = resolveTarget({ PATH: process.env.PATH, HOME: home, CODEX_HOME: join(root, 'codex') });
    const d = loadVendor('codex');
    const plan = planSetup(d, { scope: 'user', dir: home, uninstall: false, shim: 'sh', target });
    expect(plan.shimChanges).toEqual([join(home, '.hookmap', 'shims', 'codex.sh'), join(home, '.hookmap', 'shims', 'codex.json')]);
    commitSetup(d, plan, target);
    const hooks = readFileSync(join(root, 'codex', 'hooks.json'), 'utf8');
    expect(hooks).toContain(join(home, '.hookmap', 'shims', 'codex.sh'));
    expect(existsSync(join(home, '.hookmap', 'shims', 'codex.sh'))).toBe(true);
  });

  it('an MCP entry carries only what the user named', () => {
    const spec = { fields: {}, command: 'string', envField: 'env' } as unknown as Parameters<typeof mcpEntry>[0];
    const plain = resolveTarget({ HOME: '/u/ann' });
    expect(mcpArgv('codex', ['/u/ann/.hookmap/bin/hookmap'], plain)).toEqual(['/u/ann/.hookmap/bin/hookmap', 'mcp', '--agent', 'codex']);
    expect(mcpEntry(spec, ['l'], plain)).toEqual({ command: 'l', args: [] });
    const named = resolveTarget({ HOME: '/u/ann', HOOKMAP_HOME: '/srv/hm', HOOKMAP_URL: 'http://127.0.0.1:9999/' });
    expect(mcpArgv('codex', ['l'], named)).toEqual(['l', 'mcp', '--agent', 'codex', '--url', 'http://127.0.0.1:9999']);
    expect(mcpEntry(spec, ['l'], named)).toEqual({ command: 'l', args: [], env: { HOOKMAP_HOME: '/srv/hm' } });
  });
});
