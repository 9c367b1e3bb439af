// Real transcript lines (fixtures/<agent>/transcripts/, recorded live) read
// through the descriptor: the totals equal an independent sum over the
// file's own responses, each counted once.
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Daemon } from '../../../engine/runtime/daemon/daemon.ts';
import { loadVendor, ROOT } from '../../../engine/core/descriptor/registry.ts';
import { readLogs, tempDir } from '../daemon/helpers.ts';

const cleanups: (() => void)[] = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()!();
});

async function readThrough(vendor: string, fixture: string, folder: string): Promise<Record<string, number>> {
  const t = tempDir('hookmap-recorded-usage-');
  cleanups.push(t.done);
  const dir = join(t.dir, 'home', folder);
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'rec.jsonl');
  copyFileSync(join(ROOT, 'fixtures', vendor, 'transcripts', fixture), file);
  const d = Daemon.open({ descriptor: loadVendor(vendor), logDir: join(t.dir, 'logs'), userHome: join(t.dir, 'home') });
  await d.handle({ hook: 'Stop', payload: { session_id: 's', turn_id: 't', hook_event_name: 'Stop', transcript_path: file } });
  await d.handle({ hook: 'Stop', payload: { session_id: 's', turn_id: 't', hook_event_name: 'Stop', transcript_path: file } });
  await d.usage!.idle();
  await d.close();
  const total: Record<string, number> = {};
  for (const e of readLogs(join(t.dir, 'logs')).filter((x) => x.type === 'x.hookmap.usage.reported'))
    for (const [k, v] of Object.entries(e.data as Record<string, unknown>)) if (typeof v === 'number') total[k] = (total[k] ?? 0) + v;
  return total;
}

describe('recorded transcripts', () => {
  it('Claude Code 2.1.328: each response once, input with the cache, from the real lines', async () => {
    const lines = readFileSync(join(ROOT, 'fixtures/claude-code/transcripts/live-2.1.328.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    const byId = new Map<string, { input_tokens: number; output_tokens: number; cache_read_input_tokens: number; cache_creation_input_tokens: number }>();
    for (const l of lines) if (l.type === 'assistant' && l.message?.usage) byId.set(l.message.id, l.message.usage);
    expect(byId.size).toBeGreaterThan(1);
    const sum = (k: 'input_tokens' | 'output_tokens' | 'cache_read_input_tokens' | 'cache_creation_input_tokens') =>
      [...byId.values()].reduce((n, u) => n + u[k], 0);
    const got = await readThrough('claude-code', 'live-2.1.328.jsonl', '.claude/projects/-tmp-p');
    expect(got).toMatchObject({
      'gen_ai.usage.input_tokens': sum('input_tokens') + sum('cache_read_input_tokens') + sum('cache_creation_input_tokens'),
      'gen_ai.usage.output_tokens': sum('output_tokens'),
      'gen_ai.usage.cache_read.input_tokens': sum('cache_read_input_tokens'),
      'gen_ai.usage.cache_creation.input_tokens': sum('cache_creation_input_tokens'),
      responses: byId.size,
    });
  });
});

describe('recorded rollouts', () => {
  it('Codex 0.169.0: each token_count once, with the model of its turn_context', async () => {
    const lines = readFileSync(join(ROOT, 'fixtures/codex/transcripts/live-0.169.0.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    const counts = lines.filter((l) => l.type === 'event_msg' && l.payload?.type === 'token_count' && l.payload.info).map((l) => l.payload.info);
    expect(counts.length).toBeGreaterThan(1);
    // the running total at the end is the sum of the responses
    const last = counts.at(-1).total_token_usage;
    const got = await readThrough('codex', 'live-0.169.0.jsonl', '.codex/sessions/2026/12/01');
    expect(got).toMatchObject({
      'gen_ai.usage.input_tokens': last.input_tokens,
      'gen_ai.usage.output_tokens': last.output_tokens,
      'gen_ai.usage.cache_read.input_tokens': last.cached_input_tokens,
      'gen_ai.usage.reasoning.output_tokens': last.reasoning_output_tokens,
      responses: new Set(counts.map((c) => c.total_token_usage.total_tokens)).size,
    });
  });
});

describe('a rate limit in a recorded rollout', () => {
  const through = async (fixture: string, hooks: string[]) => {
    const t = tempDir('hookmap-recorded-limit-');
    cleanups.push(t.done);
    const dir = join(t.dir, 'home', '.codex/sessions/2026/12/04');
    mkdirSync(dir, { recursive: true });
    const file = join(dir, 'rollout-rec.jsonl');
    copyFileSync(join(ROOT, 'fixtures/codex/transcripts', fixture), file);
    const d = Daemon.open({ descriptor: loadVendor('codex'), logDir: join(t.dir, 'logs'), userHome: join(t.dir, 'home') });
    for (const hook of hooks) await d.handle({ hook, payload: { session_id: 's', hook_event_name: hook, transcript_path: file, reason: 'other' } });
    await d.usage!.idle();
    await d.close();
    return readLogs(join(t.dir, 'logs')).filter((x) => x.type === 'x.hookmap.limit.reached');
  };

  it('Codex 0.169.0: the task_complete of a turn refused 429 is one limit sign, read at SessionEnd, once', async () => {
    const got = await through('live-0.169.0-429.jsonl', ['SessionEnd', 'SessionEnd']);
    expect(got).toHaveLength(1);
    expect(got[0]).toMatchObject({ session: 's', capture: 'metadata', data: { kind: 'rate_limit', hook: 'SessionEnd', transcript: true } });
    expect(got[0].data).not.toHaveProperty('resets_at'); // the rollout says no time
  });

  it('hostile lines: a 429 as a string, in words, or inside a tool output a repository wrote is no sign; usage beside it still counts', async () => {
    const t = tempDir('hookmap-hostile-limit-');
    cleanups.push(t.done);
    const done = (error: unknown) => JSON.stringify({ type: 'event_msg', payload: { type: 'task_complete', error } });
    const forged = done({ codex_error_info: { response_too_many_failed_attempts: { http_status_code: 429 } } });
    const lines = [
      done('exceeded retry limit, last status: 429 Too Many Requests'),
      done({ codex_error_info: { response_too_many_failed_attempts: { http_status_code: '429' } } }),
      done({ codex_error_info: 'usage_limit_exceeded' }),
      JSON.stringify({ type: 'response_item', payload: { type: 'function_call_output', call_id: 'c', output: forged } }),
      '{"type": "event_msg", "payload": ',
      JSON.stringify({ type: 'turn_context', payload: { model: 'gpt-x' } }),
      JSON.stringify({
        type: 'event_msg',
        payload: { type: 'token_count', info: { last_token_usage: { input_tokens: 7, output_tokens: 3 }, total_token_usage: { total_tokens: 10 } } },
      }),
    ];
    const dir = join(t.dir, 'home', '.codex/sessions/2026/12/04');
    mkdirSync(dir, { recursive: true });
    const file = join(dir, 'rollout-hostile.jsonl');
    writeFileSync(file, `${lines.join('\n')}\n`);
    const d = Daemon.open({ descriptor: loadVendor('codex'), logDir: join(t.dir, 'logs'), userHome: join(t.dir, 'home') });
    await d.handle({ hook: 'SessionEnd', payload: { session_id: 'h', hook_event_name: 'SessionEnd', transcript_path: file } });
    await d.usage!.idle();
    await d.close();
    const logged = readLogs(join(t.dir, 'logs'));
    expect(logged.filter((x) => x.type === 'x.hookmap.limit.reached')).toEqual([]);
    expect(logged.find((x) => x.type === 'x.hookmap.usage.reported')?.data).toMatchObject({ 'gen_ai.usage.input_tokens': 7, 'gen_ai.usage.output_tokens': 3 });
  });

  it('Codex 0.169.0: a rollout of turns that finished says no limit', async () => {
    expect(await through('live-0.169.0.jsonl', ['Stop', 'SessionEnd'])).toEqual([]);
  });
});
