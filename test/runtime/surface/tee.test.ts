// `hookmap tee` end to end: the real tee process between a scripted editor
// (this test, writing and reading NDJSON) and a scripted ACP agent
// (fake-acp-agent.mjs), in front of an in-process `hookmap up`. What the
// editor reads must be exactly what the agent wrote, byte for byte, with
// the daemon up, down or hung; the agent's exit code or signal is the
// tee's; bad input passes untouched and is reported once; a permission
// request is answered over the relay (opt-in) and control.cancel is written
// as the editor's own session/cancel. Surface: engine/runtime/surface/tee.mjs.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EventEmitter } from 'node:events';
import WebSocket from 'ws';
import { attachTeeEndpoint } from '../../../engine/runtime/surface/tee-endpoint.ts';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { startUp, type Up } from '../../../engine/app/up.ts';
import { makeCommand, openSocket, sendCommand, type SocketSession } from '../../../engine/runtime/relay/client.ts';
import { tempDir, until } from '../daemon/helpers.ts';

const BIN = fileURLToPath(new URL('../../../bin/hookmap.mjs', import.meta.url));
const AGENT = fileURLToPath(new URL('./fake-acp-agent.mjs', import.meta.url));
const TOKEN = 'tee-test';
const tmp = tempDir('hookmap-tee-');
afterAll(() => tmp.done());
let n = 0;

interface Stack {
  up: Up;
  stream: any[];
  watcher: SocketSession;
  close(): Promise<void>;
}
const stacks: Stack[] = [];
afterEach(async () => {
  for (const s of stacks.splice(0)) await s.close();
});

async function stack(config?: Record<string, unknown>, port = 0, logDir = join(tmp.dir, `logs-${++n}`)): Promise<Stack & { logDir: string }> {
  const up = await startUp({ port, token: TOKEN, logDir, agents: [{ descriptor: 'acp', config }] });
  await until('the acp daemon to say hello to the relay', async () => {
    try {
      return (await (await fetch(`${up.url}/healthz`, { headers: { authorization: `Bearer ${TOKEN}` } })).json()).relay === true;
    } catch {
      return false; // a pooled connection to the previous server on this port
    }
  });
  const watcher = await openSocket(up.url, TOKEN, 'consumer');
  const stream: any[] = [];
  watcher.on((m) => {
    if (typeof m.type === 'string' && m.seq !== undefined && !stream.some((e) => e.id === m.id)) stream.push(m);
  });
  await new Promise<void>((resolve) => {
    const off = watcher.on((m) => m.type === 'subscribed' && (off(), resolve()));
    watcher.send({ type: 'subscribe', id: 'all', from: 'all' });
  });
  const s = {
    up,
    stream,
    watcher,
    logDir,
    close: async () => {
      watcher.close();
      await up.close();
    },
  };
  stacks.push(s);
  return s;
}

interface Editor {
  proc: ChildProcessWithoutNullStreams;
  lines: any[];
  send(m: unknown): void;
  line(pred: (m: any) => boolean, what: string, ms?: number): Promise<any>;
  end(): void;
  done: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: Buffer; stderr: string; ms: number }>;
}

/** Spawn `cmd args` as an editor would its agent command, with files recording what the agent got and wrote. */
function editor(args: string[], env: NodeJS.ProcessEnv): Editor {
  const t0 = Date.now();
  const proc = spawn(process.execPath, args, {
    env: { PATH: process.env.PATH, HOME: tmp.dir, HOOKMAP_HOME: join(tmp.dir, 'home'), HOOKMAP_TOKEN: '', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const out: Buffer[] = [];
  let err = '';
  let pending = '';
  const lines: any[] = [];
  proc.stdout.on('data', (c: Buffer) => {
    out.push(c);
    pending += c.toString('utf8');
    let i;
    while ((i = pending.indexOf('\n')) >= 0) {
      const l = pending.slice(0, i);
      pending = pending.slice(i + 1);
      try {
        lines.push(JSON.parse(l));
      } catch {
        lines.push(l);
      }
    }
  });
  proc.stderr.on('data', (c) => (err += c));
  proc.stdin.on('error', () => {});
  const done = new Promise<any>((resolve) =>
    proc.on('close', (code, signal) => resolve({ code, signal, stdout: Buffer.concat(out), stderr: err, ms: Date.now() - t0 })),
  );
  return {
    proc,
    lines,
    send: (m) => proc.stdin.write(typeof m === 'string' ? m : `${JSON.stringify(m)}\n`),
    line: (pred, what, ms = 15_000) => until(what, () => lines.find(pred), ms),
    end: () => proc.stdin.end(),
    done,
  };
}

const tee = (url: string, extra: string[] = []) => [BIN, 'tee', 'acp', '--url', url, ...extra, '--', process.execPath, AGENT];
const files = () => {
  const k = ++n;
  return { FAKE_ACP_RECORD: join(tmp.dir, `got-${k}.txt`), FAKE_ACP_WROTE: join(tmp.dir, `wrote-${k}.txt`) };
};
const read = (f: string) => (existsSync(f) ? readFileSync(f) : Buffer.alloc(0));

/** initialize, session/new (waiting for its answer, as an editor does), then one prompt. */
async function openSession(e: Editor, sessionId = 'fake-session-1'): Promise<void> {
  e.send({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } });
  await e.line((m) => m.id === 0 && m.result, 'initialize answered');
  e.send({ jsonrpc: '2.0', id: 1, method: 'session/new', params: { cwd: tmp.dir, mcpServers: [] } });
  await e.line((m) => m.id === 1 && m.result?.sessionId === sessionId, 'session/new answered');
  e.send({ jsonrpc: '2.0', id: 2, method: 'session/prompt', params: { sessionId, prompt: [{ type: 'text', text: 'make a file' }] } });
}

const LONG =
  `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"fake-session-1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"` +
  `${'x'.repeat(600)}"}}}}\n`;
const SCRIPT = JSON.stringify([
  { tool: 't1', title: 'echo hello' },
  { raw: 'not json at all\n' },
  { raw: LONG },
  { stderr: 'a log line on stderr\n' },
  { raw: '{"jsonrpc":"2.0","id":4242,"result":{}}\n' },
  { tool: 't2', status: 'failed' },
]);

describe('hookmap tee', () => {
  it(
    'daemon up: every byte the agent wrote reaches the editor unchanged; the stream has the ' + 'session, the turn, its tools; bad lines reported once',
    async () => {
      const s = await stack();
      const f = files();
      const e = editor(tee(s.up.url, ['--max-line', '300']), { ...f, FAKE_ACP_SCRIPT: SCRIPT, FAKE_ACP_EXIT: '3' });
      await openSession(e);
      await e.line((m) => m.id === 2 && m.result, 'the turn to end');
      e.send('this editor line is not json either\n');
      e.end();
      const r = await e.done;
      expect(r.code).toBe(3);
      expect(r.stdout.equals(read(f.FAKE_ACP_WROTE))).toBe(true);
      expect(r.stderr).toBe('a log line on stderr\n');
      const sent = read(f.FAKE_ACP_RECORD)
        .toString('utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => {
          try {
            return JSON.parse(l).method;
          } catch {
            return l;
          }
        });
      expect(sent).toEqual(['initialize', 'session/new', 'session/prompt', 'this editor line is not json either']);
      const events = await until('the exit event', () => (s.stream.some((x) => x.type === 'x.acp.agent.exited') ? s.stream : undefined));
      const ses = events.filter((x) => x.session === 'fake-session-1').map((x) => x.type);
      expect(ses).toEqual(['session.started', 'run.started', 'tool.requested', 'tool.completed', 'tool.requested', 'tool.failed', 'run.finished']);
      const run = events.find((x) => x.type === 'run.started');
      expect(run.run).toMatch(/^acp:.+:2$/);
      expect(events.filter((x) => x.session === 'fake-session-1' && x.type !== 'session.started').every((x) => x.run === run.run)).toBe(true);
      const problems = events.filter((x) => x.type === 'x.acp.error.mapping_failed').map((x) => x.data.code);
      // once per problem and direction: the agent's non-JSON line, its oversize line, the editor's non-JSON line
      expect(problems.sort()).toEqual(['line-too-large', 'malformed-json', 'malformed-json']);
      expect(events.filter((x) => x.type === 'x.acp.response.unmatched')).toHaveLength(1);
      expect(events.find((x) => x.type === 'x.acp.agent.exited').data).toEqual({ code: 3 });
    },
    60_000,
  );

  it('bad input again and again: every byte passes untouched, each kind of problem is reported once, every good line after it is mapped', async () => {
    const s = await stack();
    const f = files();
    const bad = [
      { raw: 'not json 1\n' },
      { raw: LONG },
      { raw: '{"jsonrpc":"2.0","id":4242,"result":{}}\n' },
      { tool: 't1' },
      { raw: 'not json 2\n' },
      { raw: LONG },
      { raw: '{"jsonrpc":"2.0","id":4243,"error":{"code":-1,"message":"x"}}\n' },
      { raw: 'not json 3\n' },
      { tool: 't2' },
    ];
    const e = editor(tee(s.up.url, ['--max-line', '300']), { ...f, FAKE_ACP_SCRIPT: JSON.stringify(bad) });
    e.send({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } });
    await e.line((m) => m.id === 0 && m.result, 'initialize answered');
    // the editor's side: garbage and a response to nothing, twice each, before its session and prompt
    e.send('editor garbage 1\n');
    e.send('{"jsonrpc":"2.0","id":777,"result":{"outcome":{"outcome":"cancelled"}}}\n');
    e.send('editor garbage 2\n');
    e.send({ jsonrpc: '2.0', id: 1, method: 'session/new', params: { cwd: tmp.dir, mcpServers: [] } });
    await e.line((m) => m.id === 1 && m.result, 'session/new answered');
    e.send({ jsonrpc: '2.0', id: 2, method: 'session/prompt', params: { sessionId: 'fake-session-1', prompt: [{ type: 'text', text: 'go' }] } });
    await e.line((m) => m.id === 2 && m.result, 'the turn to end');
    e.end();
    const r = await e.done;
    expect(r.code).toBe(0);
    expect(r.stdout.equals(read(f.FAKE_ACP_WROTE))).toBe(true);
    const got = read(f.FAKE_ACP_RECORD).toString('utf8').split('\n').filter(Boolean);
    expect(got.slice(1, 4)).toEqual(['editor garbage 1', '{"jsonrpc":"2.0","id":777,"result":{"outcome":{"outcome":"cancelled"}}}', 'editor garbage 2']);
    const events = await until('the exit event', () => (s.stream.some((x) => x.type === 'x.acp.agent.exited') ? s.stream : undefined));
    const problems = events.filter((x) => x.type === 'x.acp.error.mapping_failed').map((x) => x.data.code);
    // once per kind and direction, however often it recurred (the count goes to the tee's notes file)
    expect(problems.sort()).toEqual(['line-too-large', 'malformed-json', 'malformed-json']);
    // each response nobody asked for is its own fact: one event each (2 from the agent, 1 from the editor), no error besides
    expect(events.filter((x) => x.type === 'x.acp.response.unmatched')).toHaveLength(3);
    const ses = events.filter((x) => x.session === 'fake-session-1').map((x) => x.type);
    expect(ses).toEqual(['session.started', 'run.started', 'tool.requested', 'tool.completed', 'tool.requested', 'tool.completed', 'run.finished']);
    const notes = readFileSync(join(tmp.dir, 'home', 'logs', 'tee', 'acp.log'), 'utf8');
    expect(notes).toMatch(/malformed-json \(agent -> editor\): 3 lines in all/);
    expect(notes).toMatch(/line-too-large \(agent -> editor\): 2 lines in all/);
    expect(notes).toMatch(/malformed-json \(editor -> agent\): 2 lines in all/);
  }, 60_000);

  it('never holds a line back: a partial line (no newline yet) crosses both ways at once', async () => {
    const s = await stack();
    const p = spawn(process.execPath, [BIN, 'tee', 'acp', '--url', s.up.url, '--', 'cat'], {
      env: { PATH: process.env.PATH, HOME: tmp.dir, HOOKMAP_HOME: join(tmp.dir, 'home') },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let got = '';
    p.stdout.on('data', (c) => (got += c));
    p.stdin.write('{"jsonrpc":"2.0","method":"session/upd');
    await until('the partial line echoed through', () => got === '{"jsonrpc":"2.0","method":"session/upd', 3000);
    p.stdin.end('ate","params":{}}\n');
    await new Promise((r) => p.on('close', r));
    expect(got).toBe('{"jsonrpc":"2.0","method":"session/update","params":{}}\n');
  }, 30_000);

  it('daemon down: the same bytes, the same exit code, no wait at the end', async () => {
    const f = files();
    const e = editor(tee('http://127.0.0.1:9'), { ...f, FAKE_ACP_SCRIPT: SCRIPT, FAKE_ACP_EXIT: '5' });
    await openSession(e);
    await e.line((m) => m.id === 2 && m.result, 'the turn to end');
    const ended = Date.now();
    e.end();
    const r = await e.done;
    expect(r.code).toBe(5);
    expect(r.stdout.equals(read(f.FAKE_ACP_WROTE))).toBe(true);
    expect(r.stderr).toBe('a log line on stderr\n');
    expect(Date.now() - ended).toBeLessThan(3000);
    // said in the tee's notes file (never on the editor's streams): where it looked, and what the stream misses
    const notes = readFileSync(join(tmp.dir, 'home', 'logs', 'tee', 'acp.log'), 'utf8');
    expect(notes).toContain('cannot reach the daemon at ws://127.0.0.1:9/surfaces/acp/tee: connect ECONNREFUSED');
    expect(notes).toMatch(/exiting with \d+ moment\(s\) the daemon did not take \(not connected\)/);
  }, 60_000);

  it('daemon hung (accepts, never upgrades): the same bytes, nothing waits on it', async () => {
    const held = new Set<any>();
    const hung: Server = createServer((sock) => held.add(sock));
    await new Promise<void>((r) => hung.listen(0, '127.0.0.1', r));
    try {
      const f = files();
      const e = editor(tee(`http://127.0.0.1:${(hung.address() as AddressInfo).port}`), { ...f, FAKE_ACP_SCRIPT: SCRIPT });
      await openSession(e);
      await e.line((m) => m.id === 2 && m.result, 'the turn to end');
      const ended = Date.now();
      e.end();
      const r = await e.done;
      expect(r.code).toBe(0);
      expect(r.stdout.equals(read(f.FAKE_ACP_WROTE))).toBe(true);
      expect(Date.now() - ended).toBeLessThan(3000);
    } finally {
      for (const s of held) s.destroy();
      hung.close();
    }
  }, 60_000);

  it("the agent's death by a signal is the tee's; a missing agent command is 127", async () => {
    const e = editor(tee('http://127.0.0.1:9'), { FAKE_ACP_SCRIPT: '[]' });
    await openSession(e);
    await e.line((m) => m.id === 2, 'the turn');
    const pid = Number(
      readFileSync('/proc/' + e.proc.pid + '/task/' + e.proc.pid + '/children', 'utf8')
        .trim()
        .split(/\s+/)[0],
    );
    process.kill(pid, 'SIGTERM');
    const r = await e.done;
    expect(r.signal).toBe('SIGTERM');
    const missing = spawn(process.execPath, [BIN, 'tee', 'acp', '--url', 'http://127.0.0.1:9', '--', join(tmp.dir, 'no-such-agent')], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    missing.stderr.on('data', (c) => (err += c));
    const code = await new Promise((r) => missing.on('close', r));
    expect(code).toBe(127);
    expect(err).toContain('cannot start');
  }, 60_000);

  it('an agent that exits mid-request: the bytes up to then pass, the run fails once, nothing before it is lost', async () => {
    const s = await stack();
    const f = files();
    const e = editor(tee(s.up.url), { ...f, FAKE_ACP_SCRIPT: JSON.stringify([{ tool: 't1' }, { exit: 7 }]) });
    await openSession(e);
    const r = await e.done;
    expect(r.code).toBe(7);
    expect(r.stdout.equals(read(f.FAKE_ACP_WROTE))).toBe(true);
    const events = await until('the exit event', () => (s.stream.some((x) => x.type === 'x.acp.agent.exited') ? s.stream : undefined));
    expect(events.filter((x) => x.session === 'fake-session-1').map((x) => x.type)).toEqual([
      'session.started',
      'run.started',
      'tool.requested',
      'tool.completed',
      'run.failed',
    ]);
    expect(events.find((x) => x.type === 'run.failed').data).toEqual({ reason: 'agent_exited', error: { type: 'agent_exited', code: '-32099' } });
  }, 60_000);

  it(
    'opt-in control: a permission request answered over the relay reaches the agent as the ' +
      'editor would answer; the editor sees every agent byte; its late answer is dropped',
    async () => {
      const s = await stack({ control: true });
      const f = files();
      const e = editor(tee(s.up.url), { ...f, FAKE_ACP_SCRIPT: JSON.stringify([{ permission: 'tc1', title: 'touch x' }]) });
      await openSession(e);
      const ask = await e.line((m) => m.method === 'session/request_permission', 'the permission request');
      const request = await until('the held attention request', () =>
        s.stream.find((x) => x.type === 'attention.requested' && (x.data?.respond_via ?? []).includes('control')),
      );
      expect(request.data.options.map((o: any) => o.id)).toEqual(['allow', 'deny']);
      const human = await openSocket(s.up.url, TOKEN, 'both');
      try {
        const cmd = makeCommand('control.attention.respond', request.session, { subject: request.id, data: { answer: { option: 'allow' } } });
        const res = await sendCommand(human, cmd, { ackWindowMs: 10_000, outcomeWindowMs: 10_000, isFinal: (x) => x.type === 'attention.resolved' });
        expect(res.kind === 'acked' && res.ack.type).toBe('control.accepted');
      } finally {
        human.close();
      }
      await e.line((m) => m.id === 2 && m.result, 'the turn to end');
      // the editor's own answer, late: dropped (the agent already has one)
      e.send({ jsonrpc: '2.0', id: ask.id, result: { outcome: { outcome: 'selected', optionId: 'no' } } });
      e.send({ jsonrpc: '2.0', method: '$/ping', params: {} });
      await until('the next line to reach the agent', () => read(f.FAKE_ACP_RECORD).toString('utf8').includes('$/ping'));
      e.end();
      const r = await e.done;
      expect(r.stdout.equals(read(f.FAKE_ACP_WROTE))).toBe(true);
      const got = read(f.FAKE_ACP_RECORD)
        .toString('utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l));
      const answers = got.filter((m) => m.id === ask.id && !m.method);
      expect(answers).toEqual([{ jsonrpc: '2.0', id: ask.id, result: { outcome: { outcome: 'selected', optionId: 'yes' } } }]);
      expect(got.at(-1)).toMatchObject({ method: '$/ping' });
      const events = await until('the tool to complete', () => (s.stream.some((x) => x.type === 'tool.completed') ? s.stream : undefined));
      const types = events.filter((x) => x.session === 'fake-session-1').map((x) => x.type);
      expect(types.slice(0, 8)).toEqual([
        'session.started',
        'run.started',
        'tool.requested',
        'attention.requested',
        'control.accepted',
        'attention.answered',
        'attention.resolved',
        'tool.completed',
      ]);
      // hookmap's answer was framed as the answer it is; the editor's dropped one left no trace as a stray response
      await new Promise((res) => setTimeout(res, 300));
      expect(s.stream.filter((x) => x.type === 'x.acp.response.unmatched')).toEqual([]);
    },
    60_000,
  );

  it("opt-in control: control.cancel is written as the editor's session/cancel and the run ends cancelled by control", async () => {
    const s = await stack({ control: true });
    const f = files();
    const e = editor(tee(s.up.url), { ...f, FAKE_ACP_SCRIPT: JSON.stringify([{ tool: 't1' }, { sleep: 20_000 }, { tool: 'never' }]) });
    await openSession(e);
    const started = await until('the run', () => s.stream.find((x) => x.type === 'tool.completed'));
    const human = await openSocket(s.up.url, TOKEN, 'both');
    let cmdId: string | undefined;
    try {
      const cmd = makeCommand('control.cancel', started.session, { run: started.run, data: { scope: 'run' } });
      cmdId = cmd.id;
      const res = await sendCommand(human, cmd, { ackWindowMs: 10_000, outcomeWindowMs: 10_000, isFinal: (x) => x.type === 'run.cancelled' });
      expect(res.kind === 'acked' && res.ack.type).toBe('control.accepted');
    } finally {
      human.close();
    }
    const done = await e.line((m) => m.id === 2 && m.result, 'the cancelled turn', 10_000);
    expect(done.result.stopReason).toBe('cancelled');
    e.end();
    await e.done;
    const got = read(f.FAKE_ACP_RECORD)
      .toString('utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    expect(got.find((m) => m.method === 'session/cancel')).toEqual({ jsonrpc: '2.0', method: 'session/cancel', params: { sessionId: 'fake-session-1' } });
    const cancelled = await until('run.cancelled', () => s.stream.find((x) => x.type === 'run.cancelled'));
    expect(cancelled).toMatchObject({ cause: cmdId, run: started.run, data: { by: 'control' } });
    expect(s.stream.find((x) => x.type === 'x.acp.session.cancel')?.cause).toBe(cmdId);
  }, 60_000);

  it('the daemon restarts mid-session: the tee reconnects; later moments arrive, none twice', async () => {
    const s = await stack();
    const port = s.up.port;
    const logDir = s.logDir;
    const f = files();
    const e = editor(tee(s.up.url), { ...f, FAKE_ACP_SCRIPT: JSON.stringify([{ tool: 't1' }, { sleep: 3_000 }, { tool: 't2' }]) });
    await openSession(e);
    await until('t1', () => s.stream.find((x) => x.type === 'tool.completed'));
    stacks.splice(stacks.indexOf(s), 1);
    await s.close();
    const s2 = await stack(undefined, port, logDir);
    await e.line((m) => m.id === 2 && m.result, 'the turn to end', 20_000);
    e.end();
    await e.done;
    await until('t2 after the restart', () => s2.stream.find((x) => x.type === 'tool.completed' && x.subject === 't2'), 15_000);
    const logged = readFileSync(
      join(
        logDir,
        'acp',
        readdirSafe(join(logDir, 'acp')).find((x) => x.startsWith('fake-session-1'))!,
      ),
      'utf8',
    )
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    const keys = logged.map((x) => `${x.type}/${x.subject ?? ''}`);
    expect(keys).toEqual([
      'session.started/',
      'run.started/',
      'tool.requested/t1',
      'tool.completed/t1',
      'tool.requested/t2',
      'tool.completed/t2',
      'run.finished/',
    ]);
  }, 60_000);

  it('a browser page or another machine cannot pose as a tee (an upgrade with an Origin, or from a non-loopback peer, is refused)', async () => {
    const s = await stack();
    const url = `${s.up.url.replace(/^http/, 'ws')}/surfaces/acp/tee`;
    const status = await new Promise((resolve) => {
      const ws = new WebSocket(url, { headers: { origin: 'https://evil.example' } });
      ws.on('unexpected-response', (_req, res) => resolve(res.statusCode));
      ws.on('open', () => resolve('open'));
      ws.on('error', () => {});
    });
    expect(status).toBe(403);
    const unknown = await new Promise((resolve) => {
      const ws = new WebSocket(`${s.up.url.replace(/^http/, 'ws')}/surfaces/codex/tee`);
      ws.on('unexpected-response', (_req, res) => resolve(res.statusCode));
      ws.on('open', () => resolve('open'));
      ws.on('error', () => {});
    });
    expect(unknown).toBe(404);
    // a peer on another machine is refused before anything else (the server is bound to loopback here, so the peer is staged)
    const fake = new EventEmitter();
    const endpoint = attachTeeEndpoint(fake as any, { daemons: s.up.daemons });
    const written: string[] = [];
    const upgrade = (remoteAddress: string, headers: Record<string, string> = {}) =>
      fake.emit('upgrade', { url: '/surfaces/acp/tee', headers, socket: { remoteAddress } }, { end: (x: string) => written.push(x) }, Buffer.alloc(0));
    upgrade('10.1.2.3');
    upgrade('::ffff:192.168.1.9');
    upgrade('127.0.0.1', { origin: 'http://localhost:3000' });
    expect(written.map((w) => w.split('\r\n')[0])).toEqual(['HTTP/1.1 403 Forbidden', 'HTTP/1.1 403 Forbidden', 'HTTP/1.1 403 Forbidden']);
    endpoint.close();
    // the server's Host/Origin guard is asked first: a Host this server does not go by (DNS rebinding) never reaches a daemon
    const asked: (string | undefined)[] = [];
    const guarded = attachTeeEndpoint(fake as any, {
      daemons: s.up.daemons,
      guard: {
        upgrade: (req: any, socket: any) => (
          asked.push(req.headers.host),
          req.headers.host === 'rebound.example' ? (socket.end('HTTP/1.1 421 Misdirected Request\r\n\r\n'), false) : true
        ),
      },
    });
    written.length = 0;
    upgrade('127.0.0.1', { host: 'rebound.example' });
    expect(asked).toEqual(['rebound.example']);
    expect(written.map((w) => w.split('\r\n')[0])).toEqual(['HTTP/1.1 421 Misdirected Request']);
    guarded.close();
  }, 30_000);
});

function readdirSafe(dir: string): string[] {
  return existsSync(dir) ? readdirSync(dir) : [];
}
