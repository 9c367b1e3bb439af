// An event the relay refuses never blocks the ones after it (issue 10):
// whether the relay advertised a frame limit the line exceeds, closed the
// link with 1009 without advertising one, or answered an `invalid-event`
// error frame naming the event, the line is set aside in the dead-letter
// file beside the log, an x.hookmap.event.dropped notice names its id and
// size, and the link moves on (engine/runtime/daemon/relay-link.ts).
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocketServer, type WebSocket } from 'ws';
import { Daemon } from '../../engine/runtime/daemon/daemon.ts';
import { DEAD_LETTER_FILE } from '../../engine/runtime/daemon/relay-link.ts';
import { loadVendor } from '../../engine/core/descriptor/registry.ts';
import { createRelay } from '../../engine/runtime/relay/index.ts';
import { until } from './helpers.ts';

const TOKEN = 'dead-letter-test-token';
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

function temp(): string {
  const dir = mkdtempSync(join(tmpdir(), 'hookmap-dead-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** codex at capture `full`, so a prompt's size reaches the wire. */
function fullCodex(dir: string) {
  const src = readFileSync(join(import.meta.dirname, '../../vendors/codex.yaml'), 'utf8');
  const path = join(dir, 'codex.yaml');
  writeFileSync(path, src.replace(/ceiling: metadata\n\s+overrides: \{ attention: redacted \}/, 'ceiling: full\n  overrides: { attention: full }'));
  return loadVendor(path);
}

function daemonAt(relayUrl: string): { d: Daemon; logDir: string } {
  const dir = temp();
  const logDir = join(dir, 'logs');
  const d = Daemon.open({ descriptor: fullCodex(dir), logDir });
  d.connectRelay(relayUrl, TOKEN);
  cleanups.push(() => d.close());
  return { d, logDir };
}

const deadLetters = (logDir: string) =>
  existsSync(join(logDir, DEAD_LETTER_FILE))
    ? readFileSync(join(logDir, DEAD_LETTER_FILE), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l))
    : [];
const prompt = (session: string, text: string) => ({
  hook: 'UserPromptSubmit',
  payload: { hook_event_name: 'UserPromptSubmit', session_id: session, turn_id: 't1', prompt: text },
});
const stop = (session: string) => ({ hook: 'Stop', payload: { hook_event_name: 'Stop', session_id: session, turn_id: 't1' } });

describe('the dead-letter file', () => {
  it('takes a line over the frame limit the relay advertised; the notice and the next event reach a subscriber', async () => {
    const relay = createRelay({ port: 0, token: TOKEN, maxFrame: 64 * 1024 });
    const { url } = await relay.listen();
    cleanups.push(() => relay.close());
    const seen: any[] = [];
    relay.subscribe({ from: 'all' }, (ev) => seen.push(ev));
    const { d, logDir } = daemonAt(url);
    await until('the relay hello', () => d.relayReady);

    await d.handle(prompt('dl-1', 'p'.repeat(200_000))); // ~200 KB at capture full: under the event bound, over this relay's frame
    await d.handle(stop('dl-1'));
    const notice = await until('the dropped notice', () => seen.find((e) => e.type === 'x.hookmap.event.dropped'));
    await until('the next event', () => seen.some((e) => e.type === 'run.finished' && e.session === 'dl-1'));
    expect(seen.some((e) => e.type === 'run.started')).toBe(false);

    const [rec] = deadLetters(logDir);
    expect(rec.type).toBe('run.started');
    expect(rec.bytes).toBeGreaterThan(200_000);
    expect(rec.reason).toMatch(/frame limit \(65536 bytes\)/);
    expect(JSON.parse(rec.line).id).toBe(rec.id);
    expect(notice.session).toBe('dl-1');
    expect(notice.severity).toBe('warning');
    expect(notice.data).toMatchObject({ code: 'event-dropped', id: rec.id, type: 'run.started', bytes: rec.bytes });
    expect(notice.cause).toBe(rec.id);
  }, 30_000);

  it('takes what a relay refused by closing 1009 (no limit advertised), and the link moves on after the reconnect', async () => {
    const got: any[] = [];
    let connections = 0;
    const wss = new WebSocketServer({ port: 0, maxPayload: 64 * 1024 });
    cleanups.push(() => new Promise((r) => wss.close(r)));
    wss.on('connection', (ws: WebSocket) => {
      connections++;
      ws.on('error', () => {}); // the oversize frame: ws closes the connection with 1009 after this
      ws.on('message', (data) => {
        const m = JSON.parse(String(data));
        if (m.type === 'hello')
          return ws.send(JSON.stringify({ type: 'hello', versions: ['0.1'], role: 'both', identity: { agent: 'fake-relay' }, capabilities: {} }));
        if (m.type === 'ping') return ws.send(JSON.stringify({ type: 'pong', t: m.t }));
        got.push(m);
      });
    });
    await new Promise((r) => wss.once('listening', r));
    const { d, logDir } = daemonAt(`http://127.0.0.1:${(wss.address() as any).port}`);
    await until('the relay hello', () => d.relayReady);

    await d.handle(prompt('dl-2', 'q'.repeat(200_000)));
    await d.handle(stop('dl-2'));
    await until('the next event after the reconnect', () => got.some((e) => e.type === 'run.finished'), 20_000);
    const notice = await until('the dropped notice', () => got.find((e) => e.type === 'x.hookmap.event.dropped'));
    expect(connections, 'the 1009 close, then a reconnect').toBeGreaterThanOrEqual(2);
    const [rec] = deadLetters(logDir);
    expect(rec.type).toBe('run.started');
    expect(notice.data.id).toBe(rec.id);
    expect(got.some((e) => e.type === 'run.started')).toBe(false);
  }, 30_000);

  it('takes an event the relay answered with an invalid-event error frame; nothing is re-sent in a loop', async () => {
    const got: any[] = [];
    const wss = new WebSocketServer({ port: 0 });
    cleanups.push(() => new Promise((r) => wss.close(r)));
    wss.on('connection', (ws: WebSocket) => {
      ws.on('message', (data) => {
        const m = JSON.parse(String(data));
        if (m.type === 'hello')
          return ws.send(
            JSON.stringify({
              type: 'hello',
              versions: ['0.1'],
              role: 'both',
              identity: { agent: 'fake-relay' },
              capabilities: { limits: { frame_bytes: 4 * 1024 * 1024 } },
            }),
          );
        if (m.type === 'ping') return ws.send(JSON.stringify({ type: 'pong', t: m.t }));
        got.push(m);
        // this relay refuses any run.started (a stricter schema, say)
        if (m.type === 'run.started') ws.send(JSON.stringify({ type: 'error', code: 'invalid-event', cause: m.id, detail: 'refused by this relay' }));
      });
    });
    await new Promise((r) => wss.once('listening', r));
    const { d, logDir } = daemonAt(`http://127.0.0.1:${(wss.address() as any).port}`);
    await until('the relay hello', () => d.relayReady);

    await d.handle(prompt('dl-3', 'hello'));
    await d.handle(stop('dl-3'));
    const notice = await until('the dropped notice', () => got.find((e) => e.type === 'x.hookmap.event.dropped'));
    expect(got.some((e) => e.type === 'run.finished')).toBe(true);
    const [rec] = deadLetters(logDir);
    expect(rec.reason).toMatch(/invalid-event: refused by this relay/);
    expect(rec.type).toBe('run.started');
    expect(notice.data).toMatchObject({ id: rec.id, type: 'run.started', bytes: rec.bytes });
    await new Promise((r) => setTimeout(r, 300));
    expect(got.filter((e) => e.type === 'run.started')).toHaveLength(1);
    expect(deadLetters(logDir)).toHaveLength(1);
  }, 30_000);
});
