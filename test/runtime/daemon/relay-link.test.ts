// The daemon's relay binding against a real relay on loopback: hello and
// health, events while the relay is down reach the NEXT relay from the log,
// and a hold opened before a relay restart is still answerable after it
// (its session is re-claimed on reconnect).
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import { RelayLink } from '../../../engine/runtime/daemon/relay-link.ts';
import { SessionLog } from '../../../engine/runtime/daemon/session-log.ts';
import { startServe } from '../../../engine/app/serve.ts';
import { loadVendor } from '../../../engine/core/descriptor/registry.ts';
import { makeCommand } from '../../../engine/runtime/relay/client.ts';
import { createRelay, type Relay } from '../../../engine/runtime/relay/index.ts';
import { readLogs, tempDir, until } from './helpers.ts';

const TOKEN = 'link-test-token';
const cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

async function relayOn(port: number): Promise<{ relay: Relay; port: number; url: string; seen: any[] }> {
  const relay = createRelay({ port, token: TOKEN });
  const { port: bound, url } = await relay.listen();
  const seen: any[] = [];
  relay.subscribe({ from: 'all' }, (ev) => seen.push(ev));
  return { relay, port: bound, url, seen };
}

const pre = (call: string) => ({
  hook_event_name: 'PreToolUse',
  session_id: 'link-s1',
  turn_id: 't1',
  tool_name: 'Bash',
  tool_input: { command: 'ls' },
  tool_use_id: call,
});

describe('relay link', () => {
  it('survives a relay restart: nothing logged meanwhile is lost, holds stay answerable', async () => {
    const t = tempDir();
    cleanups.push(t.done);
    let r = await relayOn(0);
    const port = r.port;
    const s = await startServe({ descriptor: loadVendor('codex'), port: 0, relay: r.url, token: TOKEN, logDir: t.dir });
    cleanups.push(() => s.close());
    const health = async () => (await (await fetch(`${s.url}/healthz`)).json()).relay;
    await until('the relay hello', health);
    const post = (body: unknown) =>
      fetch(`${s.url}/hooks/codex`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

    await post(pre('c1'));
    await until('c1 at the relay', () => r.seen.some((e) => e.data?.tool?.call_id === 'c1'));

    // a hold opened while the first relay is up
    const held = post({ hook_event_name: 'PermissionRequest', session_id: 'link-s1', turn_id: 't1', tool_name: 'Bash', tool_input: { command: 'rm x' } });
    const request = await until('the request at the relay', () => r.seen.find((e) => e.type === 'attention.requested'));

    await r.relay.close();
    await until('the link to notice', async () => !(await health()));
    await post(pre('c2')); // logged while no relay is listening
    await post(pre('c3'));

    r = await relayOn(port);
    cleanups.push(() => r.relay.close());
    await until('the reconnect', health);
    await until('c2 and c3 replayed from the log', () => ['c2', 'c3'].every((c) => r.seen.some((e) => e.data?.tool?.call_id === c)));

    // the new relay learned the session's owner from the re-sent request: the answer routes
    const answerer = r.relay.connect({ identity: { agent: 'tester' }, role: 'both' });
    const cmd = makeCommand('control.attention.respond', 'link-s1', { subject: request.id, data: { answer: { option: 'allow' } } });
    await until('the command to route', () => answerer.emit(cmd).ok);
    const reply = await held;
    expect(await reply.text()).toBe('{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}');
    await until('the outcome at the relay', () => r.seen.some((e) => e.type === 'attention.resolved'));

    // what the relay holds now equals the log's tail, id for id
    const logged = readLogs(t.dir);
    const ids = new Set(r.seen.filter((e) => e.seq !== undefined).map((e) => e.id));
    const after = logged.slice(logged.findIndex((e: any) => e.data?.tool?.call_id === 'c2'));
    expect(after.filter((e) => !ids.has(e.id))).toEqual([]);
  });

  it('a link closed while its hello is in flight stays closed (no reconnect loop holding the process)', async () => {
    const t = tempDir();
    cleanups.push(t.done);
    let connections = 0;
    let closing: Promise<void> | undefined;
    const wss = new WebSocketServer({ port: 0 });
    cleanups.push(() => new Promise<void>((r) => wss.close(() => r())));
    wss.on('connection', (ws) => {
      connections++;
      ws.on('error', () => {});
      // the relay's hello is on the wire when the daemon decides to stop
      ws.on('message', () =>
        ws.send(JSON.stringify({ type: 'hello', versions: ['0.1'], role: 'both', capabilities: {} }), () => {
          closing ??= link.close();
        }),
      );
    });
    await new Promise<void>((r) => wss.once('listening', () => r()));
    const log = new SessionLog(t.dir);
    cleanups.push(() => log.close());
    const link = new RelayLink({
      url: `ws://127.0.0.1:${(wss.address() as any).port}`,
      identity: { agent: 't', instance: 'x' },
      capabilities: {},
      log,
      cursorFile: join(t.dir, 'c.json'),
      onCommand: () => {},
      backoffMs: { initial: 10, max: 20 },
    });
    link.start();
    await until('the close', () => closing !== undefined);
    await closing;
    await new Promise((r) => setTimeout(r, 300));
    expect(link.ready).toBe(false);
    expect(connections).toBe(1);
  });
});
