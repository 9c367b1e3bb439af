// `hookmap doctor`: wiring, daemon health, stale/duplicated registrations,
// log folder health. Temp HOME / HOOKMAP_HOME / CODEX_HOME; the daemon is a
// fake on loopback (or a closed port).
import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runDoctor } from '../../../engine/tools/doctor/index.ts';
import { BIN, fakeDaemon, runProcess } from '../../runtime/shim/helpers.ts';
import { sandboxes, setup } from './helpers.ts';
import { resolveTarget } from '../../../engine/cli/config.ts';

const sandbox = sandboxes('hookmap-doctor-');

const AGENTS = ['codex', 'claude-code'];
const messages = (r: Awaited<ReturnType<typeof runDoctor>>, status: string) => r.findings.filter((f) => f.status === status).map((f) => f.message);

describe('hookmap doctor', () => {
  it('is healthy with nothing wired and no daemon (nothing to lose)', async () => {
    const { env, dir } = sandbox();
    const r = await runDoctor({ target: resolveTarget(env), dir, url: 'http://127.0.0.1:9', agents: AGENTS });
    expect(r.healthy).toBe(true);
    expect(r.wired).toEqual([]);
    expect(messages(r, 'info').join('\n')).toMatch(/not wired/);
  });

  it('reports a wired agent, a healthy daemon and a relay that is not connected', async () => {
    const { env, dir } = sandbox();
    const daemon = await fakeDaemon('up');
    env.HOOKMAP_URL = daemon.url;
    setup('codex', env);
    mkdirSync(join(env.CODEX_HOME!), { recursive: true });
    writeFileSync(join(env.CODEX_HOME!, 'config.toml'), '[features]\nhooks = true\n');
    const r = await runDoctor({ target: resolveTarget(env), dir, url: daemon.url, agents: AGENTS });
    await daemon.close();
    expect(r.wired).toEqual(['codex']);
    expect(r.healthy).toBe(true);
    expect(messages(r, 'ok').join('\n')).toMatch(/12\/12 hooks wired[\s\S]*daemon answers/);
    expect(messages(r, 'warn').join('\n')).toMatch(/relay not connected/);
  });

  it('flags a dead daemon, a missing feature flag, a stale shim and a vanished one', async () => {
    const { env, dir } = sandbox();
    setup('codex', env);
    setup('claude-code', env);
    const codexShim = join(env.HOOKMAP_HOME!, 'shims', 'codex.sh');
    writeFileSync(codexShim, readFileSync(codexShim, 'utf8').replace(/descriptor=\w+/, 'descriptor=0123'));
    rmSync(join(env.HOOKMAP_HOME!, 'shims', 'claude-code.sh'));
    const r = await runDoctor({ target: resolveTarget(env), dir, url: 'http://127.0.0.1:9', agents: AGENTS });
    expect(r.healthy).toBe(false);
    const problems = messages(r, 'problem').join('\n');
    expect(problems).toMatch(/no daemon answers/);
    expect(problems).toMatch(/codex\.sh is stale/);
    expect(problems).toMatch(/claude-code\.sh does not exist/);
    expect(messages(r, 'warn').join('\n')).toMatch(/hooks = true/);
  });

  it('counts the next-turn waiter apart from its hook: wired is quiet, missing is a warning, two are a problem', async () => {
    const { env, dir } = sandbox();
    const daemon = await fakeDaemon('up');
    env.HOOKMAP_URL = daemon.url;
    const p = setup('claude-code', env);
    const wired = await runDoctor({ target: resolveTarget(env), dir, url: daemon.url, agents: ['claude-code'] });
    expect([...messages(wired, 'problem'), ...messages(wired, 'warn')].join('\n')).not.toMatch(/next-turn|duplicate/);
    const doc = JSON.parse(readFileSync(p.configPath, 'utf8'));
    const isWaiter = (g: any) => g.hooks.some((h: any) => / next-turn$/.test(h.command));
    const waiter = doc.hooks.Stop.find(isWaiter);
    doc.hooks.Stop = doc.hooks.Stop.filter((g: any) => !isWaiter(g));
    writeFileSync(p.configPath, JSON.stringify(doc));
    const missing = await runDoctor({ target: resolveTarget(env), dir, url: daemon.url, agents: ['claude-code'] });
    expect(messages(missing, 'warn').join('\n')).toMatch(/the next-turn waiter is not wired on Stop/);
    doc.hooks.Stop.push(waiter, structuredClone(waiter));
    writeFileSync(p.configPath, JSON.stringify(doc));
    const twice = await runDoctor({ target: resolveTarget(env), dir, url: daemon.url, agents: ['claude-code'] });
    await daemon.close();
    expect(messages(twice, 'problem').join('\n')).toMatch(/next-turn waiters beyond one per carrier hook: Stop/);
    expect(messages(twice, 'problem').join('\n')).not.toMatch(/duplicate hookmap entries/);
  });

  it("flags duplicate entries, wiring in both scopes, and notes other products' hooks", async () => {
    const { env, dir } = sandbox();
    const daemon = await fakeDaemon('up');
    env.HOOKMAP_URL = daemon.url;
    const p = setup('claude-code', env);
    const doc = JSON.parse(readFileSync(p.configPath, 'utf8'));
    doc.hooks.Stop.push(structuredClone(doc.hooks.Stop[0]));
    doc.hooks.Stop.push({ hooks: [{ type: 'command', command: 'other-product notify' }] });
    writeFileSync(p.configPath, JSON.stringify(doc));
    setup('claude-code', env, { scope: 'project', dir: join(dir, 'proj') });
    const r = await runDoctor({ target: resolveTarget(env), dir: join(dir, 'proj'), url: daemon.url, agents: ['claude-code'] });
    await daemon.close();
    const problems = messages(r, 'problem').join('\n');
    expect(problems).toMatch(/duplicate hookmap entries.*Stop x2/);
    expect(problems).toMatch(/both the user and the project config/);
    expect(messages(r, 'warn').join('\n')).toMatch(/other-product notify/);
  });

  it('checks the log folder: size when writable, a problem when not', async () => {
    const { env, dir } = sandbox();
    const logs = join(env.HOOKMAP_HOME!, 'logs', 'codex');
    mkdirSync(logs, { recursive: true });
    writeFileSync(join(logs, 's.jsonl'), 'x'.repeat(2048));
    const ok = await runDoctor({ target: resolveTarget(env), dir, url: 'http://127.0.0.1:9', agents: AGENTS });
    expect(ok.findings.find((f) => f.area === 'logs')?.message).toMatch(/writable: 1 files, 2\.0 KB/);
    if (process.getuid?.() === 0) return; // root writes anywhere: the read-only half cannot be shown
    chmodSync(join(env.HOOKMAP_HOME!, 'logs'), 0o500);
    try {
      const bad = await runDoctor({ target: resolveTarget(env), dir, url: 'http://127.0.0.1:9', agents: AGENTS });
      expect(bad.findings.find((f) => f.area === 'logs')?.status).toBe('problem');
      expect(bad.healthy).toBe(false);
    } finally {
      chmodSync(join(env.HOOKMAP_HOME!, 'logs'), 0o700);
    }
  });

  it('CLI: --json, exit 0 healthy and 1 with problems', async () => {
    const { env, dir } = sandbox();
    env.HOOKMAP_URL = 'http://127.0.0.1:9';
    const healthy = await runProcess(process.execPath, [BIN, 'doctor', 'codex', '--json', '--dir', dir], '', env);
    expect(healthy.code).toBe(0);
    expect(JSON.parse(healthy.stdout.toString()).healthy).toBe(true);
    setup('codex', env);
    const sick = await runProcess(process.execPath, [BIN, 'doctor', 'codex', '--dir', dir], '', env);
    expect(sick.code).toBe(1);
    expect(sick.stdout.toString()).toMatch(/\[FAIL\] no daemon answers[\s\S]*fix: hookmap up/);
  });
});
