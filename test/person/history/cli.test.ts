// hookmap sessions | search | usage | history, the real CLI spawned on a home
// whose logs real daemons wrote (transcript usage included).
import { spawnSync } from 'node:child_process';
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Daemon } from '../../../engine/runtime/daemon/daemon.ts';
import { loadVendor } from '../../../engine/core/descriptor/registry.ts';
import { BIN } from '../../runtime/shim/helpers.ts';
import { tempDir } from '../../runtime/daemon/helpers.ts';

let home: string;
let done: () => void;

function hookmap(args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [BIN, ...args], { env: { ...process.env, HOOKMAP_HOME: home }, encoding: 'utf8' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const line = (id: string, model: string, i: number, o: number, cr = 0, cw = 0) =>
  JSON.stringify({
    type: 'assistant',
    message: {
      id,
      model,
      role: 'assistant',
      content: [],
      usage: { input_tokens: i, output_tokens: o, cache_read_input_tokens: cr, cache_creation_input_tokens: cw },
    },
  });

beforeAll(async () => {
  ({ dir: home, done } = tempDir('hookmap-history-cli-'));
  const user = join(home, 'user');
  const folder = join(user, '.claude', 'projects', '-work-shop');
  mkdirSync(folder, { recursive: true });
  const open = () => Daemon.open({ descriptor: loadVendor('claude-code'), logDir: join(home, 'logs', 'claude-code'), userHome: user });
  let d = open();
  for (const [s, model] of [
    ['alpha', 'claude-sonnet-4-5'],
    ['beta', 'scripted-unknown'],
  ] as const) {
    const file = join(folder, `${s}.jsonl`);
    writeFileSync(file, `${line(`${s}-1`, model, 100, 10, 1000, 200)}\n${line(`${s}-1`, model, 100, 10, 1000, 200)}\n`);
    const base = { session_id: s, transcript_path: file, cwd: '/work/shop' };
    await d.handle({ hook: 'SessionStart', payload: { ...base, hook_event_name: 'SessionStart', source: 'startup' } });
    await d.handle({ hook: 'UserPromptSubmit', payload: { ...base, hook_event_name: 'UserPromptSubmit', prompt: 'p' } });
    await d.handle({
      hook: 'PreToolUse',
      payload: { ...base, hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_use_id: 'c1', tool_input: { command: 'ls' } },
    });
    await d.handle({ hook: 'Stop', payload: { ...base, hook_event_name: 'Stop' } });
    await d.usage!.idle();
    // a daemon restart in the middle, then the file read again with one response more
    await d.close();
    d = open();
    appendFileSync(file, `${line(`${s}-2`, model, 5, 7)}\n`);
    await d.handle({ hook: 'Stop', payload: { ...base, hook_event_name: 'Stop' } });
    await d.handle({ hook: 'SessionEnd', payload: { ...base, hook_event_name: 'SessionEnd', reason: 'other' } });
    await d.usage!.idle();
  }
  await d.close();
}, 120_000);

afterAll(() => done());

describe('the history CLI', () => {
  it('usage --json: per session, the tokens the transcript reported, counted once; no cost for an unknown model', () => {
    const r = hookmap(['usage', '--json']);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    const by = Object.fromEntries(out.sessions.map((s: { session: string }) => [s.session, s]));
    const want = { input_tokens: 1300 + 5, output_tokens: 17, cache_read_tokens: 1000, cache_write_tokens: 200 };
    expect(by.alpha).toMatchObject({ agent: 'claude-code', project: 'shop', models: ['claude-sonnet-4-5'], ...want });
    expect(by.alpha.cost_usd).toBeGreaterThan(0);
    expect(by.beta).toMatchObject({ models: ['scripted-unknown'], ...want, cost_usd: null });
    expect(out.prices).toEqual({ table: '@pydantic/genai-prices', version: '0.1.8', published: '2026-09-23' });
    const byModel = JSON.parse(hookmap(['usage', '--by', 'model', '--json']).stdout).groups;
    expect(byModel.map((g: { key: string }) => g.key)).toEqual(['claude-sonnet-4-5', 'scripted-unknown']);
    const day = JSON.parse(hookmap(['usage', '--by', 'day', '--json']).stdout).groups;
    expect(day).toHaveLength(1);
    expect(day[0]).toMatchObject({ sessions: 2, input_tokens: 2 * 1305, cost_usd: null });
    expect(hookmap(['usage', '--by', 'nonsense']).code).toBe(2);
    expect(hookmap(['usage']).stdout).toMatch(/claude-code\s+2\s+2610\s+34\s+2000\s+400\s+-/);
  });

  it('sessions, search and history reindex', () => {
    const s = JSON.parse(hookmap(['sessions', '--json', '--state', 'ended']).stdout);
    expect(s.map((x: { session: string }) => x.session).sort()).toEqual(['alpha', 'beta']);
    expect(JSON.parse(hookmap(['sessions', '--json', '--agent', 'codex']).stdout)).toEqual([]);
    expect(hookmap(['sessions', '--since', 'yesterday-ish']).code).toBe(2);
    const found = hookmap(['search', 'Bash', '--json']);
    expect(found.code).toBe(0);
    expect(
      JSON.parse(found.stdout)
        .map((h: { session: { session: string } }) => h.session.session)
        .sort(),
    ).toEqual(['alpha', 'beta']);
    // the inbox's filters: agent, project, a time window; bad values are usage errors
    const hitsOf = (...args: string[]) => {
      const r = hookmap(['search', 'Bash', '--json', ...args]);
      return r.code === 0 ? JSON.parse(r.stdout).length : r.code === 1 ? 0 : -(r.code ?? 99);
    };
    expect(hitsOf('--project', 'shop', '--agent', 'claude-code', '--until', '2999-01-01')).toBe(2);
    expect(hitsOf('--project', 'elsewhere')).toBe(0);
    expect(hitsOf('--agent', 'codex')).toBe(0);
    expect(hitsOf('--since', '2999-01-01')).toBe(0);
    expect(hitsOf('--limit', '1')).toBe(1);
    expect(hitsOf('--since', 'last-tuesday')).toBe(-2);
    expect(hitsOf('--limit', '0')).toBe(-2);
    // the prompt was above the metadata ceiling: not in the logs, not found
    expect(hookmap(['search', 'ls']).code).toBe(1);
    const re = JSON.parse(hookmap(['history', 'reindex', '--json']).stdout);
    expect(re).toMatchObject({ sessions: 2, usage: 4 });
    expect(JSON.parse(hookmap(['usage', '--json']).stdout).sessions).toHaveLength(2);
  });
});
