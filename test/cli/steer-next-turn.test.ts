// `hookmap steer` picks the carrier the session has now (issue 29): a real
// `hookmap up` (test/helpers/up-stack.ts) with Claude Code's instruct and
// next_turn opt-ins on, fed hook payloads over HTTP, and a next-turn waiter
// (what the background asyncRewake Stop handler posts). Idle: steer wakes the
// waiter (delivered by next-turn); running: the next hook reply carries it
// (delivered by hook-reply) and the waiter stays; a read token is refused.
// Every hook and waiter presents the home's hook key, as the shims do.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { addToken } from '../../engine/runtime/auth/tokens.ts';
import { run as steer } from '../../engine/cli/commands/steer.ts';
import { until } from '../runtime/daemon/helpers.ts';
import { upStack, type UpStack } from '../helpers/up-stack.ts';

let s: UpStack;
const SESSION = '5e55a029-0000-4000-8000-000000000001';
const body = (name: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ session_id: SESSION, transcript_path: '/tmp/t.jsonl', cwd: '/home/dev/proj', hook_event_name: name, permission_mode: 'default', ...extra });
const headers = () => ({ 'content-type': 'application/json', 'x-hookmap-key': s.hookKey });
const hook = (name: string, extra: Record<string, unknown> = {}) =>
  fetch(`${s.url}/hooks/claude-code`, { method: 'POST', headers: headers(), body: body(name, extra) });
/** A next-turn waiter as the sh shim runs it; its ack, when it gets text. */
async function waiter(): Promise<{ status: number; exit: string | null; text: string; ack: string | null }> {
  const r = await fetch(`${s.url}/next-turn/claude-code`, {
    method: 'POST',
    headers: headers(),
    body: body('Stop', { stop_hook_active: false }),
  });
  const ack = r.headers.get('x-hookmap-ack');
  const text = await r.text();
  if (ack) await fetch(`${s.url}/next-turn/claude-code/ack/${ack}`, { method: 'POST', headers: headers(), body: '{}' });
  return { status: r.status, exit: r.headers.get('x-hookmap-exit'), text, ack };
}

async function cli(argv: string[]): Promise<{ code: number; text: string }> {
  const out: string[] = [];
  const keep = (c: any) => (out.push(String(c)), true);
  vi.spyOn(process.stdout, 'write').mockImplementation(keep);
  vi.spyOn(process.stderr, 'write').mockImplementation(keep);
  try {
    return { code: await steer(argv), text: out.join('') };
  } finally {
    vi.restoreAllMocks();
  }
}

beforeAll(async () => {
  s = await upStack({
    prefix: 'hookmap-steer-nt-',
    hello: true,
    key: true,
    agents: [{ descriptor: 'claude-code', config: { instruct: true, next_turn: true } }],
  });
  await hook('SessionStart', { source: 'startup' });
  await hook('UserPromptSubmit', { prompt: 'go' });
  await hook('Stop', { stop_hook_active: false });
});
afterAll(() => s?.done());

const daemonOf = () => s.up.daemons.get('claude-code')! as any;
const waiting = () => daemonOf().commands.nextTurn.waiting(SESSION) as boolean;

describe('hookmap steer and the next-turn carrier', () => {
  it('an idle session: steer wakes its waiter; the outcome names the next-turn carrier', async () => {
    const w = waiter();
    await until('the waiter', () => waiting());
    const r = await cli([SESSION, 'Write the release notes now (idle steer)', '--url', s.url, '--token-file', join(s.home, 'token'), '--wait', '10']);
    expect(r.code, r.text).toBe(0);
    expect(r.text).toMatch(/outcome: x\.claude-code\.instruction\.delivered \(by next-turn\)/);
    expect(await w).toMatchObject({ status: 200, exit: '2', text: 'Write the release notes now (idle steer)' });
  });

  it('a running turn: steer rides the next hook reply, the waiter keeps waiting (one message, one turn)', async () => {
    const w = waiter();
    let woke = false;
    void w.then(() => (woke = true));
    await until('the waiter', () => waiting());
    await hook('UserPromptSubmit', { prompt: 'another turn' });
    const sent = cli([SESSION, 'Mind the tests (running steer)', '--url', s.url, '--token-file', join(s.home, 'token'), '--wait', '10']);
    await until('queued', () => daemonOf().commands.queue.list(SESSION).length === 1);
    const pre = await hook('PreToolUse', { tool_name: 'Bash', tool_input: { command: 'ls' }, tool_use_id: 'tu-1' });
    expect(JSON.parse(await pre.text()).hookSpecificOutput.additionalContext).toBe('Mind the tests (running steer)');
    const r = await sent;
    expect(r.text).toMatch(/outcome: x\.claude-code\.instruction\.delivered \(by hook-reply: PreToolUse\)/);
    await hook('Stop', { stop_hook_active: false });
    await s.up.daemons.get('claude-code')!.flush();
    expect(woke).toBe(false);
  });

  it('a read token is refused: nothing queued, the waiter not woken', async () => {
    const read = addToken(s.home, 'reader', ['read']);
    const r = await cli([SESSION, 'not allowed', '--url', s.url, '--token', read.token, '--agent', 'claude-code', '--wait', '2']);
    expect(r.code, r.text).not.toBe(0);
    expect(r.text).toMatch(/refused by the relay: unauthorized .*a control token is needed/);
    expect(daemonOf().commands.queue.list(SESSION)).toEqual([]);
    expect(waiting()).toBe(true);
  });
});
