// The relay's WebSocket client (engine/runtime/relay/client.ts re-exports it): a
// session with the hello exchange (AEP-0003 §3.5, §4), and one command
// round trip: send, then ack or refusal, then outcome (AEP-0004 §4-§6).
// Moved out of client.ts.
import { hostname } from 'node:os';
import WebSocket from 'ws';
import { AEP_VERSION } from '../../core/aep/version.ts';
import { makeCommand as buildCommand } from '../../core/kernel/command.ts';
import { authHeaders } from './client-sse.ts';
import type { AepEvent } from './store.ts';

export interface SocketSession {
  ws: WebSocket;
  hello: any;
  /** Every frame/event after hello goes to the current listeners. */
  on(listener: (msg: any) => void): () => void;
  send(msg: unknown): void;
  close(): void;
}

export function socketUrl(httpUrl: string): string {
  const u = new URL(httpUrl);
  u.protocol = u.protocol === 'https:' ? 'wss:' : 'ws:';
  u.pathname = `${u.pathname.replace(/\/+$/, '')}/socket`;
  return u.toString();
}

export function openSocket(httpUrl: string, token: string | undefined, role: 'consumer' | 'both' = 'consumer', timeoutMs = 10_000): Promise<SocketSession> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(socketUrl(httpUrl), { headers: authHeaders(token) });
    const listeners = new Set<(m: any) => void>();
    const timer = setTimeout(() => {
      ws.terminate();
      reject(new Error('no hello from the relay in time'));
    }, timeoutMs);
    let hello: any;
    ws.on('unexpected-response', (_req, res) => {
      clearTimeout(timer);
      reject(new Error(`relay refused the WebSocket: ${res.statusCode}${res.statusCode === 401 ? ' (wrong or missing token)' : ''}`));
    });
    ws.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    ws.on('open', () => {
      ws.send(
        JSON.stringify({
          type: 'hello',
          versions: [AEP_VERSION],
          role,
          identity: { agent: 'hookmap-cli', instance: `${hostname()}/${process.pid}` },
          capabilities: {},
        }),
      );
    });
    ws.on('message', (data) => {
      let msg: any;
      try {
        msg = JSON.parse(data.toString());
      } catch {
        return;
      }
      // the relay's liveness probe (AEP-0003 §3.5 rule 5): echo it
      if (msg?.type === 'ping') {
        if (ws.readyState === ws.OPEN) ws.send(JSON.stringify({ type: 'pong', t: msg.t }));
        return;
      }
      if (!hello) {
        clearTimeout(timer);
        if (msg.type !== 'hello') {
          ws.close();
          return reject(new Error(`relay refused hello: ${msg.code ?? msg.type} ${msg.detail ?? ''}`));
        }
        hello = msg;
        return resolve({
          ws,
          hello,
          on(l) {
            listeners.add(l);
            return () => listeners.delete(l);
          },
          send: (m) => ws.send(JSON.stringify(m)),
          close: () => ws.close(1000),
        });
      }
      for (const l of listeners) l(msg);
    });
  });
}

/** A command envelope from the CLI (the kernel's builder, engine/core/kernel/command.ts): no `seq` (foreign emitter, AEP-0001 §5.2). */
export function makeCommand(type: string, session: string, fields: { subject?: string; run?: string; data: Record<string, unknown> }): AepEvent {
  return buildCommand(type, { session, ...fields }, { source: `aep://${encodeURIComponent(hostname())}/agent/hookmap-cli`, agent: 'hookmap-cli' });
}

export type CommandResult =
  { kind: 'refused'; code: string; detail?: string } | { kind: 'timeout' } | { kind: 'acked'; ack: AepEvent; outcomes: AepEvent[]; outcomeTimedOut: boolean };

/**
 * Send one command and follow it: a cause-matched `error` frame is the
 * relay's refusal (AEP-0004 §4.2); `control.accepted`/`control.rejected`
 * with cause = the command id is the target's ack; after an acceptance,
 * events cause-linked to the command or the ack are its outcome, until
 * `isFinal` says the outcome is complete or the outcome window passes.
 */
export async function sendCommand(
  s: SocketSession,
  cmd: AepEvent,
  opts: { ackWindowMs: number; outcomeWindowMs: number; isFinal: (ev: AepEvent) => boolean; onEvent?: (ev: AepEvent) => void },
): Promise<CommandResult> {
  // Watch the session first, so neither the ack nor the outcome can slip past.
  const subId = `cmd-${cmd.id}`;
  await new Promise<void>((resolve, reject) => {
    const off = s.on((m) => {
      if (m.id !== subId) return;
      off();
      if (m.type === 'subscribed') resolve();
      else reject(new Error(`relay refused the watch subscription: ${m.code} ${m.detail ?? ''}`));
    });
    s.send({ type: 'subscribe', id: subId, filter: { session: cmd.session } });
  });
  return new Promise<CommandResult>((resolve) => {
    let ack: AepEvent | undefined;
    const outcomes: AepEvent[] = [];
    let timer = setTimeout(() => finish({ kind: 'timeout' }), opts.ackWindowMs);
    const off = s.on((m) => {
      if (m.type === 'error' && m.cause === cmd.id) return finish({ kind: 'refused', code: m.code, detail: m.detail });
      if (typeof m.type !== 'string' || !m.type.includes('.')) return;
      const ev = m as AepEvent;
      if (!ack && ev.cause === cmd.id && (ev.type === 'control.accepted' || ev.type === 'control.rejected')) {
        ack = ev;
        opts.onEvent?.(ev);
        clearTimeout(timer);
        if (ev.type === 'control.rejected' || outcomes.some(opts.isFinal)) return finish({ kind: 'acked', ack, outcomes, outcomeTimedOut: false });
        timer = setTimeout(() => finish({ kind: 'acked', ack: ack!, outcomes, outcomeTimedOut: true }), opts.outcomeWindowMs);
        return;
      }
      const linked = ev.cause === cmd.id || (ack !== undefined && ev.cause === ack.id) || outcomes.some((o) => o.id === ev.cause);
      if (linked && ev.type !== 'control.accepted' && ev.type !== 'control.rejected' && ev.id !== cmd.id) {
        if (outcomes.some((o) => o.id === ev.id && o.source === ev.source)) return; // at-least-once: dedupe
        outcomes.push(ev);
        opts.onEvent?.(ev);
        if (ack && opts.isFinal(ev)) finish({ kind: 'acked', ack, outcomes, outcomeTimedOut: false });
      }
    });
    function finish(r: CommandResult) {
      clearTimeout(timer);
      off();
      resolve(r);
    }
    s.send(cmd);
  });
}
