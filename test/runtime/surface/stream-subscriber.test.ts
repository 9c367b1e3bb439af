// The stream-subscriber surface against a stand-in OpenHands agent server
// (openhands-server.ts: its documented socket and REST protocol): discovery
// over REST, first-message auth (the only frame written), replay on attach,
// resume after a drop and after a daemon restart without duplicates, a
// refused key and a vanished conversation reported once, and the mapping of
// a whole conversation through vendors/openhands.yaml. Surface:
// engine/runtime/surface/stream-subscriber.ts.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { compileDescriptor } from '../../../engine/core/descriptor/compile.ts';
import { startUp } from '../../../engine/app/up.ts';
import { ConfigError, loadUpConfig } from '../../../engine/app/up-config.ts';
import { openSocket } from '../../../engine/runtime/relay/client.ts';
import { afterEach, describe, expect, it } from 'vitest';
import { Daemon } from '../../../engine/runtime/daemon/daemon.ts';
import { loadVendor } from '../../../engine/core/descriptor/registry.ts';
import type { AepEvent } from '../../../engine/core/map/envelope.ts';
import { StreamSubscriber, streamStateFile } from '../../../engine/runtime/surface/stream-subscriber.ts';
import { tempDir, until } from '../daemon/helpers.ts';
import { startFakeAgentServer, type FakeAgentServer } from './openhands-server.ts';

const KEY = 'sk-observer-test';
const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

let t = 0;
const ts = () => `2026-07-12T10:15:${String(10 + t++).padStart(2, '0')}.000000`;
const ev = (kind: string, id: string, extra: Record<string, unknown> = {}) => ({ kind, id, timestamp: ts(), source: 'environment', ...extra });
const status = (id: string, value: string) => ev('ConversationStateUpdateEvent', id, { key: 'execution_status', value });

async function rig(o: { server?: FakeAgentServer; logDir?: string; key?: string; streams?: string[] } = {}) {
  const server = o.server ?? (await startFakeAgentServer({ keys: [KEY] }));
  if (!o.server) cleanup.push(() => server.close());
  const logs = o.logDir ?? tempDir('hookmap-stream-').dir;
  const events: AepEvent[] = [];
  const said: string[] = [];
  const d = loadVendor('openhands');
  const daemon = Daemon.open({ descriptor: d, logDir: logs, onEvent: (e) => events.push(e), say: (l) => said.push(l) });
  const sub = new StreamSubscriber({
    daemon,
    spec: d.surface.stream!,
    instance: { url: server.url, key: o.key ?? KEY, streams: o.streams },
    stateFile: streamStateFile(logs),
    say: (l) => said.push(l),
    retryMs: 50,
  });
  sub.start();
  const stop = async () => {
    await sub.close();
    await daemon.close();
  };
  cleanup.push(stop);
  return { server, daemon, sub, events, said, logs, stop };
}

const types = (events: AepEvent[], session?: string) => events.filter((e) => !session || e.session === session).map((e) => e.type);

describe('stream subscriber (OpenHands agent server protocol)', () => {
  it('discovers conversations, authenticates with the first frame only, replays what is there, then follows live', async () => {
    const server = await startFakeAgentServer({ keys: [KEY], pageSize: 1 });
    cleanup.push(() => server.close());
    server.publish('conv-a', status('e1', 'running'));
    server.publish('conv-b', status('e2', 'idle'));
    const r = await rig({ server });
    await until(
      'both conversations replayed',
      () =>
        r.events.some((e) => e.session === 'conv-a' && e.type === 'run.started') && r.events.some((e) => e.session === 'conv-b' && e.type === 'state.delta'),
    );
    // paging followed; the key went as the header on REST, as the first frame on the socket, nowhere else
    expect(server.searches.map((s) => s.query.get('page_id'))).toContain('1');
    expect(server.searches.every((s) => s.key === KEY)).toBe(true);
    for (const s of server.sockets) {
      expect(s.query.get('resend_mode')).toBe('all');
      expect(s.frames).toEqual([JSON.stringify({ type: 'auth', session_api_key: KEY })]);
    }
    server.publish(
      'conv-a',
      ev('ActionEvent', 'e3', {
        source: 'agent',
        tool_name: 'execute_bash',
        tool_call_id: 'c1',
        action: { kind: 'ExecuteBashAction', command: 'ls' },
        llm_response_id: 'r1',
        security_risk: 'LOW',
      }),
    );
    await until('the live action', () => r.events.find((e) => e.type === 'tool.requested'));
    expect(types(r.events, 'conv-a')).toEqual(['session.started', 'state.delta', 'run.started', 'tool.requested']);
    expect(r.events.find((e) => e.type === 'session.started')?.data).toEqual({ client: { name: 'openhands-agent-server' }, server: server.url });
  });

  it('a dropped socket re-attaches from the last vendor timestamp; the overlap is not mapped twice, nothing is lost', async () => {
    const r = await rig({
      streams: ['conv-a'],
      server: await (async () => {
        const s = await startFakeAgentServer({ keys: [KEY] });
        cleanup.push(() => s.close());
        s.publish('conv-a', status('e1', 'running'));
        return s;
      })(),
    });
    await until('run.started', () => r.events.find((e) => e.type === 'run.started'));
    const last = r.server.conversations.get('conv-a')!.at(-1)!.timestamp;
    r.server.dropAll();
    // published while nobody listens
    r.server.publish(
      'conv-a',
      ev('ObservationEvent', 'e2', {
        tool_name: 'execute_bash',
        tool_call_id: 'c1',
        observation: { kind: 'ExecuteBashObservation', content: [{ type: 'text', text: 'ok' }], is_error: false },
      }),
    );
    await until('the missed observation', () => r.events.find((e) => e.type === 'tool.completed'), 10_000);
    const again = r.server.sockets.at(-1)!;
    expect(again.query.get('resend_mode')).toBe('since');
    expect(again.query.get('after_timestamp')).toBe(last);
    r.server.publish('conv-a', status('e3', 'finished'));
    await until('run.finished', () => r.events.find((e) => e.type === 'run.finished'));
    // e1 came back in the overlap (timestamp >= after): mapped once only
    expect(types(r.events, 'conv-a')).toEqual(['session.started', 'state.delta', 'run.started', 'tool.completed', 'state.delta', 'run.finished']);
  });

  it('a daemon restart resumes from the saved position: no duplicates in the log', async () => {
    const server = await startFakeAgentServer({ keys: [KEY] });
    cleanup.push(() => server.close());
    server.publish('conv-a', status('e1', 'running'));
    const logs = tempDir('hookmap-stream-restart-');
    cleanup.push(() => logs.done());
    const first = await rig({ server, logDir: logs.dir, streams: ['conv-a'] });
    await until('run.started', () => first.events.find((e) => e.type === 'run.started'));
    await first.stop();
    cleanup.splice(cleanup.indexOf(first.stop), 1);
    server.publish('conv-a', status('e2', 'finished'));
    const second = await rig({ server, logDir: logs.dir, streams: ['conv-a'] });
    await until('run.finished', () => second.events.find((e) => e.type === 'state.delta'));
    expect(server.sockets.at(-1)!.query.get('resend_mode')).toBe('since');
    expect(types(second.events)).toEqual(['session.started', 'state.delta']); // e1 was not mapped again (a new daemon: first sight again)
  });

  it('a refused key stops the stream and says so once; a conversation that does not exist is not retried', async () => {
    const bad = await rig({ key: 'wrong', streams: ['conv-x'] });
    await until('the refusal', () => bad.events.find((e) => e.type === 'x.openhands.error.mapping_failed'));
    await new Promise((r) => setTimeout(r, 400));
    expect(bad.events.filter((e) => e.type === 'x.openhands.error.mapping_failed')).toHaveLength(1);
    expect(bad.sub.status().streams).toEqual([{ id: 'conv-x', live: false, stopped: 'the instance refused the key (close 4001)' }]);
    expect(bad.server.sockets).toHaveLength(1);
    expect(bad.said.join('\n')).not.toContain('wrong'); // the key is never logged
    const gone = await rig({ streams: ['conv-nope'] });
    await until('the refusal', () => gone.sub.status().streams[0]?.stopped);
    expect(gone.sub.status().streams[0].stopped).toBe('the instance has no such stream (close 4004)');
  });

  it('a frame that is not a JSON object is skipped and reported once; the frames after it are mapped', async () => {
    const server = await startFakeAgentServer();
    cleanup.push(() => server.close());
    server.conversations.set('conv-a', []);
    const r = await rig({ server, streams: ['conv-a'] });
    await until('attached', () => r.sub.status().streams[0]?.live);
    server.publish('conv-a', 'not an object' as any);
    server.publish('conv-a', [1, 2] as any);
    server.publish('conv-a', status('e1', 'running'));
    await until('run.started', () => r.events.find((e) => e.type === 'run.started'));
    expect(r.events.filter((e) => e.type === 'x.openhands.error.mapping_failed')).toHaveLength(1);
  });

  it('a whole conversation maps to the AEP lifecycle: runs from the status plane, tools, the confirmation gate, compaction', async () => {
    const server = await startFakeAgentServer({ keys: [KEY] });
    cleanup.push(() => server.close());
    const c = 'conv-full';
    const frames = [
      ev('SystemPromptEvent', 'f1', { source: 'agent', system_prompt: { type: 'text', text: 'You are an agent.' }, tools: [] }),
      ev('MessageEvent', 'f2', { source: 'user', llm_message: { role: 'user', content: [{ type: 'text', text: 'fix it' }] } }),
      status('f3', 'running'),
      ev('ActionEvent', 'f4', {
        source: 'agent',
        tool_name: 'execute_bash',
        tool_call_id: 'c1',
        action: { kind: 'ExecuteBashAction', command: 'rm -rf build' },
        llm_response_id: 'r1',
        security_risk: 'HIGH',
      }),
      status('f5', 'waiting_for_confirmation'),
      status('f6', 'running'),
      ev('ObservationEvent', 'f7', {
        tool_name: 'execute_bash',
        tool_call_id: 'c1',
        action_id: 'f4',
        observation: { kind: 'ExecuteBashObservation', content: [{ type: 'text', text: 'done' }], is_error: false },
      }),
      ev('Condensation', 'f8', { forgotten_event_ids: ['f1', 'f2'], summary: 'earlier work' }),
      ev('TokenEvent', 'f9', { prompt_token_ids: [1], response_token_ids: [2] }),
      status('f10', 'finished'),
    ];
    for (const f of frames) server.publish(c, f);
    const r = await rig({ server, streams: [c] });
    await until('the run to finish', () => r.events.find((e) => e.type === 'run.finished'));
    expect(types(r.events, c)).toEqual([
      'session.started',
      'x.openhands.system.prompt',
      'x.openhands.message.event',
      'state.delta',
      'run.started',
      'tool.requested',
      'state.delta',
      'attention.requested',
      'state.delta',
      'attention.resolved',
      'tool.completed',
      'session.compacted',
      'state.delta',
      'run.finished',
    ]);
    const req = r.events.find((e) => e.type === 'attention.requested')!;
    expect(req.data).toEqual({ kind: 'permission', prompt: 'Awaiting confirmation for a pending action' }); // no options: observe-only
    expect(r.events.find((e) => e.type === 'attention.resolved')).toMatchObject({ subject: req.id, data: { resolution: 'answered' } });
    const tool = r.events.find((e) => e.type === 'tool.requested')!;
    expect(tool).toMatchObject({
      subject: 'execute_bash',
      step: 'r1',
      data: { tool: { name: 'execute_bash', call_id: 'c1' }, risk: 'HIGH', vendor_event_id: 'f4' },
    });
    expect(JSON.stringify(r.events)).not.toContain('rm -rf'); // content stays below the metadata ceiling
    const run = r.events.find((e) => e.type === 'run.started')!.run;
    expect(r.events.filter((e) => e.session === c && ['tool.requested', 'tool.completed', 'run.finished'].includes(e.type)).every((e) => e.run === run)).toBe(
      true,
    );
    // the observer wrote its auth frame and nothing else
    expect(server.sockets.flatMap((s) => s.frames)).toEqual([JSON.stringify({ type: 'auth', session_api_key: KEY })]);
    expect(join(r.logs, 'streams.json')).toBeTruthy();
  });

  it('`hookmap up --config`: an instance per URL and key (from the environment); the stream reaches the relay; healthz says what is attached', async () => {
    const server = await startFakeAgentServer({ keys: [KEY] });
    cleanup.push(() => server.close());
    server.publish('conv-up', status('u1', 'running'));
    const dir = tempDir('hookmap-stream-up-');
    cleanup.push(() => dir.done());
    const file = join(dir.dir, 'up.yaml');
    writeFileSync(file, `agents:\n  openhands:\n    instances:\n      - url: ${server.url}\n        key_env: OH_TEST_KEY\n`);
    const cfg = loadUpConfig(file, { OH_TEST_KEY: KEY });
    expect(cfg.agents?.[0].instances).toEqual([{ url: server.url, key: KEY, streams: undefined }]);
    const up = await startUp({ ...cfg, port: 0, token: 'tok', logDir: join(dir.dir, 'logs') });
    cleanup.push(() => up.close());
    const consumer = await openSocket(up.url, 'tok', 'consumer');
    cleanup.push(() => consumer.close());
    const seen: any[] = [];
    consumer.on((m) => {
      if (m.type && m.seq !== undefined) seen.push(m);
    });
    consumer.send({ type: 'subscribe', id: 'all', from: 'all' });
    await until('the conversation on the relay', () => seen.find((e) => e.type === 'run.started' && e.session === 'conv-up'), 15_000);
    const health = await (await fetch(`${up.url}/healthz`, { headers: { authorization: 'Bearer tok' } })).json();
    expect(health.agents.openhands.streams).toEqual([{ instance: server.url, streams: [{ id: 'conv-up', live: true }] }]);
    // bad configs are refused with where and why
    const bad = (text: string, env: NodeJS.ProcessEnv = {}) => {
      writeFileSync(file, text);
      try {
        loadUpConfig(file, env);
        return 'accepted';
      } catch (e) {
        return e instanceof ConfigError ? e.message.replace(file, 'F') : String(e);
      }
    };
    // each refusal coded and located (file:line:col code: message), the key named
    expect(bad('agents:\n  openhands:\n    instances:\n      - url: http://h\n        key_env: NOPE\n')).toBe(
      'F:4:7 invalid-value: agents.openhands.instances[0].key_env names NOPE, which is not set',
    );
    expect(bad('agents:\n  openhands:\n    instances:\n      - url: ftp://h\n')).toBe(
      'F:4:14 invalid-value: agents.openhands.instances[0].url must be an http(s) URL (got "ftp://h")',
    );
    expect(bad('agents:\n  openhands:\n    instances:\n      - url: http://u:p@h\n')).toBe(
      'F:4:7 invalid-value: agents.openhands.instances[0].url must not carry credentials (use key or key_env)',
    );
    expect(bad('agents:\n  openhands:\n    instances:\n      - url: http://h\n        token: x\n')).toBe(
      "F:5:9 unknown-key: agents.openhands.instances[0]: unknown key 'token'. Known: `url`, `key`, `key_env`, `streams`.",
    );
  });

  it('SSE transport: frames by data lines, resume with Last-Event-ID after a drop, no duplicates, the key as a header', async () => {
    // a generic SSE event stream (not OpenHands): id: lines, one JSON frame per data: line
    const events: { id: string; data: any }[] = [];
    const clients = new Set<ServerResponse>();
    const seenHeaders: Record<string, string | undefined>[] = [];
    const srv = createServer((req, res) => {
      seenHeaders.push({ key: req.headers['x-api-key'] as string | undefined, last: req.headers['last-event-id'] as string | undefined, path: req.url });
      if (req.headers['x-api-key'] !== 'k1') {
        res.writeHead(401);
        return res.end();
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const after = req.headers['last-event-id'];
      const from = after === undefined ? 0 : events.findIndex((e) => e.id === after); // replays the last one too: an overlap
      for (const e of events.slice(Math.max(0, from))) res.write(`id: ${e.id}\ndata: ${JSON.stringify(e.data)}\n\n`);
      clients.add(res);
      req.on('close', () => clients.delete(res));
    });
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    cleanup.push(
      () =>
        new Promise<void>((r) => {
          for (const c of clients) c.destroy();
          srv.close(() => r());
        }),
    );
    const push = (id: string, data: any) => {
      events.push({ id, data });
      for (const c of clients) c.write(`id: ${id}\ndata: ${JSON.stringify(data)}\n\n`);
    };
    const yaml = [
      'vendor: ssedemo',
      'name: SSE demo',
      'surface:',
      '  kind: stream-subscriber',
      '  pin: test',
      '  hook_name: =kind',
      '  stream:',
      '    transport: sse',
      '    path: /streams/{id}/events',
      '    dedupe: id',
      '    auth: { header: { X-Api-Key: "{key}" } }',
      'identity: { session: =$surface.stream }',
      'hooks:',
      '  tick:',
      '    emit:',
      '      - type: x.ssedemo.tick.seen',
      '        data: { n: =n }',
      '        gates: { n: metadata }',
      'replies: { neutral: "" }',
      'capabilities: {}',
      'posture: observe-only',
    ].join('\n');
    const res = compileDescriptor('ssedemo.yaml', yaml);
    expect(res.errors).toEqual([]);
    const d = res.descriptor!;
    const logs = tempDir('hookmap-stream-sse-');
    cleanup.push(() => logs.done());
    const seen: AepEvent[] = [];
    const daemon = Daemon.open({ descriptor: d, logDir: logs.dir, onEvent: (e) => seen.push(e) });
    cleanup.push(() => daemon.close());
    push('1', { kind: 'tick', id: 'a', n: 1 });
    const sub = new StreamSubscriber({
      daemon,
      spec: d.surface.stream!,
      instance: { url: `http://127.0.0.1:${(srv.address() as AddressInfo).port}`, key: 'k1', streams: ['s1'] },
      stateFile: join(logs.dir, 'streams.json'),
      retryMs: 50,
    });
    sub.start();
    cleanup.push(() => sub.close());
    await until('the first frame', () => seen.find((e) => e.type === 'x.ssedemo.tick.seen'));
    push('2', { kind: 'tick', id: 'b', n: 2 });
    await until('the second', () => seen.filter((e) => e.type === 'x.ssedemo.tick.seen').length === 2);
    for (const c of clients) c.destroy(); // the stream drops
    push('3', { kind: 'tick', id: 'c', n: 3 });
    await until('the third, after the resume', () => seen.filter((e) => e.type === 'x.ssedemo.tick.seen').length === 3, 10_000);
    await new Promise((r) => setTimeout(r, 200));
    expect(seen.filter((e) => e.type === 'x.ssedemo.tick.seen').map((e) => e.data?.n)).toEqual([1, 2, 3]);
    expect(seenHeaders.at(-1)).toMatchObject({ key: 'k1', last: '2', path: '/streams/s1/events' });
  });
});
