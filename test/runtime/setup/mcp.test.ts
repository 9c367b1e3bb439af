// `hookmap setup <agent> --mcp`: the hookmap MCP server (`hookmap mcp --agent
// <agent>`) registered in the agent's own MCP config from the descriptor's
// `setup.mcp` data (engine/runtime/setup/mcp.ts). Per format, golden before/after
// files (test/runtime/setup/golden/mcp/: the launcher $HOOKMAP_HOME/bin/hookmap, never
// a path into this checkout, and the temp HOME written as <launcher>,
// <home>), a second run changes nothing, uninstall --mcp
// gives back the exact original bytes, the user's servers and comments stay,
// and a foreign server of our name is refused, never overwritten.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadVendor } from '../../../engine/core/descriptor/registry.ts';
import { commitSetup, launcherArgv, planDiff, planSetup, SetupError, type SetupOptions } from '../../../engine/runtime/setup/apply.ts';
import { parseJsonc } from '../../../engine/runtime/setup/formats/agent-servers.ts';
import { isHookmapMcp } from '../../../engine/runtime/setup/mcp.ts';
import { spawnSync } from 'node:child_process';
import { BIN } from '../shim/helpers.ts';
import { resolveTarget } from '../../../engine/cli/config.ts';

const runCli = async (args: string[], o: { env: NodeJS.ProcessEnv }) => {
  const r = spawnSync(process.execPath, [BIN, ...args], { env: o.env, encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
};

const GOLDEN = join(import.meta.dirname, 'golden', 'mcp');
const root = mkdtempSync(join(tmpdir(), 'hookmap-mcp-setup-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;

function sandbox(extra: NodeJS.ProcessEnv = {}) {
  const dir = join(root, String(n++));
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: join(dir, 'home'), ...extra };
  const project = join(dir, 'project');
  mkdirSync(env.HOME!, { recursive: true });
  mkdirSync(project, { recursive: true });
  return { env, project, home: env.HOME! };
}

function setup(agent: string, env: NodeJS.ProcessEnv, o: Partial<SetupOptions> = {}) {
  const d = loadVendor(agent);
  const plan = planSetup(d, { scope: 'user', dir: env.HOME!, uninstall: false, shim: 'sh', target: resolveTarget(env), mcp: true, ...o });
  commitSetup(d, plan, resolveTarget(env));
  return plan;
}

const put = (path: string, text: string) => {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
};
/**
 * The file with the launcher setup registers ($HOOKMAP_HOME/bin/hookmap, wherever that home is) and the temp
 * HOME replaced by placeholders (what the golden files hold).
 */
const normal = (text: string, home: string, env: NodeJS.ProcessEnv) =>
  text
    .split(launcherArgv(resolveTarget(env))[0])
    .join('<launcher>')
    .split(home)
    .join('<home>');
const golden = (name: string) => readFileSync(join(GOLDEN, name), 'utf8');

interface Case {
  agent: string;
  scope: 'user' | 'project';
  file: string;
  before: string;
  after: string;
  extra?: NodeJS.ProcessEnv;
}
const CASES: Case[] = [
  { agent: 'claude-code', scope: 'user', file: '.claude.json', before: 'claude-code.user.before.json', after: 'claude-code.user.after.json' },
  { agent: 'claude-code', scope: 'project', file: '.mcp.json', before: 'claude-code.project.before.json', after: 'claude-code.project.after.json' },
  { agent: 'codex', scope: 'user', file: '.codex/config.toml', before: 'codex.before.toml', after: 'codex.after.toml', extra: { HOOKMAP_HOME: '<home>/hm' } },
  {
    agent: 'opencode',
    scope: 'project',
    file: 'opencode.json',
    before: 'opencode.before.jsonc',
    after: 'opencode.after.jsonc',
    extra: { HOOKMAP_HOME: '<home>/hm', HOOKMAP_URL: 'http://127.0.0.1:9911/' },
  },
  { agent: 'cursor', scope: 'user', file: '.cursor/mcp.json', before: 'cursor.user.before.json', after: 'cursor.user.after.json' },
  {
    agent: 'vscode',
    scope: 'project',
    file: '.vscode/mcp.json',
    before: 'vscode.project.before.json',
    after: 'vscode.project.after.json',
    extra: { HOOKMAP_HOME: '<home>/hm' },
  },
];

describe('setup --mcp: golden before/after per format', () => {
  for (const c of CASES) {
    it(`${c.agent} (${c.scope}): ${c.file} gains exactly our server; a second run changes nothing; uninstall --mcp restores the exact bytes`, () => {
      const s = sandbox();
      const env = { ...s.env, ...Object.fromEntries(Object.entries(c.extra ?? {}).map(([k, v]) => [k, v!.replace('<home>', s.home)])) };
      const base = c.scope === 'project' ? s.project : s.home;
      const path = join(base, c.file);
      const before = golden(c.before);
      put(path, before);
      const o = { scope: c.scope, dir: s.project } as const;
      const p1 = setup(c.agent, env, o);
      expect(p1.mcp).toMatchObject({ path, changed: true, createsBackup: true });
      const after = readFileSync(path, 'utf8');
      expect(normal(after, s.home, env)).toBe(golden(c.after));
      // idempotent: the second run plans no change of the MCP config
      const p2 = setup(c.agent, env, o);
      expect(p2.mcp?.changed).toBe(false);
      expect(p2.files.map((f) => f.path)).not.toContain(path);
      expect(readFileSync(path, 'utf8')).toBe(after);
      // uninstall without --mcp leaves the server and says so
      const u1 = setup(c.agent, env, { ...o, uninstall: true, mcp: false });
      expect(readFileSync(path, 'utf8')).toBe(after);
      expect(u1.warnings.join('\n')).toContain(`the hookmap MCP server stays registered in ${path}`);
      const u2 = setup(c.agent, env, { ...o, uninstall: true });
      expect(u2.mcp).toMatchObject({ changed: true, restoresBackup: true });
      expect(readFileSync(path, 'utf8')).toBe(before);
      expect(existsSync(`${path}.hookmap.bak`)).toBe(false);
    });
  }

  it('uninstall keeps a change the user made since (their own new server) and removes only ours', () => {
    const s = sandbox();
    const path = join(s.project, 'opencode.json');
    put(path, golden('opencode.before.jsonc'));
    setup('opencode', s.env, { scope: 'project', dir: s.project });
    const mine = readFileSync(path, 'utf8').replace('"mcp": {', '"mcp": {\n    "added-later": { "type": "local", "command": ["later"] },');
    writeFileSync(path, mine);
    const u = setup('opencode', s.env, { scope: 'project', dir: s.project, uninstall: true });
    expect(u.mcp?.restoresBackup).toBe(false);
    const left = readFileSync(path, 'utf8');
    const doc = parseJsonc(left) as any;
    expect(Object.keys(doc.mcp).sort()).toEqual(['added-later', 'docs']);
    expect(left).toContain("// the user's own server, with a comment");
  });

  it('a config file the run created is deleted again by uninstall (nothing else was in it)', () => {
    const s = sandbox();
    const path = join(s.project, '.mcp.json');
    setup('claude-code', s.env, { scope: 'project', dir: s.project });
    const doc = JSON.parse(readFileSync(path, 'utf8'));
    expect(doc.mcpServers.hookmap).toEqual({ type: 'stdio', command: launcherArgv(resolveTarget(s.env))[0], args: ['mcp', '--agent', 'claude-code'] });
    setup('claude-code', s.env, { scope: 'project', dir: s.project, uninstall: true });
    expect(existsSync(path)).toBe(false);
  });
});

describe('setup --mcp: one file for hooks and servers (settings.json)', () => {
  for (const agent of ['gemini-cli', 'qwen-code']) {
    it(`${agent}: hooks and the server land in one change of settings.json; idempotent; uninstall --mcp restores the exact bytes`, () => {
      const s = sandbox({ HOOKMAP_HOME: '' });
      const dot = agent === 'gemini-cli' ? '.gemini' : '.qwen';
      const path = join(s.home, dot, 'settings.json');
      const before = golden('settings.before.json');
      put(path, before);
      const p1 = setup(agent, s.env);
      expect(p1.files.filter((f) => f.path === path)).toHaveLength(1);
      expect(p1.mcp).toMatchObject({ sameFile: true, changed: true });
      const doc = JSON.parse(readFileSync(path, 'utf8'));
      expect(doc.mcpServers.other).toEqual({ command: 'other-server', args: ['--flag'] });
      expect(doc.mcpServers.hookmap).toEqual({ timeout: 3600000, command: launcherArgv(resolveTarget(s.env))[0], args: ['mcp', '--agent', agent] });
      expect(Object.keys(doc.hooks).length).toBeGreaterThan(3);
      expect(doc.general).toEqual({ vimMode: true });
      const after = readFileSync(path, 'utf8');
      const p2 = setup(agent, s.env);
      expect(p2.changed).toBe(false);
      expect(readFileSync(path, 'utf8')).toBe(after);
      // uninstall without --mcp: the hooks go, the server stays
      setup(agent, s.env, { uninstall: true, mcp: false });
      const mid = JSON.parse(readFileSync(path, 'utf8'));
      expect(mid.hooks ?? {}).toEqual({});
      expect(mid.mcpServers.hookmap).toBeDefined();
      setup(agent, s.env, { uninstall: true });
      expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual(JSON.parse(before));
      // a fresh install from scratch, then a full uninstall: the file we created goes
      rmSync(path);
      rmSync(`${path}.hookmap.bak`, { force: true });
      setup(agent, s.env);
      setup(agent, s.env, { uninstall: true });
      expect(existsSync(path)).toBe(false);
    });
  }
});

describe('setup --mcp: a server named hookmap that is not ours', () => {
  it('json: refused with a clear message, nothing written (hooks included)', () => {
    const s = sandbox();
    const path = join(s.project, '.mcp.json');
    const text = '{\n  "mcpServers": {\n    "hookmap": { "command": "my-own-tool", "args": ["serve"] }\n  }\n}\n';
    put(path, text);
    const d = loadVendor('claude-code');
    expect(() => planSetup(d, { scope: 'project', dir: s.project, uninstall: false, shim: 'sh', target: resolveTarget(s.env), mcp: true })).toThrow(SetupError);
    expect(() => planSetup(d, { scope: 'project', dir: s.project, uninstall: false, shim: 'sh', target: resolveTarget(s.env), mcp: true })).toThrow(
      /already has a server named "hookmap" that is not hookmap's MCP server for claude-code \(it runs: my-own-tool serve\)/,
    );
    expect(readFileSync(path, 'utf8')).toBe(text);
    expect(existsSync(join(s.project, '.claude/settings.json'))).toBe(false);
    // uninstall leaves it alone too
    setup('claude-code', s.env, { scope: 'project', dir: s.project, uninstall: true });
    expect(readFileSync(path, 'utf8')).toBe(text);
  });

  it("json: hookmap's MCP server for ANOTHER agent under our name is foreign too", () => {
    const s = sandbox();
    const path = join(s.home, '.claude.json');
    put(path, JSON.stringify({ mcpServers: { hookmap: { command: 'npx', args: ['hookmap', 'mcp', '--agent', 'codex'] } } }));
    expect(() => setup('claude-code', s.env)).toThrow(/not hookmap's MCP server for claude-code/);
  });

  it("json: a hand-registered `npx hookmap mcp --agent <id>` (the README's old way) is ours: replaced in place by the launcher", () => {
    const s = sandbox();
    const path = join(s.home, '.claude.json');
    put(
      path,
      `${JSON.stringify({ mcpServers: { hookmap: { type: 'stdio', command: 'npx', args: ['hookmap', 'mcp', '--agent', 'claude-code'], env: { MINE: '1' } } } }, null, 2)}\n`,
    );
    setup('claude-code', s.env);
    const doc = JSON.parse(readFileSync(path, 'utf8'));
    expect(doc.mcpServers.hookmap).toEqual({
      type: 'stdio',
      command: launcherArgv(resolveTarget(s.env))[0],
      args: ['mcp', '--agent', 'claude-code'],
      env: { MINE: '1' },
    });
  });

  it('toml: a [mcp_servers.hookmap] table outside our block (or a dotted key, or an inline table) is refused, the file untouched', () => {
    for (const text of [
      '[mcp_servers.hookmap]\ncommand = "mine"\n',
      '[mcp_servers."hookmap".env]\nA = "b"\n',
      'mcp_servers.hookmap.command = "mine"\n',
      '[mcp_servers]\nhookmap = { command = "mine" }\n',
    ]) {
      const s = sandbox();
      const path = join(s.home, '.codex', 'config.toml');
      put(path, text);
      expect(() => setup('codex', s.env), text).toThrow(/already defines the server "hookmap" outside hookmap's block/);
      expect(readFileSync(path, 'utf8')).toBe(text);
    }
  });

  it('toml: `mcp_servers` as an inline table (closed to additions in TOML) is refused with the reason', () => {
    const s = sandbox();
    const path = join(s.home, '.codex', 'config.toml');
    const text = 'mcp_servers = { other = { command = "x" } }\n';
    put(path, text);
    expect(() => setup('codex', s.env)).toThrow(
      /`mcp_servers` is an inline table \(`mcp_servers = \{ other = \{ command = "x" \} \}`\), which TOML closes to additions/,
    );
    expect(readFileSync(path, 'utf8')).toBe(text);
  });

  it("toml: another server's table and a key merely named like ours in another table are not a clash", () => {
    const s = sandbox();
    const path = join(s.home, '.codex', 'config.toml');
    put(path, '[mcp_servers.hookmapper]\ncommand = "x"\n\n[profiles.fast]\nhookmap = "not a server"\n');
    setup('codex', s.env);
    expect(readFileSync(path, 'utf8')).toContain('[mcp_servers.hookmap]\n');
  });
});

describe('setup --mcp: what it refuses and how it reads', () => {
  it('an agent whose MCP config is not known says so (and names the manual way)', () => {
    const s = sandbox();
    expect(() => setup('kimi-code', s.env)).toThrow(
      /kimi-code: its MCP config is not known \(no setup.mcp in its descriptor\): register `hookmap mcp --agent kimi-code` in the agent by hand/,
    );
  });

  it('a config that is not JSON (even with comments) is refused with its path, nothing written', () => {
    const s = sandbox();
    const path = join(s.home, '.claude.json');
    put(path, '{ "mcpServers": ');
    expect(() => setup('claude-code', s.env)).toThrow(new RegExp(`${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: `));
    expect(readFileSync(path, 'utf8')).toBe('{ "mcpServers": ');
  });

  it('`mcpServers` that is not an object is refused', () => {
    const s = sandbox();
    put(join(s.home, '.claude.json'), '{"mcpServers": []}');
    expect(() => setup('claude-code', s.env)).toThrow(/`mcpServers` is not an object; refusing to touch it/);
  });

  it('recognizes our server in every launcher form, and nothing else', () => {
    expect(isHookmapMcp({ command: '/usr/bin/node', args: ['/x/bin/hookmap.mjs', 'mcp', '--agent', 'codex'] }, 'codex')).toBe(true);
    expect(isHookmapMcp({ command: ['node', '/x/bin/hookmap.mjs', 'mcp', '--agent', 'codex'] }, 'codex')).toBe(true);
    expect(isHookmapMcp({ command: 'hookmap', args: ['mcp', '--agent=codex'] }, 'codex')).toBe(true);
    expect(isHookmapMcp({ command: 'npx', args: ['hookmap', 'mcp', '--agent', 'codex'] }, 'codex')).toBe(true);
    expect(isHookmapMcp({ command: 'npx', args: ['hookmap', 'mcp', '--agent', 'codex'] }, 'claude-code')).toBe(false);
    expect(isHookmapMcp({ command: 'npx', args: ['not-hookmap', 'mcp', '--agent', 'codex'] }, 'codex')).toBe(false);
    expect(isHookmapMcp({ command: 'npx', args: ['hookmap', 'tee', 'codex', '--', 'mcp'] }, 'codex')).toBe(false);
    expect(isHookmapMcp({ url: 'http://x' }, 'codex')).toBe(false);
  });

  it('CLI: --dry-run prints the MCP config diff and writes nothing; the real run says where; a second run says no changes', async () => {
    const s = sandbox();
    const env: NodeJS.ProcessEnv = { ...process.env, HOME: s.home };
    delete env.HOOKMAP_HOME;
    delete env.HOOKMAP_URL;
    const dry = await runCli(['setup', 'claude-code', '--project', '--dir', s.project, '--mcp', '--dry-run'], { env });
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain(`+++ ${join(s.project, '.mcp.json')}`);
    expect(dry.stdout).toContain('"mcpServers": {');
    expect(dry.stdout).toContain('dry run: nothing written');
    expect(existsSync(join(s.project, '.mcp.json'))).toBe(false);
    const real = await runCli(['setup', 'claude-code', '--project', '--dir', s.project, '--mcp'], { env });
    expect(real.code, real.stderr).toBe(0);
    expect(real.stdout).toContain(
      `the hookmap MCP server "hookmap" registered in ${join(s.project, '.mcp.json')}: ${join(s.home, '.hookmap', 'bin', 'hookmap')} mcp --agent claude-code`,
    );
    // the launcher it names is there, and runs this hookmap
    expect(readFileSync(join(s.home, '.hookmap', 'bin', 'hookmap'), 'utf8')).toContain(`bin='${BIN}'`);
    const again = await runCli(['setup', 'claude-code', '--project', '--dir', s.project, '--mcp'], { env });
    expect(again.stdout).toMatch(/^no changes: .*the hookmap MCP server "hookmap" is registered in /);
    const un = await runCli(['setup', 'claude-code', '--project', '--dir', s.project, '--mcp', '--uninstall'], { env });
    expect(un.stdout).toContain(`removed the hookmap MCP server "hookmap" from ${join(s.project, '.mcp.json')}`);
    expect(existsSync(join(s.project, '.mcp.json'))).toBe(false);
  });

  it('planDiff of a dry run shows both files when the hook config and the MCP config differ', () => {
    const s = sandbox();
    const plan = planSetup(loadVendor('codex'), { scope: 'user', dir: s.home, uninstall: false, shim: 'sh', target: resolveTarget(s.env), mcp: true });
    const diff = normal(planDiff(plan), s.home, s.env);
    expect(diff).toContain('+++ <home>/.codex/hooks.json');
    expect(diff).toContain('+++ <home>/.codex/config.toml');
    expect(diff).toContain('+[mcp_servers.hookmap]');
  });
});
