// Issue 40, "loopback is not an identity": a whole `hookmap up` (its home's
// hook key required, as the CLI's) with Claude Code's instruct and next_turn
// on. A local process without the key cannot take the owner's steering (a
// next-turn waiter, a fake PostToolUse), cannot ack or nack an instruction in
// flight, and cannot post fake moments (UserPromptSubmit, SessionEnd) into a
// session's timeline: each gets 403, `x-hookmap-error: hook-key` and the
// agent's neutral bytes, and nothing reaches the stream. A wrong key, an
// empty one, one in a query string (never logged verbatim) and another home's
// are refused alike; the real sh and Node shims, reading the key from the
// home, reach the daemon and the owner's steer reaches the real waiter. A
// read-only token never sees the steer's text. The tee's upgrade needs the key too.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureHookKey, hookKeyPath, readHookKey } from '../../engine/runtime/auth/hook-key.mjs';
import { addToken } from '../../engine/runtime/auth/tokens.ts';
import { loadVendor } from '../../engine/core/descriptor/registry.ts';
import { writeShims } from '../../engine/runtime/shim/generate.ts';
import { BIN, runProcess } from '../runtime/shim/helpers.ts';
import { watchAll, type Watcher } from '../helpers/up-stack.ts';
import { raw, upgradeStatus, upStack, until, type UpStack } from './helpers.ts';

let s: UpStack;
let owner: Watcher;
let reader: Watcher;
let other: string;
const SESSION = '5e55a029-0000-4000-8000-0000000000c1';
const FAKE = '5e55a029-0000-4000-8000-0000000000f1';
const STEER = 'Only the owner may read this steer 7c1e';
const body = (session: string, name: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ session_id: session, transcript_path: '/tmp/t.jsonl', cwd: '/home/dev/proj', hook_event_name: name, permission_mode: 'default', ...extra });
const keyed = (key: string | undefined): Record<string, string> => ({
  'content-type': 'application/json',
  ...(key === undefined ? {} : { 'x-hookmap-key': key }),
});
const post = (path: string, payload: string, key: string | undefined) => raw(s.url, { method: 'POST', path, headers: keyed(key), body: payload });
const daemon = () => s.up.daemons.get('claude-code')! as any;
const waiting = () => daemon().commands.nextTurn.waiting(SESSION) as boolean;
const neutral = (hook?: string) => daemon().neutralReply(hook).body as string;
const onStream = (w: Watcher, session: string) => w.stream.filter((e) => JSON.stringify(e).includes(session));

async function steer(text: string): Promise<void> {
  const { run } = await import('../../engine/cli/commands/steer.ts');
  const out: string[] = [];
  const write = process.stdout.write.bind(process.stdout);
  const ewrite = process.stderr.write.bind(process.stderr);
  (process.stdout as any).write = (c: any) => (out.push(String(c)), true);
  (process.stderr as any).write = (c: any) => (out.push(String(c)), true);
  try {
    const code = await run([SESSION, text, '--url', s.url, '--token-file', join(s.home, 'token'), '--wait', '0']);
    expect(code, out.join('')).toBe(0);
  } finally {
    (process.stdout as any).write = write;
    (process.stderr as any).write = ewrite;
  }
}

beforeAll(async () => {
  s = await upStack({ key: true, hello: true, agents: [{ descriptor: 'claude-code', config: { instruct: true, next_turn: true } }] });
  other = mkdtempSync(join(tmpdir(), 'hookmap-other-home-'));
  owner = await watchAll(s.url, s.token);
  reader = await watchAll(s.url, addToken(s.home, 'reader', ['read']).token);
  for (const [name, extra] of [
    ['SessionStart', { source: 'startup' }],
    ['UserPromptSubmit', { prompt: 'go' }],
    ['Stop', { stop_hook_active: false }],
  ] as const) {
    const r = await post('/hooks/claude-code', body(SESSION, name, extra), s.hookKey);
    expect(r.status, r.body).toBe(200);
  }
  await daemon().flush();
  await owner.seen((e) => JSON.stringify(e).includes(SESSION), 'the real session on the stream');
});
afterAll(async () => {
  owner?.close();
  reader?.close();
  await s?.done();
  rmSync(other, { recursive: true, force: true });
});

describe('the hook key', () => {
  it('up created the home key 0600 (64 hex, the header line curl reads), the stack presents it', () => {
    expect(s.hookKey).toMatch(/^[0-9a-f]{64}$/);
    expect(statSync(hookKeyPath(s.home)).mode & 0o777).toBe(0o600);
  });

  it('without the key: fake UserPromptSubmit, SessionEnd, PostToolUse get 403, the code, neutral bytes; nothing reaches the stream', async () => {
    const before = s.lines.length;
    for (const [name, extra] of [
      ['UserPromptSubmit', { prompt: 'injected' }],
      ['PostToolUse', { tool_name: 'Bash', tool_input: { command: 'ls' }, tool_use_id: 'tu-f', tool_response: {} }],
      ['SessionEnd', { reason: 'other' }],
    ] as const) {
      for (const who of [FAKE, SESSION]) {
        const r = await post('/hooks/claude-code', body(who, name, extra), undefined);
        expect(r.status).toBe(403);
        expect(r.headers['x-hookmap-error']).toBe('hook-key');
        expect(r.body).toBe(neutral(name));
        expect(r.headers['x-hookmap-exit']).toBe('0');
      }
    }
    await daemon().flush();
    await new Promise((r) => setTimeout(r, 200)); // what the stream would carry has had its turn
    expect(onStream(owner, FAKE)).toEqual([]);
    expect(owner.stream.some((e) => JSON.stringify(e).includes(SESSION) && /session\.end/.test(e.type))).toBe(false);
    expect(owner.stream.some((e) => JSON.stringify(e).includes('injected'))).toBe(false);
    // one coded line for the burst (throttled), naming no body
    const said = s.lines.slice(before).filter((l) => l.includes('[hook-key]'));
    expect(said.length).toBe(1);
    expect(said[0]).toMatch(/POST \/hooks\/claude-code: refused \[hook-key\]: no hook key/);
  });

  it("a wrong key, an empty key, another home's key, a key in the query string: each refused", async () => {
    const otherKey = ensureHookKey(other).key;
    const attempts: [string, string | undefined][] = [
      ['/hooks/claude-code', 'f'.repeat(64)],
      ['/hooks/claude-code', ''],
      ['/hooks/claude-code', otherKey],
      ['/hooks/claude-code', s.hookKey.toUpperCase().slice(1)],
      [`/hooks/claude-code?key=${s.hookKey}`, undefined],
      [`/hooks/claude-code?x-hookmap-key=${s.hookKey}`, undefined],
      [`/next-turn/claude-code?key=${s.hookKey}`, undefined],
    ];
    for (const [path, key] of attempts) {
      const r = await post(path, body(FAKE, 'UserPromptSubmit', { prompt: 'x' }), key);
      expect(r.status, `${path} ${key}`).toBe(403);
      expect(r.headers['x-hookmap-error']).toBe('hook-key');
    }
    // a key in the URL is never logged verbatim: every logged URL goes through one redactor
    await post(`/hooks/claude-code/${s.hookKey}?token=${s.hookKey}`, '{', s.hookKey);
    await post(`/hooks/nobody?access_token=${s.hookKey}`, '{}', s.hookKey);
    expect(s.lines.join('\n')).not.toContain(s.hookKey);
    expect(s.lines.join('\n')).toContain('[REDACTED]');
    expect(onStream(owner, FAKE)).toEqual([]);
  });

  it("without the key a waiter gets nothing and no steer; the owner's steer reaches the real waiter, which acks with the key", async () => {
    // the attacker's waiter for the real session: refused at once, no waiter registered
    const stolen = await post('/next-turn/claude-code', body(SESSION, 'Stop', { stop_hook_active: false }), undefined);
    expect(stolen.status).toBe(403);
    expect(stolen.headers['x-hookmap-ack']).toBeUndefined();
    expect(stolen.body).toBe(neutral());
    expect(waiting()).toBe(false);
    // the real waiter (with the key), then the owner's steer
    const real = post('/next-turn/claude-code', body(SESSION, 'Stop', { stop_hook_active: false }), s.hookKey);
    await until('the real waiter', () => waiting());
    // a second attacker waiter cannot supersede it
    expect((await post('/next-turn/claude-code', body(SESSION, 'Stop', {}), 'a'.repeat(64))).status).toBe(403);
    expect(waiting()).toBe(true);
    await steer(STEER);
    const got = await real;
    expect(got.status).toBe(200);
    expect(got.body).toBe(STEER);
    const ack = String(got.headers['x-hookmap-ack']);
    expect(ack).toMatch(/^[0-9a-f]{32}$/);
    // the ack token without the key: neither ack nor nack is taken, the instruction stays in flight
    for (const how of ['ack', 'nack']) {
      const r = await post(`/next-turn/claude-code/${how}/${ack}`, '{}', undefined);
      expect(r.status).toBe(403);
      expect(r.headers['x-hookmap-error']).toBe('hook-key');
    }
    expect(daemon().commands.nextTurn.pendingAcks).toBe(1);
    expect((await post(`/next-turn/claude-code/ack/${ack}`, '{}', s.hookKey)).status).toBe(200);
    await owner.seen((e) => e.type === 'x.claude-code.instruction.delivered' && JSON.stringify(e).includes(SESSION), 'delivered');
  });

  it('a fake PostToolUse without the key never reads a queued steer; the real one with the key carries it', async () => {
    expect((await post('/hooks/claude-code', body(SESSION, 'UserPromptSubmit', { prompt: 'next' }), s.hookKey)).status).toBe(200);
    await steer(`${STEER} (running)`);
    await until('queued', () => daemon().commands.queue.list(SESSION).length === 1);
    const tool = body(SESSION, 'PreToolUse', { tool_name: 'Bash', tool_input: { command: 'ls' }, tool_use_id: 'tu-2' });
    const fake = await post('/hooks/claude-code', tool, undefined);
    expect(fake.status).toBe(403);
    expect(fake.body).not.toContain(STEER);
    expect(daemon().commands.queue.list(SESSION).length).toBe(1);
    const realReply = await post('/hooks/claude-code', tool, s.hookKey);
    expect(JSON.parse(realReply.body).hookSpecificOutput.additionalContext).toBe(`${STEER} (running)`);
  });

  it('a read-only token never sees the steer text (the owner steered twice above)', async () => {
    await until('the reader saw the deliveries', () => reader.stream.filter((e) => e.type === 'x.claude-code.instruction.delivered').length >= 2);
    expect(JSON.stringify(reader.stream)).not.toContain(STEER);
  });

  it("the real sh and Node shims read the key from the home and reach the daemon; another home's key is refused (neutral bytes)", async () => {
    const env = { PATH: process.env.PATH, HOME: s.home, HOOKMAP_HOME: s.home, HOOKMAP_URL: s.url, HOOKMAP_AUTOSTART: '0' };
    const { sh } = writeShims(loadVendor('claude-code'), { home: s.home, url: s.url });
    const sessions = { sh: '5e55a029-0000-4000-8000-0000000000a1', node: '5e55a029-0000-4000-8000-0000000000a2' };
    const fire = (kind: 'sh' | 'node', e: NodeJS.ProcessEnv, session: string) =>
      kind === 'sh'
        ? runProcess('sh', [sh, 'SessionStart'], body(session, 'SessionStart', { source: 'startup' }), e)
        : runProcess(process.execPath, [BIN, 'hook', 'claude-code', 'SessionStart'], body(session, 'SessionStart', { source: 'startup' }), e);
    for (const kind of ['sh', 'node'] as const) {
      const r = await fire(kind, env, sessions[kind]);
      expect(r.code, r.stderr).toBe(0);
      await owner.seen((e) => JSON.stringify(e).includes(sessions[kind]), `the ${kind} shim's firing on the stream`);
      // the same shim in another home (another key): refused, answered neutral, nothing on the stream
      const stray = `${sessions[kind].slice(0, -2)}b${kind === 'sh' ? 1 : 2}`;
      const r2 = await fire(kind, { ...env, HOOKMAP_HOME: other }, stray);
      expect(r2.code).toBe(0);
      expect(r2.stdout.toString()).toBe(neutral('SessionStart'));
      await new Promise((res) => setTimeout(res, 200));
      expect(onStream(owner, stray)).toEqual([]);
    }
    expect(readHookKey(other)).not.toBe(s.hookKey);
  });

  it("the tee's upgrade needs the key", async () => {
    // claude-code is not a stdio-tee agent: with the key the upgrade gets past the key check to the 404 of the agent's surface
    expect(await upgradeStatus(s.url, {}, undefined, '/surfaces/claude-code/tee')).toBe(403);
    expect(await upgradeStatus(s.url, { 'x-hookmap-key': 'b'.repeat(64) }, undefined, '/surfaces/claude-code/tee')).toBe(403);
    expect(await upgradeStatus(s.url, { 'x-hookmap-key': s.hookKey }, undefined, '/surfaces/claude-code/tee')).toBe(404);
  });
});
