// Token usage read from the agent's own transcript (docs/usage.md): real
// daemons with the real Claude Code and Codex descriptors, real files.
import { appendFileSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Daemon } from '../../../engine/runtime/daemon/daemon.ts';
import { loadVendor } from '../../../engine/core/descriptor/registry.ts';
import type { AepEvent } from '../../../engine/core/map/envelope.ts';
import { readLogs, tempDir } from '../daemon/helpers.ts';

const cleanups: (() => void)[] = [];
afterEach(async () => {
  while (cleanups.length) cleanups.pop()!();
});

const SESSION = '5b1c7a52-0d5e-4a1b-9a51-0c1c2f3e4d5a';

/** A Claude Code assistant transcript line (the shape 2.1.328 writes: one line per content block, the usage repeated). */
function ccLine(id: string, model: string, u: { in: number; out: number; cr?: number; cw?: number }, block = 'text'): string {
  const usage = {
    input_tokens: u.in,
    cache_creation_input_tokens: u.cw ?? 0,
    cache_read_input_tokens: u.cr ?? 0,
    output_tokens: u.out,
    service_tier: 'standard',
  };
  const message = { id, type: 'message', role: 'assistant', model, content: [{ type: block, text: 'x' }], stop_reason: null, stop_sequence: null, usage };
  return JSON.stringify({
    parentUuid: null,
    isSidechain: false,
    type: 'assistant',
    message,
    sessionId: SESSION,
    uuid: `${id}-${block}`,
    timestamp: '2026-12-01T18:00:00.000Z',
  });
}

function setup(vendor = 'claude-code') {
  const t = tempDir('hookmap-usage-');
  cleanups.push(t.done);
  const home = join(t.dir, 'home');
  const logDir = join(t.dir, 'logs');
  const folder = vendor === 'claude-code' ? join(home, '.claude', 'projects', '-work-proj') : join(home, '.codex', 'sessions', '2026', '12', '01');
  mkdirSync(folder, { recursive: true });
  const file = join(folder, vendor === 'claude-code' ? `${SESSION}.jsonl` : `rollout-2026-12-01T18-00-00-${SESSION}.jsonl`);
  const reads: { session: string; events: number; refused?: string }[] = [];
  const open = () => {
    const d = Daemon.open({ descriptor: loadVendor(vendor), logDir, userHome: home, onUsageRead: (r) => reads.push(r) });
    cleanups.push(() => void d.close());
    return d;
  };
  return { dir: t.dir, home, logDir, folder, file, reads, open };
}

async function fire(d: Daemon, hook: string, payload: Record<string, unknown>): Promise<void> {
  await d.handle({ hook, payload: { session_id: SESSION, cwd: '/work/proj', hook_event_name: hook, ...payload } });
  await d.usage!.idle();
}

const usageOf = (logDir: string): AepEvent[] => readLogs(logDir).filter((e) => e.type === 'x.hookmap.usage.reported');
const sum = (evs: AepEvent[], key: string) => evs.reduce((n, e) => n + ((e.data as Record<string, number>)[key] ?? 0), 0);

describe('Claude Code transcript usage', () => {
  it("a sub-agent's own transcript counts into the session, apart (data.part), and lines it gets after SubagentStop count at the next read", async () => {
    const s = setup();
    writeFileSync(s.file, `${ccLine('msg_main1', 'claude-sonnet-4-5', { in: 100, out: 10 })}\n`);
    const sub = join(s.folder, SESSION, 'subagents', 'agent-a1b2c3.jsonl');
    mkdirSync(join(s.folder, SESSION, 'subagents'), { recursive: true });
    writeFileSync(sub, `${ccLine('msg_sub1', 'claude-sonnet-4-5', { in: 40, out: 4 })}\n`);
    const d = s.open();
    const stop = { agent_id: 'a1b2c3', agent_type: 'Explore', agent_transcript_path: sub, transcript_path: s.file };
    await fire(d, 'SubagentStop', stop);
    // its last response reaches its file after the hook (Claude Code writes it behind): counted at the session's next read
    appendFileSync(sub, `${ccLine('msg_sub2', 'claude-sonnet-4-5', { in: 50, out: 5 })}\n`);
    await fire(d, 'Stop', { transcript_path: s.file });
    const evs = usageOf(s.logDir);
    const part = evs.filter((e) => (e.data as Record<string, unknown>).part === 'subagent Explore a1b2c3');
    expect(sum(part, 'gen_ai.usage.output_tokens')).toBe(9);
    expect(sum(evs, 'gen_ai.usage.output_tokens')).toBe(19);
    expect(sum(evs, 'gen_ai.usage.input_tokens')).toBe(190);
    // read again: nothing counted twice
    await fire(d, 'SessionEnd', { transcript_path: s.file, reason: 'other' });
    expect(sum(usageOf(s.logDir), 'gen_ai.usage.output_tokens')).toBe(19);
  });

  it('counts each response once (one line per content block), after the reply, with the model and a cost from the price table', async () => {
    const s = setup();
    writeFileSync(
      s.file,
      [
        ccLine('msg_1', 'claude-sonnet-4-5', { in: 10, out: 20, cr: 100, cw: 50 }, 'thinking'),
        ccLine('msg_1', 'claude-sonnet-4-5', { in: 10, out: 20, cr: 100, cw: 50 }, 'tool_use'),
        JSON.stringify({ type: 'user', message: { role: 'user', content: 'hi' } }),
        '',
      ].join('\n'),
    );
    const d = s.open();
    await d.handle({ hook: 'UserPromptSubmit', payload: { session_id: SESSION, hook_event_name: 'UserPromptSubmit', prompt: 'p', transcript_path: s.file } });
    const reply = await d.handle({ hook: 'Stop', payload: { session_id: SESSION, hook_event_name: 'Stop', transcript_path: s.file } });
    expect(reply.exit).toBe(0);
    // the reply went out before the transcript was read
    expect(usageOf(s.logDir)).toHaveLength(0);
    await d.usage!.idle();
    const [ev, ...rest] = usageOf(s.logDir);
    expect(rest).toHaveLength(0);
    expect(ev.data).toMatchObject({
      'gen_ai.response.model': 'claude-sonnet-4-5',
      'gen_ai.usage.input_tokens': 160,
      'gen_ai.usage.output_tokens': 20,
      'gen_ai.usage.cache_read.input_tokens': 100,
      'gen_ai.usage.cache_creation.input_tokens': 50,
      responses: 1,
      cost: { currency: 'USD' },
      price_table: '@pydantic/genai-prices 0.1.8 (2026-09-23)',
    });
    expect((ev.data as { cost: { total: number } }).cost.total).toBeGreaterThan(0);
    // it belongs to the run the Stop ended
    const finished = readLogs(s.logDir).find((e) => e.type === 'run.finished')!;
    expect(ev.run).toBe(finished.run);
  });

  it('reads only what was appended: a second read of the same file counts nothing again, a restart neither re-counts nor misses', async () => {
    const s = setup();
    writeFileSync(s.file, `${ccLine('msg_1', 'claude-sonnet-4-5', { in: 5, out: 7 })}\n`);
    let d = s.open();
    await fire(d, 'Stop', { transcript_path: s.file });
    await fire(d, 'Stop', { transcript_path: s.file });
    expect(usageOf(s.logDir)).toHaveLength(1);
    appendFileSync(s.file, `${ccLine('msg_2', 'claude-sonnet-4-5', { in: 3, out: 4 })}\n`);
    await d.close();
    d = s.open();
    appendFileSync(
      s.file,
      `${ccLine('msg_2', 'claude-sonnet-4-5', { in: 3, out: 4 }, 'tool_use')}\n${ccLine('msg_3', 'claude-sonnet-4-5', { in: 1, out: 1 })}\n`,
    );
    await fire(d, 'SessionEnd', { transcript_path: s.file, reason: 'other' });
    const evs = usageOf(s.logDir);
    expect(evs).toHaveLength(2);
    expect(sum(evs, 'gen_ai.usage.input_tokens')).toBe(9);
    expect(sum(evs, 'gen_ai.usage.output_tokens')).toBe(12);
    expect(sum(evs, 'responses')).toBe(3);
  });

  it('skips broken lines, waits for a line truncated mid-write, skips a line over the limit whole', async () => {
    const s = setup();
    const whole = ccLine('msg_1', 'claude-sonnet-4-5', { in: 1, out: 2 });
    const late = ccLine('msg_2', 'claude-sonnet-4-5', { in: 10, out: 20 });
    const huge = ccLine('msg_big', 'claude-sonnet-4-5', { in: 1000, out: 1000 }).replace('"text":"x"', `"text":"${'y'.repeat(1_200_000)}"`);
    writeFileSync(s.file, `{"type":"assistant","message":{broken\n${whole}\n${huge.slice(0, 700_000)}`);
    const d = s.open();
    await fire(d, 'Stop', { transcript_path: s.file });
    // the huge line is still being written: more of it, then its end and a line truncated mid-line
    appendFileSync(s.file, huge.slice(700_000, 1_100_000));
    await fire(d, 'Stop', { transcript_path: s.file });
    appendFileSync(s.file, `${huge.slice(1_100_000)}\n${late.slice(0, 40)}`);
    await fire(d, 'Stop', { transcript_path: s.file });
    expect(sum(usageOf(s.logDir), 'gen_ai.usage.input_tokens')).toBe(1);
    appendFileSync(s.file, `${late.slice(40)}\n`);
    await fire(d, 'Stop', { transcript_path: s.file });
    const evs = usageOf(s.logDir);
    expect(sum(evs, 'gen_ai.usage.input_tokens')).toBe(11);
    expect(sum(evs, 'gen_ai.usage.output_tokens')).toBe(22);
    expect(sum(evs, 'responses')).toBe(2);
  });

  it('a model the price table does not know has no cost (never a guess)', async () => {
    const s = setup();
    writeFileSync(s.file, `${ccLine('msg_1', 'scripted-model-nobody-prices', { in: 10, out: 5 })}\n`);
    const d = s.open();
    await fire(d, 'Stop', { transcript_path: s.file });
    const [ev] = usageOf(s.logDir);
    expect(ev.data).toMatchObject({ 'gen_ai.response.model': 'scripted-model-nobody-prices', 'gen_ai.usage.input_tokens': 10 });
    expect(ev.data).not.toHaveProperty('cost');
  });
});

describe('a transcript path from a hook payload cannot read other files', () => {
  it('refuses a path outside the agent folders, a ../ way out, a symlink to a file outside, a symlinked folder', async () => {
    const s = setup();
    const secret = join(s.dir, 'secret.jsonl');
    writeFileSync(secret, `${ccLine('msg_s', 'claude-sonnet-4-5', { in: 999, out: 999 })}\n`);
    symlinkSync(secret, join(s.folder, 'link.jsonl'));
    mkdirSync(join(s.dir, 'elsewhere'));
    writeFileSync(join(s.dir, 'elsewhere', 'x.jsonl'), `${ccLine('msg_e', 'claude-sonnet-4-5', { in: 999, out: 999 })}\n`);
    symlinkSync(join(s.dir, 'elsewhere'), join(s.folder, 'dirlink'));
    const d = s.open();
    for (const p of [
      secret,
      join(s.folder, '..', '..', '..', '..', 'secret.jsonl'),
      join(s.folder, 'link.jsonl'),
      join(s.folder, 'dirlink', 'x.jsonl'),
      '/etc/passwd',
      'relative.jsonl',
    ]) {
      await fire(d, 'Stop', { transcript_path: p });
    }
    expect(usageOf(s.logDir)).toHaveLength(0);
    expect(s.reads.map((r) => r.refused)).toEqual([
      'transcript-outside-folders',
      'transcript-outside-folders',
      'transcript-outside-folders',
      'transcript-outside-folders',
      'transcript-outside-folders',
      'transcript-unreadable',
    ]);
    // control: the same lines inside the folder are read
    writeFileSync(s.file, `${ccLine('msg_ok', 'claude-sonnet-4-5', { in: 1, out: 1 })}\n`);
    await fire(d, 'Stop', { transcript_path: s.file });
    expect(usageOf(s.logDir)).toHaveLength(1);
  });
});

describe('Codex rollout usage', () => {
  it('counts each token_count once (a repeated total is not counted again), with the model of the turn_context before it', async () => {
    const s = setup('codex');
    const tc = (last: { input_tokens: number; cached_input_tokens: number; output_tokens: number; reasoning_output_tokens: number }, total: number) =>
      JSON.stringify({
        timestamp: '2026-12-01T18:00:01.000Z',
        type: 'event_msg',
        payload: {
          type: 'token_count',
          info: {
            total_token_usage: { ...last, total_tokens: total },
            last_token_usage: { ...last, total_tokens: last.input_tokens + last.output_tokens },
            model_context_window: 272000,
          },
          rate_limits: null,
        },
      });
    const lines = [
      JSON.stringify({ timestamp: '2026-12-01T18:00:00.000Z', type: 'session_meta', payload: { id: SESSION, cwd: '/work/proj' } }),
      JSON.stringify({
        timestamp: '2026-12-01T18:00:00.100Z',
        type: 'turn_context',
        payload: { cwd: '/work/proj', model: 'gpt-5-codex', approval_policy: 'never' },
      }),
      tc({ input_tokens: 100, cached_input_tokens: 40, output_tokens: 30, reasoning_output_tokens: 10 }, 130),
      tc({ input_tokens: 100, cached_input_tokens: 40, output_tokens: 30, reasoning_output_tokens: 10 }, 130),
      JSON.stringify({ timestamp: '2026-12-01T18:00:02.000Z', type: 'event_msg', payload: { type: 'token_count', info: null, rate_limits: null } }),
      tc({ input_tokens: 50, cached_input_tokens: 0, output_tokens: 5, reasoning_output_tokens: 0 }, 185),
      '',
    ];
    writeFileSync(s.file, lines.join('\n'));
    const d = s.open();
    await d.handle({ hook: 'Stop', payload: { session_id: SESSION, turn_id: 't1', hook_event_name: 'Stop', transcript_path: s.file } });
    await d.usage!.idle();
    const [ev, ...rest] = usageOf(s.logDir);
    expect(rest).toHaveLength(0);
    expect(ev.run).toBe('t1');
    expect(ev.data).toMatchObject({
      'gen_ai.response.model': 'gpt-5-codex',
      'gen_ai.usage.input_tokens': 150,
      'gen_ai.usage.output_tokens': 35,
      'gen_ai.usage.cache_read.input_tokens': 40,
      'gen_ai.usage.reasoning.output_tokens': 10,
      responses: 2,
    });
  });
});
