// `hookmap steer` to an idle session whose agent's next-turn carrier is off
// (issue 45): a real `hookmap up` (test/helpers/up-stack.ts) with Claude
// Code's instruct opt-in on and its next_turn opt-in off, beside Codex (instruct
// on, no next-turn carrier at all), fed hook payloads over HTTP. The ack says
// why nothing will wake the session (next-turn-off), the CLI prints it with
// the variables and the setup step that turn the carrier on and exits 1, and
// the instruction is not lost: it rides the reply to the session's next prompt.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { run as steer } from '../../engine/cli/commands/steer.ts';
import { validateStream } from '../../engine/core/validate/index.ts';
import { until } from '../runtime/daemon/helpers.ts';
import { upStack, type UpStack } from '../helpers/up-stack.ts';

let s: UpStack;
const IDLE = '5e55a029-0000-4000-8000-0000000000a1';
const BUSY = '5e55a029-0000-4000-8000-0000000000a2';
const CODEX = '5e55a029-0000-4000-8000-0000000000a3';
const post = (agent: string, body: Record<string, unknown>) =>
  fetch(`${s.url}/hooks/${agent}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
const claude = (session: string, name: string, extra: Record<string, unknown> = {}) =>
  post('claude-code', {
    session_id: session,
    transcript_path: '/tmp/t.jsonl',
    cwd: '/home/dev/proj',
    hook_event_name: name,
    permission_mode: 'default',
    ...extra,
  });
const codex = (name: string, extra: Record<string, unknown> = {}) =>
  post('codex', { session_id: CODEX, turn_id: 't1', cwd: '/home/dev/proj', hook_event_name: name, model: 'gpt-5', ...extra });

async function cli(argv: string[]): Promise<{ code: number; text: string }> {
  const out: string[] = [];
  const keep = (c: any) => (out.push(String(c)), true);
  vi.spyOn(process.stdout, 'write').mockImplementation(keep);
  vi.spyOn(process.stderr, 'write').mockImplementation(keep);
  try {
    return { code: await steer([...argv, '--url', s.url, '--token-file', join(s.home, 'token')]), text: out.join('') };
  } finally {
    vi.restoreAllMocks();
  }
}

const daemon = (agent: string) => s.up.daemons.get(agent)! as any;
const logged = (agent: string): any[] => {
  const dir = join(s.logDir, agent);
  return readdirSync(dir)
    .filter((f) => f.endsWith('.jsonl'))
    .flatMap((f) => readFileSync(join(dir, f), 'utf8').split('\n').filter(Boolean))
    .map((l) => JSON.parse(l));
};

beforeAll(async () => {
  s = await upStack({
    prefix: 'hookmap-steer-off-',
    hello: true,
    agents: [
      { descriptor: 'claude-code', config: { instruct: true } },
      { descriptor: 'codex', config: { instruct: true } },
    ],
  });
  // one Claude Code session whose turn has ended (idle), one inside a turn
  await claude(IDLE, 'SessionStart', { source: 'startup' });
  await claude(IDLE, 'UserPromptSubmit', { prompt: 'go' });
  await claude(IDLE, 'Stop', { stop_hook_active: false });
  await claude(BUSY, 'SessionStart', { source: 'startup' });
  await claude(BUSY, 'UserPromptSubmit', { prompt: 'go' });
  await codex('SessionStart', { source: 'startup' });
  await codex('UserPromptSubmit', { prompt: 'go' });
  await codex('Stop', { stop_hook_active: false });
});
afterAll(() => s?.done());

describe('hookmap steer to an idle session whose next-turn carrier is off', () => {
  it('says the carrier is off, names the variables and the setup step, exits 1; the text rides the next prompt', async () => {
    const r = await cli([IDLE, 'Write the release notes (carrier off)', '--wait', '1']);
    expect(r.code, r.text).toBe(1);
    expect(r.text).toContain('accepted by the target');
    expect(r.text).toMatch(/no final outcome within 1000 ms \(next-turn-off: session 5e55a029-\S+ is idle and the claude-code next-turn carrier is off/);
    expect(r.text).toContain('HOOKMAP_CLAUDE_CODE_NEXT_TURN=true (with HOOKMAP_CLAUDE_CODE_INSTRUCT=true)');
    expect(r.text).toContain('`hookmap setup claude-code`');
    // nothing lost: still queued, and the human's next prompt carries it
    expect(
      daemon('claude-code')
        .commands.queue.list(IDLE)
        .map((q: any) => q.text),
    ).toEqual(['Write the release notes (carrier off)']);
    const next = await claude(IDLE, 'UserPromptSubmit', { prompt: 'next' });
    expect(JSON.parse(await next.text()).hookSpecificOutput.additionalContext).toBe('Write the release notes (carrier off)');
    await claude(IDLE, 'Stop', { stop_hook_active: false });
    await daemon('claude-code').flush();
    const events = logged('claude-code').filter((e) => e.session === IDLE);
    const ack = events.find((e) => e.type === 'control.accepted');
    expect(ack.data).toMatchObject({ code: 'next-turn-off' });
    expect(events.map((e) => e.type)).toContain('x.claude-code.instruction.delivered');
    expect(validateStream(events)).toEqual([]);
  });

  it('--json: the ack and a stalled line with the code; exit 1', async () => {
    const r = await cli([IDLE, 'Once more (json)', '--wait', '1', '--json']);
    expect(r.code, r.text).toBe(1);
    const lines = r.text
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    expect(lines.find((l) => l.type === 'control.accepted')?.data?.code).toBe('next-turn-off');
    expect(lines.at(-1)).toMatchObject({ stalled: 'next-turn-off', window_ms: 1000, why: expect.stringContaining('HOOKMAP_CLAUDE_CODE_NEXT_TURN=true') });
  });

  it('inside a turn the carrier is not needed: no note, the next hook reply carries it, exit 0', async () => {
    const sent = cli([BUSY, 'Mind the tests (running)', '--wait', '10']);
    await until('queued', () => daemon('claude-code').commands.queue.list(BUSY).length === 1);
    const pre = await claude(BUSY, 'PreToolUse', { tool_name: 'Bash', tool_input: { command: 'ls' }, tool_use_id: 'tu-1' });
    expect(JSON.parse(await pre.text()).hookSpecificOutput.additionalContext).toBe('Mind the tests (running)');
    const r = await sent;
    expect(r.code, r.text).toBe(0);
    expect(r.text).toMatch(/outcome: x\.claude-code\.instruction\.delivered \(by hook-reply: PreToolUse\)/);
    expect(r.text).not.toContain('next-turn-off');
  });

  it('an agent with no next-turn carrier at all: no carrier is named, the instruction waits queued, exit 0 as before', async () => {
    const r = await cli([CODEX, 'Run the linter (codex idle)', '--wait', '1']);
    expect(r.code, r.text).toBe(0);
    expect(r.text).toMatch(/no final outcome within 1000 ms \(queued: it rides the agent's next eligible hook reply/);
    expect(r.text).not.toMatch(/next-turn-off|carrier is off|NEXT_TURN/);
    expect(daemon('codex').commands.queue.list(CODEX)).toHaveLength(1);
    await daemon('codex').flush();
    expect(logged('codex').find((e) => e.type === 'control.accepted' && e.session === CODEX).data).toEqual({});
  });

  it('hostile: an unknown session is refused, coded, with nothing queued anywhere', async () => {
    const before = [daemon('claude-code').commands.queue.all().length, daemon('codex').commands.queue.all().length];
    const found = await cli(['no-such-session-45', 'hello']);
    expect(found.code, found.text).toBe(2);
    expect(found.text).toMatch(/no connected agent claims session no-such-session-45/);
    const forced = await cli(['no-such-session-45', 'hello', '--agent', 'claude-code', '--wait', '1']);
    expect(forced.code, forced.text).toBe(1);
    expect(forced.text).not.toContain('next-turn-off');
    expect([daemon('claude-code').commands.queue.all().length, daemon('codex').commands.queue.all().length]).toEqual(before);
  });
});
