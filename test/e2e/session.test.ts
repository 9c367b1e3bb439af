// End to end against `hookmap up` (in-process, ephemeral port, a token, a
// config file): a simulated Claude Code POSTs its HTTP hooks straight to the
// daemon, a simulated Codex fires its command hooks through the generated
// sh shim (engine/runtime/shim). A human on the relay's WebSocket answers the held
// hooks. Every reply byte is checked; the stream a WS subscriber saw and the
// JSONL logs hold the same, valid events.
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startUp, type Up } from '../../engine/app/up.ts';
import { loadUpConfig } from '../../engine/app/up-config.ts';
import { ROOT } from '../../engine/core/descriptor/registry.ts';
import { makeCommand, openSocket, sendCommand, type SocketSession } from '../../engine/runtime/relay/client.ts';
import { descriptorHash, planInputFromSpec, shimPlan } from '../../engine/runtime/shim/plan.mjs';
import { renderShShim } from '../../engine/runtime/shim/sh.ts';
import { validateStream } from '../../engine/core/validate/index.ts';
import { parse } from 'yaml';
import { readLogs, tempDir, until } from '../runtime/daemon/helpers.ts';

const TOKEN = 'e2e-token';
const CC = 'cc-e2e-session';
const CX = 'codex-e2e-session';
const NEUTRAL = '';
const ALLOW = '{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}';

let up: Up;
let tmp: { dir: string; done: () => void };
let watcher: SocketSession;
let human: SocketSession;
const stream: any[] = [];
let shimPath: string;

beforeAll(async () => {
  tmp = tempDir('hookmap-e2e-');
  const cfgFile = join(tmp.dir, 'up.yaml');
  // Codex holds time out fast (the timeout case); Claude Code's are answered, so give them room.
  writeFileSync(
    cfgFile,
    ['log_dir: ./logs', 'agents:', '  claude-code: { attention_timeout_ms: 30000 }', '  codex: { attention_timeout_ms: 800 }', ''].join('\n'),
  );
  up = await startUp({ ...loadUpConfig(cfgFile, {}), port: 0, token: TOKEN });
  await until(
    'both daemons to finish their relay hello',
    async () => (await (await fetch(`${up.url}/healthz`, { headers: { authorization: `Bearer ${TOKEN}` } })).json()).relay === true,
  );
  watcher = await openSocket(up.url, TOKEN, 'consumer');
  const seen = new Set<string>();
  watcher.on((m) => {
    if (typeof m.type !== 'string' || !m.type.includes('.') || m.seq === undefined) return;
    const k = `${m.source}\u0000${m.id}`;
    if (seen.has(k)) return; // at-least-once: consumers dedupe on (source, id)
    seen.add(k);
    stream.push(m);
  });
  await new Promise<void>((resolve) => {
    const off = watcher.on((m) => m.type === 'subscribed' && m.id === 'all' && (off(), resolve()));
    watcher.send({ type: 'subscribe', id: 'all' });
  });
  human = await openSocket(up.url, TOKEN, 'both');
  const bytes = readFileSync(join(ROOT, 'vendors/codex.yaml'));
  shimPath = join(tmp.dir, 'codex-hook.sh');
  writeFileSync(shimPath, renderShShim(shimPlan(planInputFromSpec(parse(bytes.toString('utf8'))), { hash: descriptorHash(bytes), url: up.url })), {
    mode: 0o755,
  });
}, 60_000);

afterAll(async () => {
  watcher?.close();
  human?.close();
  await up?.close();
  tmp?.done();
});

async function cc(body: Record<string, unknown>): Promise<{ status: number; exit: string | null; text: string }> {
  const r = await fetch(`${up.url}/hooks/claude-code`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ session_id: CC, transcript_path: '/tmp/t.jsonl', cwd: '/work/app', ...body }),
  });
  return { status: r.status, exit: r.headers.get('x-hookmap-exit'), text: await r.text() };
}

function codexHook(hook: string, body: Record<string, unknown>): Promise<{ stdout: string; code: number | null }> {
  return new Promise((resolve, reject) => {
    const p = spawn('sh', [shimPath, hook], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    p.stdout.on('data', (c) => (stdout += c));
    p.on('error', reject);
    p.on('close', (code) => resolve({ stdout, code }));
    p.stdin.end(JSON.stringify({ hook_event_name: hook, session_id: CX, turn_id: 'turn-1', cwd: '/work/app', ...body }));
  });
}

/** The next attention.requested of a session that nobody has answered yet. */
async function nextRequest(session: string, after: Set<string>): Promise<any> {
  const ev = await until(`an attention request in ${session}`, () =>
    stream.find((e) => e.type === 'attention.requested' && e.session === session && !after.has(e.id)),
  );
  after.add(ev.id);
  return ev;
}

async function answer(request: any, ans: Record<string, unknown>) {
  const cmd = makeCommand('control.attention.respond', request.session, { subject: request.id, data: { answer: ans } });
  cmd.cause = request.id;
  const r = await sendCommand(human, cmd, { ackWindowMs: 10_000, outcomeWindowMs: 10_000, isFinal: (e) => e.type === 'attention.resolved' });
  if (r.kind !== 'acked') throw new Error(`command not acked: ${JSON.stringify(r)}`);
  return r;
}

describe('a session against hookmap up', () => {
  it('runs Claude Code (HTTP hooks) and Codex (sh shim) with every held loop', async () => {
    const asked = new Set<string>();
    const ok = (r: { status: number; exit: string | null; text: string }, text = NEUTRAL) => {
      expect(r.status).toBe(200);
      expect(r.exit).toBe('0');
      expect(r.text).toBe(text);
    };

    // --- Claude Code: plain firings
    ok(await cc({ hook_event_name: 'SessionStart', source: 'startup', model: 'claude-test' }));
    ok(await cc({ hook_event_name: 'UserPromptSubmit', prompt: 'tidy up the repo', prompt_id: 'p1', permission_mode: 'default' }));
    ok(await cc({ hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'echo hi' }, tool_use_id: 'tu1' }));
    ok(
      await cc({
        hook_event_name: 'PostToolUse',
        tool_name: 'Bash',
        tool_input: { command: 'echo hi' },
        tool_use_id: 'tu1',
        tool_response: { stdout: 'hi', stderr: '', interrupted: false },
        duration_ms: 12,
      }),
    );

    // --- permission answered allow
    const p1 = cc({ hook_event_name: 'PermissionRequest', tool_name: 'Bash', tool_input: { command: 'touch a.txt' }, permission_suggestions: [] });
    const r1 = await nextRequest(CC, asked);
    expect(r1.data).toMatchObject({ kind: 'permission', respond_via: ['control'] });
    expect((await answer(r1, { option: 'allow' })).ack.type).toBe('control.accepted');
    ok(await p1, ALLOW);

    // --- permission answered with guidance text: a deny carrying the words
    const p2 = cc({ hook_event_name: 'PermissionRequest', tool_name: 'Bash', tool_input: { command: 'rm -rf build' }, permission_suggestions: [] });
    const r2 = await nextRequest(CC, asked);
    const a2 = await answer(r2, { text: 'keep build/, clean dist/ instead' });
    expect(a2.outcomes.find((e) => e.type === 'attention.answered')?.data?.answer).toEqual({ option: 'deny', text: 'keep build/, clean dist/ instead' });
    ok(await p2, '{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"keep build/, clean dist/ instead"}}}');

    // --- AskUserQuestion: one form; an invalid answer is rejected and the form stays pending
    const questions = [{ question: 'Which license?', header: 'License', multiSelect: false, options: [{ label: 'MIT' }, { label: 'Apache-2.0' }] }];
    const p3 = cc({ hook_event_name: 'PermissionRequest', tool_name: 'AskUserQuestion', tool_input: { questions } });
    const r3 = await nextRequest(CC, asked);
    expect(r3.data.kind).toBe('form');
    expect(r3.data.fields).toHaveLength(1);
    const bad = await answer(r3, { values: {} });
    expect(bad.ack).toMatchObject({ type: 'control.rejected', data: { reason: 'invalid' } });
    await answer(r3, { values: { '1': '2' } });
    ok(
      await p3,
      `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow","updatedInput":{"questions":` +
        `${JSON.stringify(questions)},"answers":{"Which ` +
        `license?":"Apache-2.0"}}}}}`,
    );
    ok(
      await cc({
        hook_event_name: 'PostToolUse',
        tool_name: 'AskUserQuestion',
        tool_input: { questions, answers: { 'Which license?': 'Apache-2.0' } },
        tool_use_id: 'tu2',
        tool_response: {},
      }),
    );

    // --- MCP elicitation
    const p4 = cc({
      hook_event_name: 'Elicitation',
      mcp_server_name: 'deployer',
      message: 'Pick a target',
      requested_schema: {
        type: 'object',
        properties: { env: { type: 'string', enum: ['staging', 'prod'] }, replicas: { type: 'integer' } },
        required: ['env'],
      },
    });
    const r4 = await nextRequest(CC, asked);
    await answer(r4, { values: { env: 'staging', replicas: 2 } });
    ok(await p4, '{"hookSpecificOutput":{"hookEventName":"Elicitation","action":"accept","content":{"env":"staging","replicas":2}}}');
    ok(await cc({ hook_event_name: 'ElicitationResult', mcp_server_name: 'deployer', action: 'accept', content: { env: 'staging', replicas: 2 } })); // orphan now: emits nothing

    ok(await cc({ hook_event_name: 'Stop', stop_hook_active: false, last_assistant_message: 'done' }));
    ok(await cc({ hook_event_name: 'SessionEnd', reason: 'other' }));

    // --- Codex through the sh shim; its permission request is left to time out
    for (const [hook, body] of [
      ['SessionStart', { source: 'startup', model: 'gpt-test' }],
      ['UserPromptSubmit', { prompt: 'list files' }],
      ['PreToolUse', { tool_name: 'Bash', tool_input: { command: 'ls' }, tool_use_id: 'cx1' }],
      ['PostToolUse', { tool_name: 'Bash', tool_input: { command: 'ls' }, tool_use_id: 'cx1', tool_response: 'a.txt\n' }],
    ] as const) {
      expect(await codexHook(hook, body)).toEqual({ stdout: NEUTRAL, code: 0 });
    }
    expect(await codexHook('PermissionRequest', { tool_name: 'Bash', tool_input: { command: 'rm -rf /tmp/x' } })).toEqual({ stdout: NEUTRAL, code: 0 });
    const timeout =
      stream.find((e) => e.type === 'attention.timeout' && e.session === CX) ??
      (await until('the codex timeout on the stream', () => stream.find((e) => e.type === 'attention.timeout' && e.session === CX)));
    expect(timeout.data).toEqual({ after_ms: 800 });
    expect(await codexHook('Stop', { last_assistant_message: 'done' })).toEqual({ stdout: NEUTRAL, code: 0 });

    // --- the stream and the logs hold the same, valid events
    const logged = [...readLogs(join(tmp.dir, 'logs', 'claude-code')), ...readLogs(join(tmp.dir, 'logs', 'codex'))];
    await until('every logged event on the stream', () => logged.every((e) => stream.some((s) => s.id === e.id && s.source === e.source)));
    const ours = stream.filter((e) => e.agent === 'claude-code' || e.agent === 'codex');
    expect(ours.length).toBe(logged.length);
    for (const e of logged) expect(ours.find((s) => s.id === e.id)).toEqual(e);
    expect(validateStream(logged)).toEqual([]);
    expect(validateStream(ours)).toEqual([]);
    const types = (agent: string) => logged.filter((e) => e.agent === agent).map((e) => e.type);
    expect(types('claude-code')).toEqual(
      expect.arrayContaining([
        'session.started',
        'run.started',
        'tool.requested',
        'tool.completed',
        'attention.requested',
        'control.accepted',
        'control.rejected',
        'attention.answered',
        'attention.resolved',
        'session.ended',
      ]),
    );
    expect(types('codex')).toEqual([
      'session.started',
      'run.started',
      'tool.requested',
      'tool.completed',
      'attention.requested',
      'attention.timeout',
      'run.finished',
    ]);
  }, 90_000);
});
