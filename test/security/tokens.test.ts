// Attacks on the relay's credentials (issue 10 "a token from the first
// start", "named tokens and a real audit"): a stolen read token tries to
// answer; a revoked token keeps its open connections; a captured answer is
// replayed; a client claims to be someone else; a probe reads /healthz.
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addToken, revokeToken } from '../../engine/runtime/auth/tokens.ts';
import { makeCommand, openSocket, sendCommand, type SocketSession } from '../../engine/runtime/relay/client.ts';
import { SseClient } from '../runtime/relay/helpers.ts';
import { raw, until, upStack, type UpStack } from './helpers.ts';

let s: UpStack;
const sockets: SocketSession[] = [];
beforeAll(async () => {
  s = await upStack({ attentionTimeoutMs: 60_000 });
  await until(
    'the daemon hello',
    async () => (await (await fetch(`${s.up.url}/healthz`, { headers: { authorization: `Bearer ${s.token}` } })).json()).relay === true,
  );
});
afterAll(async () => {
  for (const x of sockets) x.close();
  await s.done();
});

let n = 0;
/** A held codex PermissionRequest: resolves with its attention.requested event and the pending reply. */
async function held(): Promise<{ request: any; reply: Promise<string> }> {
  const session = `tok-s${++n}`;
  const watch = await SseClient.open(s.up.url, { filter: JSON.stringify({ session, type: 'attention.requested' }) }, { authorization: `Bearer ${s.token}` });
  const reply = fetch(`${s.up.url}/hooks/codex`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      hook_event_name: 'PermissionRequest',
      session_id: session,
      turn_id: 't1',
      tool_name: 'Bash',
      tool_input: { command: 'rm -rf build' },
    }),
  }).then((r) => r.text());
  const [request] = await watch.waitEvents(1);
  watch.close();
  return { request, reply };
}

async function socketAs(token: string): Promise<SocketSession> {
  const x = await openSocket(s.up.url, token, 'consumer');
  sockets.push(x);
  return x;
}

const respond = (request: any, answer: Record<string, unknown>) => {
  const cmd = makeCommand('control.attention.respond', request.session, { subject: request.id, data: { answer } });
  cmd.cause = request.id;
  return cmd;
};
const follow = (x: SocketSession, cmd: any, outcomeWindowMs = 10_000) =>
  sendCommand(x, cmd, { ackWindowMs: 10_000, outcomeWindowMs, isFinal: (e) => e.type === 'attention.resolved' });
const audit = () =>
  readFileSync(join(s.home, 'audit.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));

describe('/healthz', () => {
  it('says only ok without a token; details to a reader', async () => {
    const bare = await raw(s.up.url, { path: '/healthz' });
    expect(bare.status).toBe(200);
    expect(JSON.parse(bare.body)).toEqual({ ok: true });
    const wrong = await raw(s.up.url, { path: '/healthz', headers: { authorization: 'Bearer hmk_not-a-token' } });
    expect(JSON.parse(wrong.body)).toEqual({ ok: true });
    const full = JSON.parse((await raw(s.up.url, { path: '/healthz', headers: { authorization: `Bearer ${s.token}` } })).body);
    expect(full.agents.codex.control).toBe(true);
    expect(typeof full.sessions).toBe('number');
  });
});

describe('the owner token', () => {
  it('exists from the first start, 0600, and everything but /healthz needs it', async () => {
    expect(statSync(join(s.home, 'token')).mode & 0o777).toBe(0o600);
    expect((await raw(s.up.url, { path: '/events' })).status).toBe(401);
    expect((await raw(s.up.url, { path: '/events', headers: { accept: 'text/event-stream' } })).status).toBe(401);
    expect((await raw(s.up.url, { path: '/events', headers: { authorization: 'Bearer hmk_guess' } })).status).toBe(401);
    expect((await raw(s.up.url, { path: '/events', headers: { authorization: `Bearer ${s.token}` } })).status).toBe(200);
  });
});

describe('a stolen read token', () => {
  it('reads the stream but cannot answer, emit or cancel', async () => {
    const { token: readTok } = addToken(s.home, 'stolen-reader', 'read');
    expect((await raw(s.up.url, { path: '/events', headers: { authorization: `Bearer ${readTok}` } })).status).toBe(200);
    const { request, reply } = await held();
    const x = await socketAs(readTok);
    const r = await follow(x, respond(request, { option: 'allow' }));
    expect(r).toMatchObject({ kind: 'refused', code: 'unauthorized' });
    const post = await raw(s.up.url, {
      method: 'POST',
      path: '/events',
      headers: { authorization: `Bearer ${readTok}`, 'content-type': 'application/json', 'aep-version': '0.1' },
      body: JSON.stringify({
        aep: '0.1',
        id: 'x1',
        type: 'session.started',
        time: '2026-11-30T00:00:00Z',
        source: 'aep://x/agent/x',
        agent: 'x',
        session: 'forged',
        seq: 0,
        data: {},
      }),
    });
    expect(post.status).toBe(403);
    // the request is still pending and the owner can still answer it
    const owner = await socketAs(s.token);
    const ok = await follow(owner, respond(request, { option: 'deny' }));
    expect(ok.kind).toBe('acked');
    expect(await reply).toContain('"behavior":"deny"');
    expect(audit().some((a) => a.principal === 'stolen-reader' && a.outcome === 'unauthorized' && a.command.subject === request.id)).toBe(true);
  });
});

describe('attribution', () => {
  it('attention.answered.by and the audit record carry the authenticated name, never the client-chosen agent', async () => {
    const { token: phone } = addToken(s.home, 'phone', 'control');
    const { request, reply } = await held();
    const x = await socketAs(phone);
    const cmd = respond(request, { option: 'allow' });
    cmd.agent = 'root-admin'; // a client may claim anything here (AEP-0004 §8: asserted identity)
    cmd.source = 'aep://attacker/agent/root-admin';
    const r = await follow(x, cmd);
    expect(r.kind).toBe('acked');
    const answered = (r as any).outcomes.find((e: any) => e.type === 'attention.answered');
    expect(answered.data.by).toBe('phone');
    expect(JSON.stringify(answered)).not.toContain('root-admin');
    expect(await reply).toContain('"behavior":"allow"');
    const rec = audit().find((a) => a.command.id === cmd.id);
    expect(rec).toMatchObject({
      principal: 'phone',
      outcome: 'routed',
      command: { type: 'control.attention.respond', agent: 'root-admin', subject: request.id },
    });
  });
});

describe('a replayed answer', () => {
  it('byte-identical: the recorded ack again, no second decision; under a fresh id: rejected, already answered; from a reader: refused', async () => {
    const { token: ci } = addToken(s.home, 'ci-bot', 'control');
    const { request, reply } = await held();
    const first = await socketAs(ci);
    const cmd = respond(request, { option: 'allow' });
    const r1 = await follow(first, cmd);
    expect(r1.kind).toBe('acked');
    expect(await reply).toContain('"behavior":"allow"');
    const ack1 = (r1 as any).ack;
    // the attacker replays the captured bytes on another control connection
    const attacker = await socketAs(s.token);
    const r2 = await follow(attacker, JSON.parse(JSON.stringify(cmd)), 300);
    expect(r2.kind).toBe('acked');
    expect((r2 as any).ack.id).toBe(ack1.id); // the recorded ack, byte-identical (AEP-0004 §3)
    expect((r2 as any).outcomes).toEqual([]); // and nothing else: no second decision
    const again = { ...cmd, id: `${cmd.id}-fresh` };
    const r3 = await follow(attacker, again, 300);
    expect(r3.kind).toBe('acked');
    expect((r3 as any).ack).toMatchObject({ type: 'control.rejected', data: { reason: 'invalid' } });
    const { token: reader } = addToken(s.home, 'replay-reader', 'read');
    const r4 = await follow(await socketAs(reader), { ...cmd, id: `${cmd.id}-reader` });
    expect(r4).toMatchObject({ kind: 'refused', code: 'unauthorized' });
    // exactly one answer in the session's history
    const sse = await SseClient.open(
      s.up.url,
      { from: JSON.stringify([{ session: request.session, epoch: request.epoch, seq: 0 }]), live: '0', filter: JSON.stringify({ type: 'attention.answered' }) },
      { authorization: `Bearer ${s.token}` },
    );
    await until('the replay to end', () => sse.ended);
    expect(sse.events.filter((e) => e.subject === request.id)).toHaveLength(1);
  });
});

describe('a revoked token', () => {
  it('is refused at once, and its open SSE stream and WebSocket are closed', async () => {
    const { token } = addToken(s.home, 'tablet', 'control');
    const sse = await SseClient.open(s.up.url, {}, { authorization: `Bearer ${token}` });
    expect(sse.status).toBe(200);
    const ws = await socketAs(token);
    let wsClosed = false;
    const frames: any[] = [];
    ws.on((m) => frames.push(m));
    ws.ws.on('close', () => (wsClosed = true));
    expect(revokeToken(s.home, 'tablet')).toBe(true);
    await until('the SSE stream to end', () => sse.ended, 5000);
    await until('the WebSocket to close', () => wsClosed, 5000);
    expect(frames.some((f) => f.type === 'closing' && /revoked/.test(f.reason))).toBe(true);
    expect(sse.msgs.some((m) => m.comment === 'credential revoked')).toBe(true);
    expect((await raw(s.up.url, { path: '/events', headers: { authorization: `Bearer ${token}` } })).status).toBe(401);
    // other credentials are untouched
    expect((await raw(s.up.url, { path: '/events', headers: { authorization: `Bearer ${s.token}` } })).status).toBe(200);
  });
});
