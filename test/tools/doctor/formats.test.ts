// `hookmap doctor` over every config format: wiring found, stale plugins,
// missing shims, duplicated registrations, and the Claude Code + Cursor
// double-wiring note. Temp HOME / HOOKMAP_HOME / agent homes only.
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runDoctor } from '../../../engine/tools/doctor/index.ts';
import { loadVendor } from '../../../engine/core/descriptor/registry.ts';
import { commitSetup, planSetup, type SetupOptions } from '../../../engine/runtime/setup/apply.ts';
import { fakeDaemon } from '../../runtime/shim/helpers.ts';
import { resolveTarget } from '../../../engine/cli/config.ts';

const root = mkdtempSync(join(tmpdir(), 'hookmap-doctor-formats-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;

function sandbox() {
  const dir = join(root, String(n++));
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: join(dir, 'home'),
    HOOKMAP_HOME: join(dir, 'hm'),
    KIMI_CODE_HOME: join(dir, 'kimi'),
    HERMES_HOME: join(dir, 'hermes'),
  };
  mkdirSync(env.HOME!, { recursive: true });
  const proj = join(dir, 'proj');
  mkdirSync(proj, { recursive: true });
  return { dir, proj, env };
}

function setup(agent: string, env: NodeJS.ProcessEnv, proj: string, o: Partial<SetupOptions> = {}) {
  const d = loadVendor(agent);
  const plan = planSetup(d, { scope: 'user', dir: proj, uninstall: false, shim: 'sh', target: resolveTarget(env), ...o });
  commitSetup(d, plan, resolveTarget(env));
  return plan;
}

const messages = (r: Awaited<ReturnType<typeof runDoctor>>, status: string, subject?: string) =>
  r.findings
    .filter((f) => f.status === status && (!subject || f.subject === subject))
    .map((f) => f.message)
    .join('\n');

// [agent, scope, what doctor says when it is wired well]
const WIRED: [string, 'user' | 'project', RegExp][] = [
  ['vscode', 'project', /8\/8 hooks wired/],
  ['cursor', 'user', /17\/17 hooks wired/],
  ['antigravity', 'user', /5\/5 hooks wired/],
  ['kimi-code', 'user', /16\/16 hooks wired/],
  ['hermes', 'user', /12\/12 hooks wired/],
  ['cline', 'project', /10\/10 hooks wired/],
  ['qwen-code', 'user', /18\/18 hooks wired/],
  ['opencode', 'user', /plugin installed/],
  ['kilocode', 'project', /plugin installed/],
  ['pi', 'user', /plugin installed/],
];

describe('hookmap doctor: every format', () => {
  it('reports each agent wired, healthy with a daemon up', async () => {
    const { env, proj } = sandbox();
    const daemon = await fakeDaemon('up');
    env.HOOKMAP_URL = daemon.url;
    for (const [agent, scope] of WIRED) setup(agent, env, proj, { scope });
    const r = await runDoctor({ target: resolveTarget(env), dir: proj, url: daemon.url, agents: WIRED.map(([a]) => a) });
    await daemon.close();
    expect(r.wired.sort()).toEqual(WIRED.map(([a]) => a).sort());
    for (const [agent, , ok] of WIRED) expect(messages(r, 'ok', agent)).toMatch(ok);
    expect(messages(r, 'problem')).toBe('');
    expect(r.findings.some((f) => /not checked/.test(f.message))).toBe(false);
    expect(r.healthy).toBe(true);
  });

  it('flags a stale plugin, a missing shim, a stale shim and duplicated registrations', async () => {
    const { env, proj } = sandbox();
    env.HOOKMAP_URL = 'http://127.0.0.1:9';
    const pi = setup('pi', env, proj);
    writeFileSync(pi.configPath, readFileSync(pi.configPath, 'utf8').replace(/descriptor=\w+/, 'descriptor=0123'));
    setup('cline', env, proj, { scope: 'project' });
    rmSync(join(env.HOOKMAP_HOME!, 'shims', 'cline.sh'));
    const kimi = setup('kimi-code', env, proj);
    appendFileSync(kimi.configPath, `\n[[hooks]]\nevent = "Stop"\ncommand = "${join(env.HOOKMAP_HOME!, 'shims', 'kimi-code.sh')} Stop"\n`);
    const hermes = setup('hermes', env, proj);
    const hermesShim = join(env.HOOKMAP_HOME!, 'shims', 'hermes.sh');
    writeFileSync(hermesShim, readFileSync(hermesShim, 'utf8').replace(/descriptor=\w+/, 'descriptor=0123'));
    writeFileSync(
      hermes.configPath,
      readFileSync(hermes.configPath, 'utf8').replace(/(  on_session_start:\n)(    - command: .*\n      timeout: 60\n)/, '$1$2$2'),
    );
    const vs = setup('vscode', env, proj, { scope: 'project' });
    const doc = JSON.parse(readFileSync(vs.configPath, 'utf8'));
    doc.hooks.Stop.push({ type: 'command', command: 'other-product notify' });
    delete doc.hooks.PreCompact;
    writeFileSync(vs.configPath, JSON.stringify(doc));
    const r = await runDoctor({ target: resolveTarget(env), dir: proj, url: env.HOOKMAP_URL, agents: ['pi', 'cline', 'kimi-code', 'hermes', 'vscode'] });
    expect(r.healthy).toBe(false);
    expect(messages(r, 'problem', 'pi')).toMatch(/plugin is stale \(v1 descriptor=0123; want v1 descriptor=[0-9a-f]{32}\)/);
    expect(messages(r, 'problem', 'cline')).toMatch(/cline\.sh does not exist/);
    expect(messages(r, 'problem', 'kimi-code')).toMatch(/duplicate hookmap entries.*Stop x2/);
    expect(messages(r, 'problem', 'hermes')).toMatch(/duplicate hookmap entries.*on_session_start x2/);
    expect(messages(r, 'problem', 'hermes')).toMatch(/hermes\.sh is stale/);
    expect(messages(r, 'warn', 'vscode')).toMatch(/hooks not wired: PreCompact/);
    expect(messages(r, 'warn', 'vscode')).toMatch(/other-product notify/);
  });

  it('says when Claude Code and Cursor are both wired, and that the defer rule attributes the copies to cursor', async () => {
    const { env, proj } = sandbox();
    env.HOOKMAP_URL = 'http://127.0.0.1:9';
    setup('claude-code', env, proj, { scope: 'project' });
    const alone = await runDoctor({ target: resolveTarget(env), dir: proj, url: env.HOOKMAP_URL, agents: ['claude-code'] });
    expect(alone.findings.some((f) => f.subject === 'claude-code + cursor')).toBe(false);
    setup('cursor', env, proj, { scope: 'project' });
    for (const agents of [['claude-code', 'cursor'], ['claude-code']]) {
      const r = await runDoctor({ target: resolveTarget(env), dir: proj, url: env.HOOKMAP_URL, agents });
      const f = r.findings.find((x) => x.subject === 'claude-code + cursor');
      expect(f?.status).toBe('warn');
      expect(f?.message).toMatch(/cursor also runs claude-code's hook config.*`defer:` rule.*counted once, under cursor/);
    }
  });
});
