// Steering, cancel and operator policy end to end through `hookmap up`: the
// CLI commands (`hookmap steer`, `hookmap cancel`, `hookmap policy check`)
// against a real relay and daemon, hook firings POSTed like Claude Code's
// HTTP hooks, the exact reply bytes the agent gets, and every refusal coded
// on the stream and the CLI with nothing else changed. The per-verb reply
// bytes are pinned by fixtures/claude-code/deliveries.yaml.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { run as steer } from '../../engine/cli/commands/steer.ts';
import { run as cancel } from '../../engine/cli/commands/cancel.ts';
import { run as policyCmd } from '../../engine/cli/commands/policy.ts';
import { run as upCmd } from '../../engine/cli/commands/up.ts';
import { upStack, watchAll, type UpStack, type Watcher } from '../helpers/up-stack.ts';
import { until } from '../runtime/daemon/helpers.ts';

let TOKEN: string;
let s: UpStack;
let up: UpStack['up'];
let watcher: Watcher;
let stream: any[];
let policyFile: string;

const GOOD = `rules:
  - { id: build-is-red, on: run.finished, agent: claude-code, decide: continue, reason: "The build is red: fix it before you stop." }
`;

beforeAll(async () => {
  const policyIn = (home: string) => {
    policyFile = join(home, 'policy.yaml');
    writeFileSync(policyFile, GOOD);
    return { policy: policyFile };
  };
  s = await upStack({ prefix: 'hookmap-verbs-', hello: true, setup: policyIn, agents: [{ descriptor: 'claude-code', config: { instruct: true } }] });
  ({ up, token: TOKEN } = s);
  watcher = await watchAll(up.url, TOKEN);
  stream = watcher.stream;
}, 30_000);

afterAll(async () => {
  vi.restoreAllMocks();
  watcher?.close();
  await s?.done();
});

function capture(): string[] {
  const lines: string[] = [];
  vi.spyOn(process.stdout, 'write').mockImplementation((c: any) => (lines.push(...String(c).split('\n').filter(Boolean)), true));
  vi.spyOn(process.stderr, 'write').mockImplementation((c: any) => (lines.push(...String(c).split('\n').filter(Boolean)), true));
  return lines;
}

async function cli(fn: (argv: string[]) => Promise<number>, argv: string[]): Promise<{ code: number; out: string }> {
  const lines = capture();
  try {
    const code = await fn(argv);
    return { code, out: lines.join('\n') };
  } finally {
    vi.restoreAllMocks();
  }
}

const ep = () => ['--url', up.url, '--token', TOKEN];
const hook = async (session: string, name: string, extra: Record<string, unknown> = {}) => {
  const r = await fetch(`${up.url}/hooks/claude-code`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ hook_event_name: name, session_id: session, transcript_path: '/tmp/t.jsonl', cwd: '/w', permission_mode: 'default', ...extra }),
  });
  return r.text();
};
const pre = (s: string) => hook(s, 'PreToolUse', { tool_name: 'Bash', tool_input: { command: 'sleep 5' }, tool_use_id: 't1' });
const post = (s: string) => hook(s, 'PostToolUse', { tool_name: 'Bash', tool_input: { command: 'sleep 5' }, tool_use_id: 't1', tool_response: { stdout: '' } });
const seen = (pred: (e: any) => boolean, what: string) => watcher.seen(pred, what);

describe('hookmap steer', () => {
  it('queues the text, the next eligible reply carries it, the CLI reports the delivery', async () => {
    await hook('v1', 'SessionStart', { source: 'startup' });
    await hook('v1', 'UserPromptSubmit', { prompt: 'fix it' });
    await seen((e) => e.type === 'run.started' && e.session === 'v1', 'the run');
    const sent = cli(steer, ['v1', 'also run the tests', '--wait', '20', ...ep()]);
    await seen((e) => e.type === 'control.accepted' && e.session === 'v1', 'the ack');
    expect(await pre('v1')).toBe('{"hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"also run the tests"}}');
    const r = await sent;
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/accepted by the target\noutcome: x\.claude-code\.instruction\.delivered/);
    expect(await post('v1')).toBe(''); // delivered once
  });

  it('refuses text over the cap, coded, on the stream and the CLI; nothing is queued', async () => {
    const r = await cli(steer, ['v1', 'x'.repeat(10_001), ...ep()]);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/rejected by the target: invalid \[text-too-long\]/);
    expect(stream.filter((e) => e.type === 'control.rejected' && e.session === 'v1').at(-1).data).toEqual({ reason: 'invalid', code: 'text-too-long' });
    expect(await pre('v1')).toBe('');
  });

  it('refuses a session nobody claims (relay, no-route)', async () => {
    const r = await cli(steer, ['nobody', 'hello', '--agent', 'claude-code', ...ep()]);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/refused by the relay: no-route/);
  });
});

describe('hookmap cancel', () => {
  it('refuses a run that is not running (unknown-run), coded, and the run goes on', async () => {
    const r = await cli(cancel, ['v1', '--run', 'run-nope', ...ep()]);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/rejected by the target: invalid \[unknown-run\]/);
    expect(await pre('v1')).toBe('');
  });

  it('stops the running turn on the next eligible reply; the stream shows the run cancelled', async () => {
    const run = stream.filter((e) => e.type === 'run.started' && e.session === 'v1').at(-1).run;
    const acks = stream.filter((e) => e.type === 'control.accepted').length;
    const sent = cli(cancel, ['v1', '--reason', 'wrong branch', '--wait', '20', ...ep()]);
    await until('the cancel ack', () => stream.filter((e) => e.type === 'control.accepted').length > acks);
    expect(await post('v1')).toBe('{"continue":false,"stopReason":"wrong branch"}');
    const r = await sent;
    expect(r.code).toBe(0);
    expect(r.out).toContain(`outcome: run.cancelled run ${run}`);
    const cancelled = stream.find((e) => e.type === 'run.cancelled' && e.run === run)!;
    expect(cancelled.data).toEqual({ by: 'control' }); // the reason is content: gated off a metadata stream
  });

  it('refuses an instruct to a session that ended (coded), nothing else changes', async () => {
    await hook('v1', 'SessionEnd', { reason: 'prompt_input_exit' });
    await seen((e) => e.type === 'session.ended' && e.session === 'v1', 'the end');
    const r = await cli(steer, ['v1', 'too late', '--agent', 'claude-code', ...ep()]);
    expect(r.code).toBe(1);
    // the relay released the ended session's claim: it refuses on the target's behalf (AEP-0004 §4.2, never in the session's history); the CLI says why
    expect(r.out).toMatch(/refused by the relay: no-route: session-ended: session v1 ended at /);
    const found = await cli(steer, ['v1', 'too late', ...ep()]); // without --agent: nobody claims it, and the CLI says why
    expect(found.code).toBe(1);
    expect(found.out).toMatch(/hookmap steer: session-ended: session v1 ended at /);
  });
});

describe('operator policy', () => {
  it('continues a Stop once with the reason; the second Stop finishes the run', async () => {
    await hook('v2', 'UserPromptSubmit', { prompt: 'go' });
    expect(await hook('v2', 'Stop', { stop_hook_active: false })).toBe('{"decision":"block","reason":"The build is red: fix it before you stop."}');
    expect(await hook('v2', 'Stop', { stop_hook_active: true })).toBe('');
    await seen((e) => e.type === 'run.finished' && e.session === 'v2', 'the run finished');
    const applied = stream.find((e) => e.type === 'x.claude-code.policy.applied' && e.session === 'v2');
    expect(applied.data).toMatchObject({ rule: 'build-is-red', verb: 'continue' });
    // the matched run.finished was replaced by the continue: the audit event names the run's start, an event that exists
    const started = stream.find((e) => e.type === 'run.started' && e.session === 'v2' && e.run === applied.run);
    expect(applied.cause).toBe(started.id);
  });

  it('a broken policy file is refused, coded, on the stream and the CLI; the previous policy stays', async () => {
    const loaded = await seen((e) => e.type === 'x.hookmap.policy.loaded', 'the policy loaded');
    expect(loaded.agent).toBe('hookmap');
    writeFileSync(policyFile, `rules:\n  - { id: broken, on: run.finishd, decide: continue, reason: x }\n`);
    const rejected = await seen((e) => e.type === 'x.hookmap.policy.rejected', 'the refusal');
    expect(rejected.data).toMatchObject({ file: 'policy.yaml', in_force: loaded.data.digest, errors: [{ code: 'policy-unknown-type', line: 2 }] });
    const r = await cli(policyCmd, ['check', policyFile]);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/policy\.yaml:2:\d+ policy-unknown-type/);
    await hook('v3', 'UserPromptSubmit', { prompt: 'go' });
    expect(await hook('v3', 'Stop', { stop_hook_active: false })).toBe('{"decision":"block","reason":"The build is red: fix it before you stop."}');
  }, 20_000);

  it('hookmap up refuses to start on a broken policy file (exit 2, coded)', async () => {
    const bad = join(s.home, 'bad.yaml');
    writeFileSync(bad, 'rules:\n  - { id: a, on: run.finished, decide: explode }\n');
    const none = join(s.home, 'none.yaml');
    writeFileSync(none, 'agents: []\n');
    const r = await cli(upCmd, ['--port', '0', '--policy', bad, '--config', none]);
    expect(r.code).toBe(2);
    expect(r.out).toMatch(/bad\.yaml:2:\d+ policy-unknown-verb/);
  });
});
