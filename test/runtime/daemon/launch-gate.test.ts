// A launch's gate through a whole `hookmap up` (docs/launch.md, "A launch's
// gate"): a hook posted with `x-hookmap-gate: 1` (what the shims and the
// OpenCode plugin send when `hookmap run` set HOOKMAP_GATE=1) holds Gemini
// CLI's shell call for an answer; an allow is "no objection" ({}), and every
// end that is not an allow refuses: a deny, the hold timing out, a firing
// that cannot be read. The same calls without the header are not held, and
// a read-only tool is never held. A hook without the home's key is refused
// before any of it (the shim then gives the refusal too: fixtures/*/shim.yaml).
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { join } from 'node:path';
import { run as answer } from '../../../engine/cli/commands/answer.ts';
import { readLogs, until } from './helpers.ts';
import { upStack, type UpStack } from '../../helpers/up-stack.ts';

let s: UpStack;
const REFUSED = '{"decision":"deny","reason":"hookmap did not allow this call (nobody answered, or hookmap could not be reached)"}';

beforeAll(async () => {
  s = await upStack({ prefix: 'hookmap-launch-gate-', hello: true, key: true, agents: [{ descriptor: 'gemini-cli', attentionTimeoutMs: 1500 }] });
}, 30_000);

afterAll(async () => {
  vi.restoreAllMocks();
  await s?.done();
});

const hook = (body: unknown, o: { gate?: boolean; key?: boolean } = {}) =>
  fetch(`${s.url}/hooks/gemini-cli`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(o.key === false ? {} : { 'x-hookmap-key': s.hookKey }),
      ...(o.gate ? { 'x-hookmap-gate': '1' } : {}),
    },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
const call = (session: string, tool = 'run_shell_command', input: unknown = { command: 'touch x.txt' }) => ({
  session_id: session,
  transcript_path: '/tmp/none.json',
  cwd: '/tmp/p',
  hook_event_name: 'BeforeTool',
  timestamp: new Date().toISOString(),
  tool_name: tool,
  tool_input: input,
});
const events = (session: string) => readLogs(join(s.logDir, 'gemini-cli')).filter((e) => e.session === session);
const request = (session: string) => until(`${session}'s request`, () => events(session).find((e) => e.type === 'attention.requested'));
const quiet = () => {
  vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
  vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
};

describe("a launch's gate", () => {
  it('holds a gated shell call: an allow is no objection, a deny refuses with its reason', async () => {
    const allowed = hook(call('g-1'), { gate: true });
    const req = await request('g-1');
    expect(req.data).toMatchObject({ kind: 'permission', prompt: 'Tool call: run_shell_command — touch x.txt', respond_via: ['control'] });
    quiet();
    expect(await answer([req.id, '--allow', '--url', s.url, '--token', s.token])).toBe(0);
    vi.restoreAllMocks();
    expect(await (await allowed).text()).toBe('{}');

    const denied = hook(call('g-2'), { gate: true });
    const req2 = await request('g-2');
    quiet();
    expect(await answer([req2.id, '--deny', '--url', s.url, '--token', s.token])).toBe(0);
    vi.restoreAllMocks();
    expect(JSON.parse(await (await denied).text())).toEqual({ decision: 'deny', reason: 'Denied via hookmap attention loop' });
    expect(events('g-2').map((e) => e.type)).toContain('tool.denied');
  });

  it('nobody answering refuses (not the neutral {}), and says so on the stream', async () => {
    const r = await hook(call('g-3'), { gate: true });
    expect(await r.text()).toBe(REFUSED);
    expect(events('g-3').map((e) => e.type)).toEqual(['tool.requested', 'attention.requested', 'attention.timeout']);
  });

  it('a gated firing that cannot be read is refused; one without the gate gets the neutral bytes', async () => {
    let deep: unknown = 'x';
    for (let i = 0; i < 3000; i++) deep = { d: deep };
    const gated = await hook(call('g-4', 'run_shell_command', deep), { gate: true });
    expect(await gated.text()).toBe(REFUSED);
    expect(gated.headers.get('x-hookmap-error')).toBeTruthy();
    const plain = await hook(call('g-5', 'run_shell_command', deep));
    expect(await plain.text()).toBe('{}');
  });

  it('not held: the same call without the gate, a read-only tool under it; a caller without the key is refused before anything', async () => {
    expect(await (await hook(call('g-6'))).text()).toBe('{}');
    expect(await (await hook(call('g-7', 'read_file', { file_path: 'README.md' }), { gate: true })).text()).toBe('{}');
    for (const sid of ['g-6', 'g-7']) {
      await until(`${sid} mapped`, () => events(sid).find((e) => e.type === 'tool.requested'));
      expect(events(sid).some((e) => e.type === 'attention.requested')).toBe(false);
    }
    const stranger = await hook(call('g-8'), { gate: true, key: false });
    expect(stranger.status).toBe(403);
    expect(events('g-8')).toEqual([]);
  });
});
