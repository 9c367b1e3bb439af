// One alert for one moment (issue 44): Claude Code stopping on a 429 fires
// StopFailure {error: rate_limit}, which the descriptor maps to run.failed and
// its limit sign to x.hookmap.limit.reached. The phone gets one alert, the
// limit's ("paused ..."), never a second "a run failed" beside it; a run that
// failed on anything else still gets its alert. Through a whole `hookmap up`
// and a Web Push service stand-in (test/helpers/push-service.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { readLogs, until } from '../../runtime/daemon/helpers.ts';
import { upStack, type UpStack } from '../../helpers/up-stack.ts';
import { startPushService, type TestPushService } from '../../helpers/push-service.ts';
import { COALESCE_MS } from '../../../engine/person/push/coalesce.ts';

let s: UpStack;
let ps: TestPushService;

beforeAll(async () => {
  ps = await startPushService();
  s = await upStack({ prefix: 'hookmap-one-alert-', hello: true, agents: [{ descriptor: 'claude-code' }], push: { delayMs: 0 } });
  const res = await fetch(`${s.url}/push/devices`, {
    method: 'POST',
    headers: { authorization: `Bearer ${s.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ subscription: ps.device('phone').subscription, name: 'phone' }),
  });
  expect(res.status).toBe(200);
}, 30_000);

afterAll(async () => {
  await s?.done();
  await ps?.close();
});

const hook = (body: object) =>
  fetch(`${s.url}/hooks/claude-code`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }).then((r) => r.text());
const stopFailure = async (session: string, error: string) => {
  const base = { session_id: session, cwd: '/tmp', transcript_path: '/dev/null' };
  await hook({ ...base, hook_event_name: 'SessionStart', source: 'startup' });
  await hook({ ...base, hook_event_name: 'UserPromptSubmit', prompt: 'go' });
  await hook({ ...base, hook_event_name: 'StopFailure', error, last_assistant_message: 'API Error: Request rejected (429)' });
};
const alertsOf = (session: string) => ps.received.filter((r) => r.message.type === 'alert' && r.message.session === session).map((r) => r.message.title);
const logged = (session: string, type: string) =>
  until(`${type} in ${session}`, () => readLogs(join(s.logDir, 'claude-code')).find((e) => e.session === session && e.type === type));

describe('a run that stopped on a limit', () => {
  it('gets the limit alert alone: no "a run failed" beside it', async () => {
    await stopFailure('limited-1', 'rate_limit');
    await logged('limited-1', 'run.failed');
    await logged('limited-1', 'x.hookmap.limit.reached');
    await until('the limit alert', () => alertsOf('limited-1')[0]);
    await new Promise((r) => setTimeout(r, COALESCE_MS + 700)); // past the failure's wait: nothing else comes
    expect(alertsOf('limited-1')).toEqual(['claude-code: rate limit: paused (no reset time given)']);
  });

  it('a run that failed on anything else still gets its alert, once', async () => {
    await stopFailure('failed-1', 'server_error');
    await logged('failed-1', 'run.failed');
    await until('the failure alert', () => alertsOf('failed-1')[0]);
    await new Promise((r) => setTimeout(r, 500));
    expect(alertsOf('failed-1')).toEqual(['claude-code: a run failed']);
  });
});
