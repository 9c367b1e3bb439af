// `hookmap answer` against `hookmap up` when its answer comes too late: the
// request already answered (exit 3) or already timed out (exit 4), each
// printed with the reason, not just the AEP nack class `invalid`. The fate
// is read before sending (issue 31), so nothing is sent; the target's own
// rejection covers the race the read cannot see.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { run as answer } from '../../engine/cli/commands/answer.ts';
import { readLogs, until } from '../runtime/daemon/helpers.ts';
import { upStack, type UpStack } from '../helpers/up-stack.ts';
import { join } from 'node:path';

let TOKEN: string;
let s: UpStack;
let up: UpStack['up'];

beforeAll(async () => {
  s = await upStack({
    prefix: 'hookmap-answer-',
    hello: true,
    agents: [
      { descriptor: 'codex', attentionTimeoutMs: 30_000 },
      { descriptor: 'claude-code', attentionTimeoutMs: 300 },
    ],
  });
  ({ up, token: TOKEN } = s);
}, 30_000);

afterAll(async () => {
  vi.restoreAllMocks();
  await s?.done();
});

function capture(): string[] {
  const lines: string[] = [];
  vi.spyOn(process.stdout, 'write').mockImplementation((c: any) => (lines.push(...String(c).split('\n').filter(Boolean)), true));
  vi.spyOn(process.stderr, 'write').mockImplementation((c: any) => (lines.push(...String(c).split('\n').filter(Boolean)), true));
  return lines;
}

const request = (agent: string, session: string) =>
  until(`${agent}'s attention.requested`, () => readLogs(join(s.logDir, agent)).find((e) => e.type === 'attention.requested' && e.session === session));

describe('hookmap answer, too late', () => {
  it('says "already answered" and exits 3 for a second answer', async () => {
    const held = fetch(`${up.url}/hooks/codex`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        hook_event_name: 'PermissionRequest',
        session_id: 'late-1',
        turn_id: 't1',
        tool_name: 'Bash',
        tool_input: { command: 'rm -rf build' },
      }),
    });
    const req = await request('codex', 'late-1');
    capture();
    expect(await answer([req.id, '--allow', '--url', up.url, '--token', TOKEN])).toBe(0);
    await held;
    vi.restoreAllMocks();
    const out = capture();
    expect(await answer([req.id, '--deny', '--url', up.url, '--token', TOKEN])).toBe(3);
    vi.restoreAllMocks();
    expect(out.join('\n')).toMatch(/not sent: \S+ was already answered by owner \(allow\)/);
  });

  it('says "timed out" and exits 4 for an answer after the window', async () => {
    const reply = await fetch(`${up.url}/hooks/claude-code`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ hook_event_name: 'PermissionRequest', session_id: 'late-2', tool_name: 'Bash', tool_input: { command: 'rm -rf build' } }),
    });
    expect(reply.status).toBe(200); // the hold failed open after 300 ms
    const req = await request('claude-code', 'late-2');
    await until('the timeout', () => readLogs(join(s.logDir, 'claude-code')).some((e) => e.type === 'attention.timeout' && e.subject === req.id));
    const out = capture();
    expect(await answer([req.id, '--allow', '--url', up.url, '--token', TOKEN])).toBe(4);
    vi.restoreAllMocks();
    expect(out.join('\n')).toMatch(/not sent: \S+ timed out at .* \(nobody answered; the agent's own dialog decided\)/);
  });
});
