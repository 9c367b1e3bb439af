// The daemon in-process: storage (paths, torn tails, epoch, seq across
// restarts, the lock), the command loop (acks, dedupe, nacks), holds that
// cannot be answered, and the hook endpoint over a real loopback socket.
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Daemon, type PendingHold } from '../../../engine/runtime/daemon/daemon.ts';
import { LockHeldError } from '../../../engine/runtime/daemon/lock.ts';
import { sessionFileName } from '../../../engine/core/io/paths.ts';
import { startServe } from '../../../engine/app/serve.ts';
import { SessionLog } from '../../../engine/runtime/daemon/session-log.ts';
import { loadVendor } from '../../../engine/core/descriptor/registry.ts';
import { respondCommand } from '../../../engine/tools/cases/run-decisions.ts';
import { validateStream } from '../../../engine/core/validate/index.ts';
import { MemoryLink, readLogs, tempDir, until } from './helpers.ts';

const codex = () => loadVendor('codex');
const cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});
function temp() {
  const t = tempDir();
  cleanups.push(t.done);
  return t.dir;
}

const pre = (session: string, call: string) => ({
  hook_event_name: 'PreToolUse',
  session_id: session,
  turn_id: 't1',
  tool_name: 'Bash',
  tool_input: { command: 'ls' },
  tool_use_id: call,
});
const perm = (session: string) => ({
  hook_event_name: 'PermissionRequest',
  session_id: session,
  turn_id: 't1',
  tool_name: 'Bash',
  tool_input: { command: 'rm -rf build' },
});

describe('session file names', () => {
  it('never escape the folder and never collide after slugging', () => {
    const ids = ['../../etc/passwd', '/abs/path', 'a/b', 'a:b', 'a b', 'x\u0000y', '.hidden', '', 'é'.repeat(200), 'CON', 's1'];
    const names = ids.map(sessionFileName);
    for (const n of names) {
      expect(n).toMatch(/^[A-Za-z0-9][A-Za-z0-9._-]*-[0-9a-f]{12}\.jsonl$/);
      expect(n.length).toBeLessThanOrEqual(64 + 1 + 12 + 6);
    }
    expect(new Set(names).size).toBe(ids.length);
    expect(sessionFileName('s1')).toBe(sessionFileName('s1'));
  });
});

describe('session log', () => {
  it('cuts a torn last line and finds the last position', () => {
    const dir = temp();
    const file = join(dir, sessionFileName('s'));
    writeFileSync(file, `${JSON.stringify({ seq: 4, epoch: 2 })}\n${JSON.stringify({ seq: 5, epoch: 2 })}\n{"seq":6,"ep`);
    const log = new SessionLog(dir);
    expect(log.lastPosition('s')).toEqual({ epoch: 2, seq: 5 });
    expect(readFileSync(file, 'utf8').endsWith('}\n')).toBe(true);
    log.close();
  });
});

describe('epoch, seq and the lock', () => {
  it('bumps the epoch on every start and continues seq after the last logged one', async () => {
    const dir = temp();
    const a = Daemon.open({ descriptor: codex(), logDir: dir });
    expect(a.epoch).toBe(0);
    await a.handle({ payload: pre('s1', 'c1') });
    await a.handle({ payload: pre('s1', 'c2') });
    await a.close();
    const b = Daemon.open({ descriptor: codex(), logDir: dir });
    expect(b.epoch).toBe(1);
    await b.handle({ payload: pre('s1', 'c3') });
    await b.close();
    const evs = readLogs(dir);
    expect(evs.map((e) => [e.epoch, e.seq])).toEqual([
      [0, 0],
      [0, 1],
      [1, 2],
    ]);
    expect(validateStream(evs)).toEqual([]);
  });

  it('refuses a second daemon on the same log folder, takes over a stale lock', () => {
    const dir = temp();
    const a = Daemon.open({ descriptor: codex(), logDir: dir });
    expect(() => Daemon.open({ descriptor: codex(), logDir: dir })).toThrow(LockHeldError);
    void a.close();
    writeFileSync(join(dir, 'daemon.lock'), '999999999\n'); // a pid that is not running
    const b = Daemon.open({ descriptor: codex(), logDir: dir });
    cleanups.push(() => b.close());
  });

  it('Daemon.start (up: every epoch flushed at once) exists only once its epoch is on disk; a refused start leaves the folder free', async () => {
    const dir = temp();
    const a = await Daemon.start({ descriptor: codex(), logDir: dir });
    expect([a.epoch, readFileSync(join(dir, 'epoch'), 'utf8')]).toEqual([0, '0\n']);
    await expect(Daemon.start({ descriptor: codex(), logDir: dir })).rejects.toThrow(LockHeldError);
    await a.close();
    const both = await Promise.all([Daemon.start({ descriptor: codex(), logDir: dir }), Daemon.start({ descriptor: codex(), logDir: temp() })]);
    expect(both.map((d) => d.epoch)).toEqual([1, 0]);
    expect(readFileSync(join(dir, 'epoch'), 'utf8')).toBe('1\n');
    for (const d of both) await d.close();
    writeFileSync(join(dir, 'epoch'), 'garbage\n');
    await expect(Daemon.start({ descriptor: codex(), logDir: dir })).rejects.toThrow(/corrupt/);
    writeFileSync(join(dir, 'epoch'), '7\n'); // the lock was let go: the next start takes the folder
    const c = await Daemon.start({ descriptor: codex(), logDir: dir });
    expect(c.epoch).toBe(8);
    await c.close();
  });
});

describe('lifecycles real agents produce', () => {
  const cc = (hook: string, extra: Record<string, unknown> = {}) => ({
    hook_event_name: hook,
    session_id: 'cc-r',
    cwd: '/w',
    transcript_path: '/t.jsonl',
    ...extra,
  });

  it('a session resumed after its end, across a daemon restart, is its successor: one session.ended each', async () => {
    const dir = temp();
    const a = Daemon.open({ descriptor: loadVendor('claude-code'), logDir: dir });
    await a.handle({ payload: cc('SessionStart', { source: 'startup' }) });
    await a.handle({ payload: cc('SessionEnd', { reason: 'other' }) });
    await a.close();
    const b = Daemon.open({ descriptor: loadVendor('claude-code'), logDir: dir });
    await b.handle({ payload: cc('PostToolUse', { tool_name: 'Bash', tool_use_id: 'late', tool_input: {}, tool_response: {} }) }); // a late completion stays on the ended session
    await b.handle({ payload: cc('SessionStart', { source: 'resume' }) });
    await b.handle({ payload: cc('UserPromptSubmit', { prompt: 'go on' }) });
    await b.handle({ payload: cc('SessionEnd', { reason: 'other' }) });
    await b.close();
    const c = Daemon.open({ descriptor: loadVendor('claude-code'), logDir: dir });
    await c.handle({ payload: cc('SessionStart', { source: 'resume' }) });
    await c.close();
    const evs = readLogs(dir);
    expect(evs.filter((e) => e.type === 'session.started').map((e) => [e.session, e.data?.resumed_from])).toEqual([
      ['cc-r', undefined],
      ['cc-r~2', 'cc-r'],
      ['cc-r~3', 'cc-r~2'],
    ]);
    expect(evs.filter((e) => e.type === 'session.ended').map((e) => e.session)).toEqual(['cc-r', 'cc-r~2']);
    expect(evs.find((e) => e.type === 'tool.completed')?.session).toBe('cc-r');
    expect(validateStream(evs)).toEqual([]);
  });

  it('attention still open at a session end is closed as dismissed first, held or not', async () => {
    const dir = temp();
    const kimi = Daemon.open({ descriptor: loadVendor('kimi-code'), logDir: dir });
    cleanups.push(() => kimi.close());
    const k = (hook: string, extra: Record<string, unknown> = {}) =>
      kimi.handle({ payload: { hook_event_name: hook, session_id: 'k-1', cwd: '/w', ...extra } });
    await k('SessionStart', { source: 'startup' });
    await k('PermissionRequest', { tool_name: 'Shell', tool_call_id: 'tc-1', tool_input: { command: 'rm -rf build' } });
    await k('SessionEnd', { reason: 'exit' });
    const evs = readLogs(dir);
    const req = evs.find((e) => e.type === 'attention.requested')!;
    expect(evs.find((e) => e.type === 'attention.resolved')).toMatchObject({ subject: req.id, data: { resolution: 'dismissed' } });
    expect(validateStream(evs)).toEqual([]);

    // a held request in a resumed (successor) session: the daemon's dismissal, not a second one from the engine
    const dir2 = temp();
    const d = Daemon.open({ descriptor: loadVendor('claude-code'), logDir: dir2, attentionTimeoutMs: 60_000 });
    cleanups.push(() => d.close());
    d.attach(new MemoryLink(), true);
    await d.handle({ payload: cc('SessionStart', { source: 'startup' }) });
    await d.handle({ payload: cc('SessionEnd', { reason: 'other' }) });
    await d.handle({ payload: cc('SessionStart', { source: 'resume' }) });
    const held = d.handle({ payload: cc('PermissionRequest', { tool_name: 'Bash', tool_input: { command: 'rm -rf build' } }) });
    await until('the hold', () => d.pending().length === 1);
    await d.handle({ payload: cc('SessionEnd', { reason: 'other' }) });
    expect((await held).body).toBe('');
    const evs2 = readLogs(dir2).filter((e) => e.session === 'cc-r~2');
    expect(evs2.filter((e) => e.type === 'attention.resolved').length).toBe(1);
    expect(validateStream(readLogs(dir2))).toEqual([]);
  });
});

describe('the command loop', () => {
  async function heldDaemon() {
    const dir = temp();
    let onHold!: (h: PendingHold) => void;
    const opened = new Promise<PendingHold>((r) => (onHold = r));
    const events: any[] = [];
    const d = Daemon.open({ descriptor: codex(), logDir: dir, onHold, onEvent: (e) => events.push(e) });
    cleanups.push(() => d.close());
    const link = new MemoryLink();
    d.attach(link, true);
    const reply = d.handle({ payload: perm('s1') });
    const hold = await opened;
    return { d, link, events, reply, hold };
  }

  it('re-sends the recorded ack byte-identically on a retry and decides once', async () => {
    const { d, link, events, reply, hold } = await heldDaemon();
    const cmd = respondCommand(hold, { option: 'allow' });
    await d.onCommand(cmd);
    await d.onCommand(structuredClone(cmd));
    const acks = events.filter((e) => e.cause === cmd.id && e.type.startsWith('control.'));
    expect(acks).toHaveLength(1);
    const logged = link.delivered.find((r) => r.line.includes(acks[0].id))!.line;
    expect(link.resent).toEqual([logged]);
    expect((await reply).body).toContain('"behavior":"allow"');
  });

  it('nacks a late answer to an answered request, an unknown request and an undeclared command', async () => {
    const { d, events, reply, hold } = await heldDaemon();
    await d.onCommand(respondCommand(hold, { option: 'deny' }));
    await reply;
    const late = respondCommand(hold, { option: 'allow' });
    await d.onCommand(late);
    const unknown = { ...respondCommand(hold, { option: 'allow' }), subject: 'nope' };
    await d.onCommand(unknown);
    // steering is opt-in per agent (config instruct): off here, so the command is not accepted
    const cancel = { ...respondCommand(hold, {}), type: 'x.codex.control.instruct', data: { text: 'also run the tests' } };
    await d.onCommand(cancel);
    const ack = (c: any) => events.find((e) => e.cause === c.id)?.data;
    // detail is capture-gated at redacted; Codex's control.* ceiling is metadata, so the reason and its code travel
    expect(ack(late)).toEqual({ reason: 'invalid', code: 'already-closed' });
    expect(ack(unknown)).toMatchObject({ reason: 'invalid' });
    expect(ack(cancel)).toEqual({ reason: 'unsupported', code: 'not-accepted' });
    expect(validateStream(events)).toEqual([]);
  });

  it('records the applied option and the redacted guidance text', async () => {
    const { d, events, reply, hold } = await heldDaemon();
    await d.onCommand(respondCommand(hold, { text: 'no: the key is sk-ant-abcdefghijklmnopqrstuvwx, use staging' }));
    const r = await reply;
    expect(r.body).toContain('sk-ant-abcdefghijklmnopqrstuvwx'); // the agent gets the real words
    const answered = events.find((e) => e.type === 'attention.answered');
    expect(answered.data.answer.option).toBe('deny');
    expect(answered.data.answer.text).not.toContain('sk-ant-');
    expect(answered.data.via).toBe('control');
  });

  it('fails open at once when nobody can answer (control off)', async () => {
    const dir = temp();
    const events: any[] = [];
    const d = Daemon.open({ descriptor: codex(), logDir: dir, onEvent: (e) => events.push(e) });
    cleanups.push(() => d.close());
    const r = await d.handle({ payload: perm('s1') });
    expect(r.body).toBe('');
    expect(events.map((e) => e.type)).toEqual(['attention.requested', 'attention.timeout']);
    expect(events[1].data).toEqual({ after_ms: 0 });
  });

  it('dismisses a hold the agent hung up on, and every hold at shutdown', async () => {
    const dir = temp();
    const events: any[] = [];
    const d = Daemon.open({ descriptor: codex(), logDir: dir, onEvent: (e) => events.push(e) });
    d.attach(new MemoryLink(), true);
    const ac = new AbortController();
    const first = d.handle({ payload: perm('s1'), signal: ac.signal });
    const second = d.handle({ payload: perm('s2') });
    await d.flush();
    ac.abort();
    expect((await first).body).toBe('');
    await d.close();
    expect((await second).body).toBe('');
    expect(events.filter((e) => e.type === 'attention.resolved').map((e) => e.data.resolution)).toEqual(['dismissed', 'dismissed']);
    expect(validateStream(events)).toEqual([]);
  });
});

describe('the hook endpoint (real socket)', () => {
  async function served(maxBody?: number) {
    const dir = temp();
    const lines: string[] = [];
    const s = await startServe({ descriptor: codex(), port: 0, logDir: dir, maxBody, say: (l) => lines.push(l) });
    cleanups.push(() => s.close());
    return { ...s, dir, lines };
  }
  const post = (url: string, body: string, headers: Record<string, string> = { 'content-type': 'application/json' }) =>
    fetch(url, { method: 'POST', body, headers });

  it('answers the exact reply bytes with the exit header; the hook name from the path or the payload', async () => {
    const s = await served();
    const r1 = await post(`${s.url}/hooks/codex`, JSON.stringify(pre('s1', 'c1')));
    expect(r1.status).toBe(200);
    expect(r1.headers.get('x-hookmap-exit')).toBe('0');
    expect(await r1.text()).toBe('');
    const { hook_event_name: _, ...noName } = pre('s1', 'c2');
    const r2 = await post(`${s.url}/hooks/codex/PreToolUse`, JSON.stringify(noName));
    expect(r2.headers.get('x-hookmap-error')).toBeNull();
    expect(readLogs(s.dir).map((e) => e.type)).toEqual(['tool.requested', 'tool.requested']);
    const h = await (await fetch(`${s.url}/healthz`)).json();
    expect(h).toEqual({ ok: true, relay: false });
  });

  it('bad input still gets neutral bytes, a diagnostic event and a log line naming the code', async () => {
    const s = await served(1024);
    const cases: [string, string, string, Record<string, string>?][] = [
      ['/hooks/codex', '{"oops', 'malformed-json'],
      ['/hooks/codex', '[1,2]', 'invalid-payload'],
      ['/hooks/codex', JSON.stringify({ ...pre('s1', 'c1'), pad: 'x'.repeat(4096) }), 'body-too-large'],
      ['/hooks/codex', '{"hook_event_name":"PreToolUse"}', 'missing-session'],
      ['/hooks/nobody', '{}', 'unknown-agent'],
    ];
    for (const [path, body, code, headers] of cases) {
      const r = await post(`${s.url}${path}`, body, headers);
      expect(r.status, code).toBe(200);
      expect(await r.text(), code).toBe('');
      expect(r.headers.get('x-hookmap-exit'), code).toBe('0');
      expect(r.headers.get('x-hookmap-error'), code).toBe(code);
      expect(
        s.lines.some((l) => l.includes(`[${code}]`)),
        code,
      ).toBe(true);
    }
    const diags = readLogs(s.dir).filter((e) => e.type === 'x.codex.error.mapping_failed');
    expect(diags.map((e) => e.data?.code)).toEqual(['malformed-json', 'invalid-payload', 'body-too-large', 'missing-session']);
  });

  it('refuses a body that is not application/json with a code and the neutral bytes, never reading it', async () => {
    const s = await served();
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', '']) {
      const r = await post(`${s.url}/hooks/codex`, JSON.stringify(pre('s1', 'c1')), type ? { 'content-type': type } : {});
      expect(r.status, type).toBe(415);
      expect(r.headers.get('x-hookmap-error'), type).toBe('unsupported-media-type');
      expect(r.headers.get('x-hookmap-exit'), type).toBe('0');
      expect(await r.text(), type).toBe('');
    }
    expect(s.lines.filter((l) => l.includes('[unsupported-media-type]'))).toHaveLength(4);
    expect(readLogs(s.dir)).toEqual([]);
    const ok = await post(`${s.url}/hooks/codex`, JSON.stringify(pre('s1', 'c2')), { 'content-type': 'application/json; charset=utf-8' });
    expect(ok.status).toBe(200);
  });

  it("a malformed hook path still gets the agent's neutral bytes, coded (never 414, 404 or an empty 400)", async () => {
    const dir = temp();
    const lines: string[] = [];
    const s = await startServe({ descriptor: loadVendor('gemini-cli'), port: 0, logDir: dir, say: (l) => lines.push(l) });
    cleanups.push(() => s.close());
    const body = JSON.stringify({ hook_event_name: 'BeforeTool', session_id: 'p1', tool_name: 'x', tool_input: {} });
    // raw requests: fetch would normalize `..` away before it reaches us
    const raw = (path: string) =>
      new Promise<{ status: number; body: string; error: string | undefined }>((resolve, reject) => {
        const req = http.request({ host: '127.0.0.1', port: s.port, path, method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
          let b = '';
          res.on('data', (c) => (b += c));
          res.on('end', () => resolve({ status: res.statusCode!, body: b, error: res.headers['x-hookmap-error'] as string | undefined }));
        });
        req.on('error', reject);
        req.end(body);
      });
    const cases: [string, string][] = [
      [`/hooks/gemini-cli/${'H'.repeat(250)}`, 'bad-hook-path'],
      ['/hooks/gemini-cli/..', 'bad-hook-path'],
      ['/hooks/gemini-cli/.', 'bad-hook-path'],
      ['/hooks/gemini-cli/%2e%2e', 'bad-hook-path'],
      ['/hooks/gemini-cli/a/b', 'bad-hook-path'],
      ['/hooks/gemini-cli/a%2Fb', 'bad-hook-path'],
      ['/hooks/gemini-cli/%ZZ', 'bad-hook-path'],
      ['/hooks/gemini-cli/a%00b', 'bad-hook-path'],
    ];
    for (const [path, code] of cases) {
      const r = await raw(path);
      expect(r.status, path).toBe(200);
      expect(r.body, path).toBe('{}');
      expect(r.error, path).toBe(code);
    }
    // a trailing slash is no hook name at all: the payload names it
    expect(await raw('/hooks/gemini-cli/')).toEqual({ status: 200, body: '{}', error: undefined });
    expect((await raw('/hooks/%ZZ')).error).toBe('bad-hook-path');
    const diags = readLogs(dir).filter((e) => e.type === 'x.gemini-cli.error.mapping_failed');
    expect(diags.length).toBe(cases.length - 1); // the undecodable URL never reaches the body
    expect(diags.map((e) => [e.data?.code, e.session])).toEqual(diags.map(() => ['bad-hook-path', 'p1']));
  });

  it('an event that fails its schema is never logged: an x.hookmap diagnostic takes its position, the agent gets neutral bytes', async () => {
    const s = await served();
    const r = await post(`${s.url}/hooks/codex`, JSON.stringify({ ...pre('e1', 'c1'), tool_name: '' }));
    expect(await r.text()).toBe('');
    expect(r.headers.get('x-hookmap-error')).toBe('invalid-event');
    await post(`${s.url}/hooks/codex`, JSON.stringify(pre('e1', 'c2')));
    const logged = readLogs(s.dir);
    expect(logged.map((e) => [e.type, e.seq])).toEqual([
      ['x.hookmap.error.invalid_event', 0],
      ['tool.requested', 1],
    ]);
    const diag = logged[0];
    expect(diag.data).toMatchObject({ code: 'invalid-event', type: 'tool.requested', detail: expect.stringContaining('/subject') });
    expect(diag.data?.digest).toMatch(/^[0-9a-f]{32}$/);
    expect(validateStream(logged)).toEqual([]);
  });

  it('lone surrogates anywhere in a payload are replaced before use (session ids, keys, the hook name)', async () => {
    const s = await served();
    const body =
      '{"hook_event_name":"PreToolUse","session_id":"s\\ud800x","turn_id":"t\\udfff","tool_name":"Ba\\ud83dsh","tool_use_id":"c1","tool_input":{"k\\ud800":"v"}}';
    const r = await post(`${s.url}/hooks/codex`, body);
    expect(r.headers.get('x-hookmap-error')).toBeNull();
    const [ev] = readLogs(s.dir);
    expect(ev.session).toBe('s\ufffdx');
    expect(ev.run).toBe('t\ufffd');
    expect(ev.subject).toBe('Ba\ufffdsh');
    expect(ev.source).toContain('/session/s%EF%BF%BDx');
    expect(validateStream([ev])).toEqual([]);
    const r2 = await post(`${s.url}/hooks/codex/Pre\ud800`.replace('\ud800', '%ED%A0%80'), JSON.stringify(pre('s2', 'c')));
    expect(r2.status).toBe(200);
  });

  it('holds stay open over HTTP until answered (reply = the decision bytes)', async () => {
    const s = await served();
    const link = new MemoryLink();
    s.daemon.attach(link, true);
    const pending = post(`${s.url}/hooks/codex`, JSON.stringify(perm('s9')));
    const hold = await new Promise<PendingHold>((resolve) => {
      const t = setInterval(() => {
        const h = s.daemon.pending()[0];
        if (h) {
          clearInterval(t);
          resolve(h);
        }
      }, 10);
    });
    await s.daemon.onCommand(respondCommand(hold, { option: 'allow' }));
    const r = await pending;
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await r.text()).toBe('{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}');
  });

  it('a torn log tail from a crash is repaired before the next event', async () => {
    const dir = temp();
    const d = Daemon.open({ descriptor: codex(), logDir: dir });
    await d.handle({ payload: pre('s1', 'c1') });
    await d.close();
    appendFileSync(join(dir, sessionFileName('s1')), '{"aep":"0.1","id":"tor');
    const d2 = Daemon.open({ descriptor: codex(), logDir: dir });
    await d2.handle({ payload: pre('s1', 'c2') });
    await d2.close();
    expect(validateStream(readLogs(dir))).toEqual([]);
  });
});
