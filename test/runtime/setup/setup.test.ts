// `hookmap setup`: merge into the agent's own config, never replacing the
// user's hooks; backup once; idempotent; exact uninstall; dry-run writes
// nothing. Every path lives under a temp HOME / HOOKMAP_HOME / CODEX_HOME.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadVendor } from '../../../engine/core/descriptor/registry.ts';
import { commitSetup, planDiff, planSetup, type SetupOptions } from '../../../engine/runtime/setup/apply.ts';
import { ConfigParseError } from '../../../engine/runtime/setup/json-file.ts';
import { FormatError } from '../../../engine/runtime/setup/formats/types.ts';
import { BIN, runProcess } from '../shim/helpers.ts';
import { resolveTarget } from '../../../engine/cli/config.ts';
import { hookKeyPath, readHookKey } from '../../../engine/runtime/auth/hook-key.mjs';
import { inspectAgent } from '../../../engine/tools/doctor/wiring.ts';

const root = mkdtempSync(join(tmpdir(), 'hookmap-setup-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;

function sandbox() {
  const dir = join(root, String(n++));
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: join(dir, 'home'),
    HOOKMAP_HOME: join(dir, 'hm'),
    CODEX_HOME: join(dir, 'codex'),
    HOOKMAP_URL: 'http://127.0.0.1:8787',
  };
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

describe('setup: codex (hooks.json under $CODEX_HOME)', () => {
  it('creates the file, generates the shim, re-runs as no-op, and uninstall deletes what only it created', () => {
    const { env } = sandbox();
    const file = join(env.CODEX_HOME!, 'hooks.json');
    const p1 = setup('codex', env);
    expect(p1.configPath).toBe(file);
    expect(p1.createsBackup).toBe(false);
    const doc = JSON.parse(read(file));
    expect(Object.keys(doc)).toEqual(['hooks']); // Codex accepts only description + hooks at the root
    const shim = join(env.HOOKMAP_HOME!, 'shims', 'codex.sh');
    expect(doc.hooks.PreToolUse).toEqual([{ hooks: [{ type: 'command', command: `${shim} PreToolUse`, timeout: 60 }] }]);
    expect(Object.keys(doc.hooks).sort()).toEqual([...loadVendor('codex').hooks.keys()].sort());
    expect(existsSync(shim)).toBe(true);
    expect(existsSync(join(env.HOOKMAP_HOME!, 'shims', 'codex.json'))).toBe(true);

    const p2 = setup('codex', env);
    expect(p2.changed).toBe(false);
    expect(p2.shimChanges).toEqual([]);

    const p3 = setup('codex', env, { uninstall: true });
    expect(p3.after).toBeNull();
    expect(existsSync(file)).toBe(false);
  });
});

describe('setup: claude-code (settings.json with other keys and hooks)', () => {
  const original =
    '{\n    "model": "opus",\n    "hooks": {\n        "PreToolUse": [\n            {"matcher": ' +
    '"Bash", "hooks": [{"type": "command", "command": "other-product check"}]}\n        ],\n    ' +
    '    "Stop": []\n    },\n    "z": 1\n}\n';

  function seeded() {
    const s = sandbox();
    const file = join(s.env.HOME!, '.claude', 'settings.json');
    mkdirSync(join(s.env.HOME!, '.claude'), { recursive: true });
    writeFileSync(file, original);
    return { ...s, file };
  }

  it('adds http entries where the agent delivers over HTTP, shim commands elsewhere, keeping every other key and hook', () => {
    const { env, file } = seeded();
    const plan = setup('claude-code', env);
    const doc = JSON.parse(read(file));
    expect(doc.model).toBe('opus');
    expect(doc.z).toBe(1);
    expect(doc.hooks.PreToolUse[0]).toEqual({ matcher: 'Bash', hooks: [{ type: 'command', command: 'other-product check' }] });
    // the native HTTP hook presents the home's key, which setup created 0600
    const key = readHookKey(env.HOOKMAP_HOME!);
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    expect(statSync(hookKeyPath(env.HOOKMAP_HOME!)).mode & 0o777).toBe(0o600);
    expect(doc.hooks.PreToolUse[1]).toEqual({
      hooks: [{ type: 'http', url: 'http://127.0.0.1:8787/hooks/claude-code', headers: { 'x-hookmap-key': key }, timeout: 600 }],
    });
    // the diff setup prints (--dry-run, and after a change) shows the key masked
    expect(planDiff(plan)).toContain('"x-hookmap-key": "[hook key]"');
    expect(planDiff(plan)).not.toContain(key!);
    expect(doc.hooks.PermissionRequest[0].hooks[0].type).toBe('http');
    expect(doc.hooks.SessionStart[0].hooks[0]).toEqual({
      type: 'command',
      command: `${join(env.HOOKMAP_HOME!, 'shims', 'claude-code.sh')} SessionStart`,
      timeout: 600,
    });
    expect(doc.hooks.WorktreeCreate).toBeUndefined(); // register: false
    expect(read(`${file}.hookmap.bak`)).toBe(original);
    expect(read(file)).toMatch(/^\{\n {4}"model"/); // the file's 4-space indent is kept
  });

  it('a project config (which may be committed) never holds the key: its native HTTP hooks run the shim, which reads it from the home', () => {
    const { env } = sandbox();
    const proj = join(env.HOME!, 'proj');
    mkdirSync(proj, { recursive: true });
    setup('claude-code', env, { scope: 'project', dir: proj });
    const text = read(join(proj, '.claude', 'settings.json'));
    const key = readHookKey(env.HOOKMAP_HOME!)!;
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    expect(text).not.toContain(key);
    expect(text).not.toContain('"http"');
    expect(JSON.parse(text).hooks.PreToolUse[0].hooks[0].command).toBe(`${join(env.HOOKMAP_HOME!, 'shims', 'claude-code.sh')} PreToolUse`);
    expect(read(join(env.HOOKMAP_HOME!, 'shims', 'claude-code.sh'))).toContain(`-H @"$key"`);
  });

  it("a wiring that predates the key: doctor names it, setup rewrites it with this home's key, doctor is then quiet about it", () => {
    const { env, file } = seeded();
    setup('claude-code', env);
    const t = resolveTarget(env);
    const d = loadVendor('claude-code');
    // as an older hookmap left it: native HTTP hooks without the header, a shim without the key line
    const doc = JSON.parse(read(file));
    for (const groups of Object.values(doc.hooks) as any[]) for (const g of groups) for (const h of g.hooks) delete h.headers;
    writeFileSync(file, JSON.stringify(doc, null, 4));
    const sh = join(env.HOOKMAP_HOME!, 'shims', 'claude-code.sh');
    writeFileSync(
      sh,
      read(sh)
        .replace(/ -H @"\$key"/g, '')
        .replace(/^key=.*\n/m, ''),
    );
    const said = (w: ReturnType<typeof inspectAgent>) => w.findings.filter((f) => /hook key/.test(f.message));
    const before = said(inspectAgent(d, t, env.HOME!));
    expect(before.map((f) => f.status)).toEqual(['problem', 'problem']);
    expect(before[0].message).toMatch(/native HTTP hooks that predate the hook key .*PreToolUse/);
    expect(before[1].message).toMatch(/the shim .*claude-code\.sh predates the hook key/);
    expect(before.every((f) => f.fix === 'hookmap setup claude-code --user')).toBe(true);
    // another home's key in the header: refused, said so
    const other = JSON.parse(read(file));
    other.hooks.PreToolUse[1].hooks[0].headers = { 'x-hookmap-key': 'c'.repeat(64) };
    writeFileSync(file, JSON.stringify(other, null, 4));
    expect(said(inspectAgent(d, t, env.HOME!)).some((f) => /a hook key that is not this home's/.test(f.message))).toBe(true);
    // the upgrade: setup rewrites both
    const p = setup('claude-code', env);
    expect(p.changed).toBe(true);
    expect(said(inspectAgent(d, t, env.HOME!))).toEqual([]);
    expect(JSON.parse(read(file)).hooks.PreToolUse[1].hooks[0].headers).toEqual({ 'x-hookmap-key': readHookKey(env.HOOKMAP_HOME!) });
    // a home whose key file is gone: doctor says so
    rmSync(hookKeyPath(env.HOOKMAP_HOME!));
    expect(said(inspectAgent(d, t, env.HOME!)).some((f) => /hook-key is missing/.test(f.message))).toBe(true);
  });

  it('is idempotent, backs up once, and uninstall restores the original bytes exactly', () => {
    const { env, file } = seeded();
    setup('claude-code', env);
    const after1 = read(file);
    const p2 = setup('claude-code', env);
    expect(p2.changed).toBe(false);
    expect(read(file)).toBe(after1);
    const p3 = setup('claude-code', env, { uninstall: true });
    expect(p3.restoresBackup).toBe(true);
    expect(read(file)).toBe(original);
    expect(existsSync(`${file}.hookmap.bak`)).toBe(false);
    expect(setup('claude-code', env, { uninstall: true }).changed).toBe(false);
  });

  it("keeps the user's later edits on uninstall (no blind restore), removing only hookmap's entries", () => {
    const { env, file } = seeded();
    setup('claude-code', env);
    const doc = JSON.parse(read(file));
    doc.theme = 'dark';
    doc.hooks.Stop.push({ hooks: [{ type: 'command', command: 'mine' }] });
    writeFileSync(file, JSON.stringify(doc, null, 4));
    const p = setup('claude-code', env, { uninstall: true });
    expect(p.restoresBackup).toBe(false);
    const left = JSON.parse(read(file));
    expect(left.theme).toBe('dark');
    expect(left.hooks.Stop).toEqual([{ hooks: [{ type: 'command', command: 'mine' }] }]);
    expect(left.hooks.PreToolUse).toEqual([{ matcher: 'Bash', hooks: [{ type: 'command', command: 'other-product check' }] }]);
    expect(left.hooks.SessionStart).toBeUndefined();
    expect(read(file)).not.toMatch(/hookmap|\/hooks\/claude-code/);
  });

  it('rewrites an outdated hookmap entry in place and collapses duplicates instead of adding more', () => {
    const { env, file } = seeded();
    setup('claude-code', env);
    const doc = JSON.parse(read(file));
    doc.hooks.PreToolUse[1].hooks[0].url = 'http://127.0.0.1:9999/hooks/claude-code';
    doc.hooks.SessionStart.push(structuredClone(doc.hooks.SessionStart[0]));
    writeFileSync(file, JSON.stringify(doc, null, 4));
    setup('claude-code', env);
    const fixed = JSON.parse(read(file));
    expect(fixed.hooks.PreToolUse).toHaveLength(2);
    expect(fixed.hooks.PreToolUse[1].hooks[0].url).toBe('http://127.0.0.1:8787/hooks/claude-code');
    // the SessionStart handler once, beside the next-turn carrier's background waiter
    expect(fixed.hooks.SessionStart.map((g: any) => g.hooks[0].command.split(' ').pop())).toEqual(['SessionStart', 'next-turn']);
  });

  it('refuses files it cannot parse exactly, or whose hooks are not the expected shape, writing nothing', () => {
    const { env, file } = seeded();
    writeFileSync(file, '{ // a comment\n "hooks": {} }\n');
    expect(() => setup('claude-code', env)).toThrow(ConfigParseError);
    writeFileSync(file, '{"hooks": []}');
    expect(() => setup('claude-code', env)).toThrow(FormatError);
    expect(read(file)).toBe('{"hooks": []}');
    expect(existsSync(`${file}.hookmap.bak`)).toBe(false);
  });

  it('wires the project file under --dir with --project', () => {
    const { env, dir } = sandbox();
    const proj = join(dir, 'proj');
    const p = setup('claude-code', env, { scope: 'project', dir: proj });
    expect(p.configPath).toBe(join(proj, '.claude', 'settings.json'));
    expect(existsSync(p.configPath)).toBe(true);
    expect(existsSync(join(env.HOME!, '.claude', 'settings.json'))).toBe(false);
  });

  it(
    'registers the Node shim with --shim node through the launcher in $HOOKMAP_HOME/bin (never ' + 'a path into the checkout), and that launcher runs it',
    async () => {
      const { env } = sandbox();
      const p = setup('claude-code', env, { shim: 'node' });
      const doc = JSON.parse(read(p.configPath));
      const launcher = join(env.HOOKMAP_HOME!, 'bin', 'hookmap');
      const command: string = doc.hooks.SessionStart[0].hooks[0].command;
      expect(command).toBe(`${launcher} hook claude-code SessionStart`);
      expect(JSON.stringify(doc)).not.toContain('hookmap.mjs');
      // the launcher names this Node and this hookmap; run as the agent would (no daemon: the shim fails open, neutral, exit 0)
      expect(read(launcher)).toContain(`bin='${BIN}'`);
      const r = await runProcess(
        launcher,
        ['hook', 'claude-code', 'SessionStart'],
        JSON.stringify({ hook_event_name: 'SessionStart', session_id: 's', cwd: '/', transcript_path: '/dev/null', source: 'startup' }),
        { ...env, HOOKMAP_URL: 'http://127.0.0.1:9', HOOKMAP_AUTOSTART: '0' }, // fail open, and start nothing on port 9
      );
      expect(r.code).toBe(0);
      expect(setup('claude-code', env, { shim: 'node', uninstall: true }).after).toBeNull();
    },
  );
});

describe('setup: gemini-cli (settings.json, ms timeouts, named entries)', () => {
  it('writes ms timeouts and the name field', () => {
    const { env } = sandbox();
    const p = setup('gemini-cli', env);
    const doc = JSON.parse(read(p.configPath));
    expect(doc.hooks.BeforeTool[0].hooks[0]).toEqual({
      type: 'command',
      command: `${join(env.HOOKMAP_HOME!, 'shims', 'gemini-cli.sh')} BeforeTool`,
      timeout: 60000,
      name: 'hookmap',
    });
    expect(doc.hooks.AfterModel).toBeUndefined(); // register: false
  });
});

describe('hookmap setup (CLI)', () => {
  it('--dry-run prints the merge as a diff and writes nothing; a second real run says "no changes"', async () => {
    const { env } = sandbox();
    const dry = await runProcess(process.execPath, [BIN, 'setup', 'codex', '--dry-run'], '', env);
    expect(dry.code).toBe(0);
    const out = dry.stdout.toString();
    expect(out).toContain('+++ ');
    expect(out).toContain('+    "PreToolUse": [');
    expect(out).toContain('dry run: nothing written');
    expect(existsSync(join(env.CODEX_HOME!, 'hooks.json'))).toBe(false);
    expect(existsSync(join(env.HOOKMAP_HOME!, 'shims'))).toBe(false);
    const real = await runProcess(process.execPath, [BIN, 'setup', 'codex'], '', env);
    expect(real.code).toBe(0);
    expect(real.stdout.toString()).toContain('hooks = true'); // the feature-flag note
    const again = await runProcess(process.execPath, [BIN, 'setup', 'codex'], '', env);
    expect(again.stdout.toString()).toMatch(/^no changes/);
  });

  it('exits 2 on usage errors and 1 when the config cannot be parsed', async () => {
    const { env } = sandbox();
    expect((await runProcess(process.execPath, [BIN, 'setup'], '', env)).code).toBe(2);
    expect((await runProcess(process.execPath, [BIN, 'setup', 'codex', '--user', '--project'], '', env)).code).toBe(2);
    mkdirSync(env.CODEX_HOME!, { recursive: true });
    writeFileSync(join(env.CODEX_HOME!, 'hooks.json'), '{nope');
    const r = await runProcess(process.execPath, [BIN, 'setup', 'codex'], '', env);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('not plain JSON');
  });
});
