// People on a fleet (issue 43): two `hookmap up --config` processes on one
// NATS JetStream stream, both with the same `people:` (configured once,
// written to each machine's file), alice's token in B's home and bob's in
// A's. A request held on B and routed to alice only is invisible to bob's
// token on A and his answer through A is refused; a force push held on B
// needs both: alice allows on B (1 of 2, a fact on the stream that A's
// stream shows too), bob completes it through A: the second approval
// crosses the backplane to the daemon holding the hook.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hookKeyHeaders } from '../../engine/runtime/auth/hook-key.mjs';
import { addToken } from '../../engine/runtime/auth/tokens.ts';
import { makeCommand, openSocket, sendCommand, type SocketSession } from '../../engine/runtime/relay/client.ts';
import type { AepEvent } from '../../engine/core/map/envelope.ts';
import { readLogs, until } from '../runtime/daemon/helpers.ts';
import { NATS_MISSING, NatsServer } from './nats.ts';

const BIN = fileURLToPath(new URL('../../bin/hookmap.mjs', import.meta.url));
const TOKEN = 'fleet-people-token-0123456789abcdef';
const ALLOW = '{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}';

interface Machine {
  home: string;
  url: string;
  child: ChildProcess;
}

describe.skipIf(!!NATS_MISSING)('people on a fleet of two processes (nats-server -js)', () => {
  let nats: NatsServer;
  let project: string;
  const machines: Machine[] = [];
  const sockets: SocketSession[] = [];
  const tokens: Record<string, string> = {};
  let a: Machine;
  let b: Machine;

  const machine = async (name: string, token: string): Promise<Machine> => {
    const home = mkdtempSync(join(tmpdir(), `hookmap-fleet-people-${name}-`));
    writeFileSync(join(home, 'token'), `${TOKEN}\n`, { mode: 0o600 });
    tokens[token] = addToken(home, token, 'control').token;
    writeFileSync(
      join(home, 'up.yaml'),
      'agents: { claude-code: { attention_timeout_ms: 30000 } }\n' +
        `backplane: { url: "${nats.url}", stream: PPL${process.pid}, prefix: ppl${process.pid} }\n` +
        'people:\n' +
        `  - { name: alice, tokens: [alice], approve: [{ project: ${basename(project)} }, { floor: any }] }\n` +
        '  - { name: bob, tokens: [bob], approve: [{ floor: force-push }] }\n' +
        'two_people: { floor: [force-push] }\n',
    );
    const child = spawn(process.execPath, [BIN, 'up', '--port', '0', '--config', join(home, 'up.yaml')], {
      env: { ...process.env, HOOKMAP_HOME: home, HOOKMAP_AUTOSTART: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    child.stderr!.on('data', (c) => (err += c));
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout!.on('data', (c) => {
        out += c;
        if (out.includes('\n')) resolve(out.split('\n')[0].trim());
      });
      child.once('exit', (code) => reject(new Error(`up ${name} exited ${code} before listening: ${err}`)));
    });
    const m = { home, url, child };
    machines.push(m);
    const headers = { authorization: `Bearer ${TOKEN}` };
    await until(`${name}: every link ready`, async () => (await (await fetch(`${url}/healthz`, { headers })).json()).relay === true, 30_000);
    return m;
  };

  beforeAll(async () => {
    nats = await NatsServer.start();
    project = join(mkdtempSync(join(tmpdir(), 'hookmap-fleet-people-')), 'shopapi');
    mkdirSync(project);
    a = await machine('a', 'bob');
    b = await machine('b', 'alice');
  }, 90_000);

  afterAll(async () => {
    for (const x of sockets) x.ws.close();
    for (const m of machines) {
      if (m.child.exitCode === null && m.child.signalCode === null) {
        const gone = new Promise((r) => m.child.once('exit', r));
        m.child.kill('SIGTERM');
        await Promise.race([gone, new Promise((r) => setTimeout(r, 5000))]);
        if (m.child.exitCode === null && m.child.signalCode === null) m.child.kill('SIGKILL');
      }
      rmSync(m.home, { recursive: true, force: true });
    }
    await nats?.stop();
  });

  const logB = () => join(b.home, 'logs', 'claude-code');
  const permission = (session: string, command: string) =>
    fetch(`${b.url}/hooks/claude-code`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...hookKeyHeaders(b.home) },
      body: JSON.stringify({
        hook_event_name: 'PermissionRequest',
        session_id: session,
        cwd: project,
        permission_mode: 'default',
        tool_name: 'Bash',
        tool_input: { command },
        permission_suggestions: [],
      }),
    });
  const requestOf = (session: string) =>
    until(`request of ${session}`, () => readLogs(logB()).find((e) => e.type === 'attention.requested' && e.session === session));
  async function streamOf(m: Machine, token: string): Promise<AepEvent[]> {
    const res = await fetch(`${m.url}/stream?from=all&live=0`, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
    return (await res.text())
      .split('\n')
      .filter((l) => l.startsWith('data: '))
      .map((l) => JSON.parse(l.slice(6)));
  }
  async function answer(m: Machine, token: string, req: AepEvent, option: 'allow' | 'deny') {
    const sock = await openSocket(m.url, token);
    sockets.push(sock);
    const cmd = makeCommand('control.attention.respond', req.session!, { subject: req.id, data: { answer: { option } } });
    const r = await sendCommand(sock, cmd, { ackWindowMs: 8000, outcomeWindowMs: 200, isFinal: () => true });
    if (r.kind !== 'acked') throw new Error(`no ack: ${JSON.stringify(r)}`);
    return r.ack as AepEvent & { data: Record<string, any> };
  }

  it("a request held on B and routed to alice is invisible to bob's token on A; his answer through A is refused", async () => {
    const started = await fetch(`${b.url}/hooks/claude-code`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...hookKeyHeaders(b.home) },
      body: JSON.stringify({ hook_event_name: 'SessionStart', session_id: 'fp-1', cwd: project, source: 'startup' }),
    });
    expect(started.status).toBe(200);
    const held = permission('fp-1', 'make deploy');
    const req = await requestOf('fp-1');
    expect((req as any).hookmappeople).toBe('alice');
    await until("the request on A's stream", async () => (await streamOf(a, TOKEN)).some((e) => e.id === req.id) || undefined);
    const bobs = await streamOf(a, tokens.bob);
    expect(bobs.some((e) => e.session === 'fp-1')).toBe(true); // he reads B's session on A...
    expect(bobs.some((e) => e.id === req.id || (e as any).subject === req.id)).toBe(false); // ...never the request
    const nack = await answer(a, tokens.bob, req, 'allow');
    expect(nack.type).toBe('control.rejected');
    expect(nack.data.code).toBe('not-routed');
    expect((await answer(b, tokens.alice, req, 'deny')).type).toBe('control.accepted');
    expect(await (await held).text()).toMatch(/"behavior":"deny"/);
  });

  it("a force push on B: alice allows on B (1 of 2, on A's stream too), bob completes it through A", async () => {
    const held = permission('fp-2', 'git push --force origin main');
    const req = await requestOf('fp-2');
    expect((req as any).hookmapapprovals).toBe(2);
    const first = await answer(b, tokens.alice, req, 'allow');
    expect(first.data.result).toEqual({ partial: true, approved: ['alice'], need: 2 });
    const partial = await until(
      "the partial approval on A's stream",
      async () => (await streamOf(a, TOKEN)).find((e) => e.type === 'x.hookmap.approval.partial' && e.subject === req.id),
      10_000,
    );
    expect(partial.data).toMatchObject({ approved: 1, need: 2, by: ['alice'] });
    // bob sees it on A (it is routed to him too), and his allow through A completes it on B
    expect((await streamOf(a, tokens.bob)).some((e) => e.id === req.id)).toBe(true);
    expect((await answer(a, tokens.bob, req, 'allow')).type).toBe('control.accepted');
    expect(await (await held).text()).toBe(ALLOW);
    const answered = await until('answered', () => readLogs(logB()).find((e) => e.type === 'attention.answered' && e.subject === req.id));
    expect((answered.data as any).by).toBe('bob');
  });
});
