// Limit signs (issue 44, docs/usage.md "Rate limits") through a whole
// `hookmap up`, hooks posted as the agents post them: Claude Code's
// StopFailure {error: rate_limit} (the payload 2.1.328 sent in
// test/live/limits.live.ts) is run.failed and then one x.hookmap.limit.reached
// in the session, with resets_at when the message says "|<epoch seconds>";
// Qwen Code's "retry after 60s" is a reset 60 s after the firing; any other
// error, a hostile payload, or a reset a year out says no reset and breaks
// nothing after it. OpenCode's session.status retry (as 1.18.33 sent it after
// a 429) is a sign that the agent retries by itself, at `next`; a retry on
// another error is not; the history keeps such a session `retrying` until its
// next event.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { readLogs, until } from './helpers.ts';
import { upStack, type UpStack } from '../../helpers/up-stack.ts';
import { indexedEvent } from '../../../engine/person/history/rows.ts';

let s: UpStack;

beforeAll(async () => {
  s = await upStack({
    prefix: 'hookmap-limit-signs-',
    agents: [{ descriptor: 'claude-code' }, { descriptor: 'qwen-code' }, { descriptor: 'opencode' }, { descriptor: 'pi' }, { descriptor: 'cline' }],
  });
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

  it('OpenCode: a retry on a rate limit is a sign the agent retries by itself at `next`; a retry on anything else, or a hostile one, is not', async () => {
    let n = 0;
    const bus = (session: string, status: unknown) =>
      post('opencode', { kind: 'bus', event: { id: `evt_ls_${++n}`, type: 'session.status', properties: { sessionID: session, status } } });
    const next = Date.now() + 90_000;
    await bus('ses_r1', { type: 'retry', attempt: 1, message: 'Rate limit reached for requests', next });
    await bus('ses_r2', { type: 'retry', attempt: 1, message: 'upstream 500', next });
    await bus('ses_r3', { type: 'retry', attempt: 1, message: { rate_limit: true }, next: 'soon' });
    await bus('ses_r4', { type: 'retry', attempt: 1, message: 'Too Many Requests', next: 'soon' });
    await bus('ses_r5', { type: 'retry', message: `${'x'.repeat(100_000)} rate limit` });
    await bus('ses_r6', { type: 'busy' });
    const one = await until('ses_r1 limit', () => limitOf('opencode', 'ses_r1'));
    expect(one.data).toEqual({ kind: 'rate_limit', hook: 'session.status', agent_retries: true, resets_at: new Date(next).toISOString() });
    expect(one.capture).toBe('metadata');
    const types = events('opencode', 'ses_r1').map((e) => e.type);
    expect(types.indexOf('x.hookmap.limit.reached')).toBeGreaterThan(types.indexOf('progress.status')); // beside the mapping, after it
    expect((await until('ses_r4 limit', () => limitOf('opencode', 'ses_r4'))).data).toEqual({
      kind: 'rate_limit',
      hook: 'session.status',
      agent_retries: true,
    }); // no time it can read: no reset
    expect((await until('ses_r5 limit', () => limitOf('opencode', 'ses_r5'))).data).toMatchObject({ agent_retries: true });
    await until('ses_r6 mapped', () => events('opencode', 'ses_r6').some((e) => e.type === 'progress.status'));
    expect(limitOf('opencode', 'ses_r2')).toBeUndefined();
    expect(limitOf('opencode', 'ses_r3')).toBeUndefined();
    expect(events('opencode', 'ses_r3').some((e) => e.type === 'progress.status')).toBe(true); // mapped all the same
  });

  it('pi: a loop that failed on a 429 is a sign pi retries by itself; another error is not', async () => {
    const session = (id: string) => ({ id, file: `/tmp/hookmap-live-scratch/home/.pi/agent/sessions/${id}.jsonl`, cwd: '/tmp/shop-api' });
    const loop = async (id: string, errorMessage: unknown) => {
      await post('pi', { session: session(id), event: { type: 'agent_start' } });
      const failed = { role: 'assistant', content: [], api: 'openai-completions', provider: 'scripted', model: 'scripted', stopReason: 'error', errorMessage };
      const user = { role: 'user', content: [{ type: 'text', text: 'Say hello through the shell.' }], timestamp: 1 };
      await post('pi', { session: session(id), event: { type: 'agent_end', messages: [user, failed] } });
    };
    await loop('pi-429', '429 scripted model server: rate limited'); // pi 0.73.1's words
    await loop('pi-500', '500 upstream failed');
    await loop('pi-odd', { nested: '429' });
    const sign = await until('pi limit', () => limitOf('pi', 'pi-429'));
    expect(sign.data).toEqual({ kind: 'rate_limit', hook: 'agent_end', agent_retries: true });
    const types = events('pi', 'pi-429').map((e) => e.type);
    expect(types.indexOf('x.hookmap.limit.reached')).toBeGreaterThan(types.indexOf('run.failed'));
    await until('pi-odd mapped', () => events('pi', 'pi-odd').some((e) => e.type === 'run.failed'));
    expect(limitOf('pi', 'pi-500')).toBeUndefined();
    expect(limitOf('pi', 'pi-odd')).toBeUndefined();
  });

  it('Cline: agent_error naming a rate limit, after its own retries, is a sign; another error is not', async () => {
    const base = (taskId: string) => ({
      clineVersion: '',
      taskId,
      sessionContext: { rootSessionId: `root-${taskId}` },
      workspaceRoots: ['/tmp/shop-api'],
      workspaceInfo: { rootPath: '/tmp/shop-api', hint: 'project' },
      userId: 'unknown',
      agent_id: `agent-${taskId}`,
      parent_agent_id: null,
    });
    const task = async (taskId: string, message: unknown) => {
      await post('cline', { ...base(taskId), timestamp: new Date().toISOString(), hookName: 'agent_start', taskStart: { taskMetadata: {} } });
      await post('cline', { ...base(taskId), timestamp: new Date().toISOString(), hookName: 'agent_error', iteration: 1, error: { name: 'Error', message } });
    };
    await task('c-429', 'scripted model server: rate limited'); // Cline 3.0.65's payload: the provider's own message, no status
    await task('c-auth', 'invalid api key');
    const sign = await until('cline limit', () => limitOf('cline', 'c-429'));
    expect(sign.data).toEqual({ kind: 'rate_limit', hook: 'agent_error' });
    await until('c-auth mapped', () => events('cline', 'c-auth').some((e) => e.type === 'run.failed'));
    expect(limitOf('cline', 'c-auth')).toBeUndefined();
  });

  it('the history: a session stopped on its limit is paused until its next run; one retrying by itself, until its next event', () => {
    const at = '2026-12-04T10:00:00.000Z';
    const line = (type: string, session: string, data: Record<string, unknown> = {}) =>
      JSON.stringify({ id: `${type}-${session}`, type, time: at, agent: 'a', session, data });
    expect(indexedEvent(line('x.hookmap.limit.reached', 's', { kind: 'rate_limit', hook: 'StopFailure' }), 'a')?.state).toBe('paused');
    expect(indexedEvent(line('x.hookmap.limit.reached', 's', { kind: 'rate_limit', agent_retries: true }), 'a')?.state).toBe('retrying');
    expect(indexedEvent(line('progress.status', 's'), 'a')?.state).toBe('active');
  });
});
