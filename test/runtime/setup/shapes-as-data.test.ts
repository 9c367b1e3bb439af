// Hook-config shapes are descriptor data (setup.handler: the command field or
// per-shell fields, the timeout field, what recognises hookmap's entries;
// setup.fields / defaults: constant keys). GitHub Copilot CLI's hooks file is
// built from vendors/copilot-cli.yaml alone (no Copilot code in engine/runtime/setup),
// and shares .github/hooks/ with the VS Code agent: both wired in one
// workspace, each entry names its agent, each firing lands with its agent.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadVendor, ROOT } from '../../../engine/core/descriptor/registry.ts';
import { Mapper } from '../../../engine/core/map/mapper.ts';
import { commitSetup, planSetup, type SetupOptions } from '../../../engine/runtime/setup/apply.ts';
import { resolveTarget } from '../../../engine/cli/config.ts';

const root = mkdtempSync(join(tmpdir(), 'hookmap-shapes-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;

function sandbox() {
  const dir = join(root, String(n++));
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: join(dir, 'home'), HOOKMAP_HOME: join(dir, 'hm'), HOOKMAP_URL: 'http://127.0.0.1:8787' };
  mkdirSync(env.HOME!, { recursive: true });
  return { dir, env };
}

function setup(agent: string, env: NodeJS.ProcessEnv, o: Partial<SetupOptions> = {}) {
  const d = loadVendor(agent);
  const plan = planSetup(d, { scope: 'user', dir: env.HOME!, uninstall: false, shim: 'sh', target: resolveTarget(env), ...o });
  commitSetup(d, plan, resolveTarget(env));
  return plan;
}

const read = (p: string) => readFileSync(p, 'utf8');

describe('setup shapes as data: GitHub Copilot CLI from its descriptor alone', () => {
  it('engine/runtime/setup names no Copilot CLI field: bash, powershell, timeoutSec come from the descriptor', () => {
    const files = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : [join(dir, e.name)]));
    for (const f of files(join(ROOT, 'engine/runtime/setup'))) expect(read(f), f).not.toMatch(/timeoutSec|powershell|copilot|['"]bash['"]/);
    expect(loadVendor('copilot-cli').setup?.handler).toEqual({ command: ['bash', 'powershell'], timeout: 'timeoutSec', recognize: ['bash'] });
  });

  it('installs {version, hooks: {<event>: [{type, bash, powershell, timeoutSec}]}}, a second run changes nothing, uninstall restores the exact bytes', () => {
    const { env } = sandbox();
    const file = join(env.HOME!, '.copilot', 'hooks', 'hookmap.json');
    mkdirSync(join(env.HOME!, '.copilot', 'hooks'), { recursive: true });
    // a user's own entries in the same file, with its own indent and key order
    const original =
      '{\n    "hooks": {\n        "preToolUse": [\n            { "type": "command", "bash": ' +
      '"./audit.sh", "timeoutSec": 5 }\n        ]\n    },\n    "version": 1\n}\n';
    writeFileSync(file, original);
    const p1 = setup('copilot-cli', env);
    expect(p1.configPath).toBe(file);
    expect(p1.createsBackup).toBe(true);
    const doc = JSON.parse(read(file));
    const shim = join(env.HOOKMAP_HOME!, 'shims', 'copilot-cli.sh');
    expect(doc.version).toBe(1);
    expect(doc.hooks.preToolUse).toEqual([
      { type: 'command', bash: './audit.sh', timeoutSec: 5 },
      { type: 'command', bash: `${shim} preToolUse`, powershell: `${shim} preToolUse`, timeoutSec: 60 },
    ]);
    expect(Object.keys(doc.hooks).sort()).toEqual([...loadVendor('copilot-cli').hooks.keys()].sort());
    expect(read(file)).toMatch(/^\{\n {4}"hooks"/); // the file's own indent

    const p2 = setup('copilot-cli', env);
    expect(p2.changed).toBe(false);
    expect(p2.shimChanges).toEqual([]);

    const p3 = setup('copilot-cli', env, { uninstall: true });
    expect(p3.restoresBackup).toBe(true);
    expect(read(file)).toBe(original);
  });

  it('a file only setup created: written with version 1, deleted on uninstall', () => {
    const { env } = sandbox();
    const file = join(env.HOME!, '.copilot', 'hooks', 'hookmap.json');
    setup('copilot-cli', env);
    expect(Object.keys(JSON.parse(read(file)))).toEqual(['version', 'hooks']);
    setup('copilot-cli', env, { uninstall: true });
    expect(existsSync(file)).toBe(false);
  });

  it('the node shim lands in both shell fields', () => {
    const { env } = sandbox();
    setup('copilot-cli', env, { shim: 'node' });
    const h = JSON.parse(read(join(env.HOME!, '.copilot', 'hooks', 'hookmap.json'))).hooks.sessionStart[0];
    // the launcher in $HOOKMAP_HOME (it finds the current hookmap after an upgrade or a move: issue 25)
    expect(h.bash).toMatch(new RegExp(`${env.HOOKMAP_HOME}/bin/hookmap'? hook copilot-cli sessionStart$`));
    expect(h.powershell).toBe(h.bash);
  });
});

describe('shared .github/hooks/: the VS Code agent and Copilot CLI wired in one workspace', () => {
  it("both agents' files side by side in .github/hooks/, each entry naming its agent; each round-trips alone", () => {
    const { dir, env } = sandbox();
    const project = join(dir, 'ws');
    mkdirSync(join(project, '.github', 'hooks'), { recursive: true });
    const mine = join(project, '.github', 'hooks', 'ci.json');
    writeFileSync(mine, '{"version":1,"hooks":{"sessionStart":[{"type":"command","bash":"./ci-start.sh"}]}}\n');
    const vs = join(project, '.github', 'hooks', 'hookmap.json');
    const cp = join(project, '.github', 'hooks', 'hookmap-copilot-cli.json');
    expect(setup('vscode', env, { scope: 'project', dir: project }).configPath).toBe(vs);
    expect(setup('copilot-cli', env, { scope: 'project', dir: project }).configPath).toBe(cp);
    expect(JSON.parse(read(vs)).hooks.PreToolUse[0].command).toContain('shims/vscode.sh PreToolUse');
    expect(JSON.parse(read(cp)).hooks.preToolUse[0].bash).toContain('shims/copilot-cli.sh preToolUse');
    expect(setup('vscode', env, { scope: 'project', dir: project }).changed).toBe(false);
    expect(setup('copilot-cli', env, { scope: 'project', dir: project }).changed).toBe(false);
    setup('copilot-cli', env, { scope: 'project', dir: project, uninstall: true });
    expect(existsSync(cp)).toBe(false);
    expect(existsSync(vs)).toBe(true);
    setup('vscode', env, { scope: 'project', dir: project, uninstall: true });
    expect(readdirSync(join(project, '.github', 'hooks'))).toEqual(['ci.json']);
  });

  it("a firing is attributed to the agent that fired it: Copilot CLI's copy of a VS Code entry is deferred to copilot-cli", async () => {
    const vscode = new Mapper(loadVendor('vscode'));
    const copilot = new Mapper(loadVendor('copilot-cli'));
    // what Copilot CLI 1.0.102 sent to a PascalCase .github/hooks entry (seen live)
    const copied = await vscode.map(undefined, {
      hook_event_name: 'PreToolUse',
      session_id: 's1',
      timestamp: '2026-12-01T14:38:43.730Z',
      cwd: '/ws',
      tool_name: 'Bash',
      tool_input: { command: 'touch x' },
    });
    expect(copied.deferredTo).toBe('copilot-cli');
    expect(copied.events).toEqual([]);
    // ...and to its own camelCase entry
    const own = await copilot.map('preToolUse', { sessionId: 's1', timestamp: 1796135779284, cwd: '/ws', toolName: 'bash', toolArgs: { command: 'touch x' } });
    expect(own.events.map((e) => e.type)).toEqual(['tool.requested']);
    expect(own.events[0].agent).toBe('copilot-cli');
    // VS Code's own envelope still maps under vscode
    const mine = await vscode.map(undefined, {
      hook_event_name: 'PreToolUse',
      session_id: 's2',
      transcript_path: '/home/u/.vscode/t.md',
      timestamp: '2026-12-01T14:38:43.730Z',
      cwd: '/ws',
      tool_name: 'runInTerminal',
      tool_use_id: 'c1',
      tool_input: { command: 'ls' },
    });
    expect(mine.deferredTo).toBeUndefined();
    expect(mine.events[0].agent).toBe('vscode');
    // a VS Code envelope reaching a Copilot CLI entry belongs to VS Code
    expect((await copilot.map('preToolUse', { hook_event_name: 'PreToolUse', session_id: 's2', tool_name: 'runInTerminal' })).deferredTo).toBe('vscode');
  });
});
