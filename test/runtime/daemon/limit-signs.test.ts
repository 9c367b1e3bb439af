// Limit signs (issue 44, docs/usage.md "Rate limits") through a whole
// `hookmap up`, hooks posted as the agents post them: Claude Code's
// StopFailure {error: rate_limit} (the payload 2.1.328 sent in
// test/live/limits.live.ts) is run.failed and then one x.hookmap.limit.reached
// in the session, with resets_at when the message says "|<epoch seconds>";
// Qwen Code's "retry after 60s" is a reset 60 s after the firing; any other
// error, a hostile payload, or a reset a year out says no reset and breaks
// nothing after it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { readLogs, until } from './helpers.ts';
import { upStack, type UpStack } from '../../helpers/up-stack.ts';

let s: UpStack;

beforeAll(async () => {
  s = await upStack({ prefix: 'hookmap-limit-signs-', agents: [{ descriptor: 'claude-code' }, { descriptor: 'qwen-code' }] });
}, 30_000);

afterAll(async () => {
  await s?.done();
});

const post = async (agent: string, body: Record<string, unknown>) => {
  const r = await fetch(`${s.url}/hooks/${agent}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  expect(r.status).toBe(200);
};
const turn = async (agent: string, session: string, failure: Record<string, unknown>) => {
  const base = { session_id: session, cwd: '/tmp/shop-api', transcript_path: '/tmp/none.jsonl' };
  await post(agent, { ...base, hook_event_name: 'UserPromptSubmit', prompt: 'go on' });
  await post(agent, { ...base, hook_event_name: 'StopFailure', ...failure });
};
const events = (agent: string, session: string) => readLogs(join(s.logDir, agent)).filter((e) => e.session === session);
const limitOf = (agent: string, session: string) => events(agent, session).find((e) => e.type === 'x.hookmap.limit.reached');

describe('limit signs', () => {
  it('Claude Code: a rate limit pauses the session after its run.failed; a stated reset is its resets_at', async () => {
    await turn('claude-code', 'ls-1', { error: 'rate_limit', last_assistant_message: 'API Error: Request rejected (429) · rate limited' });
    const reset = Math.floor(Date.now() / 1000) + 3600;
    await turn('claude-code', 'ls-2', { error: 'rate_limit', last_assistant_message: `Claude AI usage limit reached|${reset}` });
    const one = await until('ls-1 limit', () => limitOf('claude-code', 'ls-1'));
    expect(one.data).toEqual({ kind: 'rate_limit', hook: 'StopFailure' });
    expect(one.capture).toBe('metadata');
    const types = events('claude-code', 'ls-1').map((e) => e.type);
    expect(types.indexOf('x.hookmap.limit.reached')).toBeGreaterThan(types.indexOf('run.failed'));
    expect(one.run).toBe(events('claude-code', 'ls-1').find((e) => e.type === 'run.failed')!.run); // the run it stopped
    const two = await until('ls-2 limit', () => limitOf('claude-code', 'ls-2'));
    expect(two.data).toEqual({ kind: 'rate_limit', hook: 'StopFailure', resets_at: new Date(reset * 1000).toISOString() });
  });

  it('Qwen Code: "retry after 60s" is a reset 60 s after the firing', async () => {
    const before = Date.now();
    await turn('qwen-code', 'ls-q', { error: 'rate_limit', error_details: 'retry after 60s' });
    const q = await until('qwen limit', () => limitOf('qwen-code', 'ls-q'));
    const at = Date.parse(String(q.data?.resets_at));
    expect(at).toBeGreaterThanOrEqual(before + 60_000);
    expect(at).toBeLessThanOrEqual(Date.now() + 60_000);
  });

  it('another error, a hostile payload, a reset a year out: no sign or no reset, and the next firings are mapped', async () => {
    await turn('claude-code', 'ls-3', { error: 'authentication_failed', last_assistant_message: 'bad key' });
    await turn('claude-code', 'ls-4', { error: { nested: ['rate_limit'] }, last_assistant_message: 42 });
    const year = Math.floor(Date.now() / 1000) + 365 * 86400;
    await turn('claude-code', 'ls-5', { error: 'rate_limit', last_assistant_message: `${'x'.repeat(200_000)}|${year}` });
    await turn('claude-code', 'ls-6', { error: 'rate_limit' });
    const six = await until('ls-6 limit', () => limitOf('claude-code', 'ls-6'));
    expect(six.data).toEqual({ kind: 'rate_limit', hook: 'StopFailure' });
    expect(limitOf('claude-code', 'ls-3')).toBeUndefined();
    expect(limitOf('claude-code', 'ls-4')).toBeUndefined();
    expect(events('claude-code', 'ls-4').some((e) => e.type === 'run.started')).toBe(true); // the session is there; its odd failure says no limit
    expect(limitOf('claude-code', 'ls-5')?.data).toEqual({ kind: 'rate_limit', hook: 'StopFailure' }); // a year out is not believed
  });
});
