// Every decision-codec case of every agent, end to end through `hookmap up`:
// the native payload is POSTed to the agent's hook endpoint, a human on the
// relay's WebSocket answers the attention request it raises (or lets it time
// out, or a settling firing dismisses it), and the bytes the agent receives
// must be exactly the case's pinned reply. The in-process codec runner
// (engine/tools/cases/run-decisions.ts) pins the same cases against the hold
// machinery with a fake clock; this test proves the whole path on real sockets.
import { afterAll, describe, expect, it } from 'vitest';
import { listVendors } from '../../engine/core/descriptor/registry.ts';
import { fixtureFiles } from '../../engine/tools/cases/format.ts';
import { isDeliveryCase } from '../../engine/tools/cases/run-deliveries.ts';
import { makeCommand, openSocket, sendCommand, type SocketSession } from '../../engine/runtime/relay/client.ts';
import { until } from '../runtime/daemon/helpers.ts';
import { upStack, watchAll, type UpStack, type Watcher } from '../helpers/up-stack.ts';

interface Stack {
  up: UpStack['up'];
  watcher: Watcher;
  human: SocketSession;
  stream: any[];
  done: () => Promise<void>;
}
const stacks: Stack[] = [];

async function stack(agent: string, config: Record<string, unknown> | undefined, attentionTimeoutMs: number): Promise<Stack> {
  const u = await upStack({ prefix: 'hookmap-decisions-e2e-', hello: true, agents: [{ descriptor: agent, attentionTimeoutMs, config }] });
  const watcher = await watchAll(u.url, u.token);
  const human = await openSocket(u.url, u.token, 'both');
  const s = { up: u.up, watcher, human, stream: watcher.stream, done: u.done };
  stacks.push(s);
  return s;
}

afterAll(async () => {
  for (const s of stacks) {
    s.watcher.close();
    s.human.close();
    await s.done();
  }
});

/** `surface: { gate: true }` (a launch's gate) is what the shims say with `x-hookmap-gate: 1`. */
async function fire(s: Stack, agent: string, hook: string | undefined, input: unknown, surface?: { gate?: boolean }) {
  const r = await fetch(`${s.up.url}/hooks/${agent}${hook ? `/${encodeURIComponent(hook)}` : ''}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(surface?.gate === true ? { 'x-hookmap-gate': '1' } : {}) },
    body: JSON.stringify(input),
  });
  return { status: r.status, exit: Number(r.headers.get('x-hookmap-exit') ?? 0), text: await r.text() };
}

async function respond(s: Stack, request: any, answer: unknown) {
  const cmd = makeCommand('control.attention.respond', request.session, { subject: request.id, data: { answer } });
  cmd.cause = request.id;
  const r = await sendCommand(s.human, cmd, {
    ackWindowMs: 15_000,
    outcomeWindowMs: 15_000,
    isFinal: (e) => e.type === 'attention.resolved' || e.type === 'control.rejected',
  });
  if (r.kind !== 'acked') throw new Error(`command not acked: ${JSON.stringify(r)}`);
  return r.ack;
}

const ANSWERED_TIMEOUT_MS = 30_000;
const TIMEOUT_MS = 400;

for (const agent of listVendors()) {
  // surface command cases (bytes written on a tee) run end to end in test/runtime/surface/tee.test.ts; delivery
  // cases (steering, cancel, policy) in test/e2e/control-verbs.test.ts
  const cases = fixtureFiles(agent)
    .filter((f) => f.kind === 'decisions')
    .flatMap((f) => f.cases.map((c: any) => ({ ...c, file: f.file })))
    .filter((c: any) => !('command' in c) && !isDeliveryCase(c));
  if (cases.length === 0) continue;
  describe(`${agent}: decisions over hookmap up`, () => {
    // a fresh stack per case: descriptors may (rightly) suppress a repeated ask
    const get = (c: any) => stack(agent, c.config, c.answer === 'timeout' ? TIMEOUT_MS : ANSWERED_TIMEOUT_MS);
    for (const c of cases) {
      it(`${c.file} ${c.name}`, async () => {
        const s = await get(c);
        try {
          const seen = new Set(s.stream.filter((e) => e.type === 'attention.requested').map((e) => e.id));
          const pending = fire(s, agent, c.hook, c.input, c.surface);
          const request = await until(`${c.name}: the attention request`, () =>
            s.stream.find((e) => e.type === 'attention.requested' && e.agent === agent && !seen.has(e.id) && (e.data?.respond_via ?? []).includes('control')),
          );
          for (const b of c.before ?? []) {
            const ack = await respond(s, request, b.answer);
            if (b.ack && b.ack !== 'accepted') expect(ack).toMatchObject({ type: 'control.rejected', data: { reason: b.ack.rejected } });
          }
          if (c.answer === 'dismissed') {
            const settled = await fire(s, agent, c.settle?.hook, c.settle?.input);
            expect(settled.status).toBe(200);
          } else if (c.answer !== 'timeout') {
            const ack = await respond(s, request, c.answer);
            if (c.ack && c.ack !== 'accepted') expect(ack).toMatchObject({ type: 'control.rejected', data: { reason: c.ack.rejected } });
            else expect(ack.type).toBe('control.accepted');
          }
          const r = await pending;
          expect(r.status).toBe(200);
          expect(r.text).toBe(c.reply);
          expect(r.exit).toBe(c.exit ?? 0);
        } finally {
          stacks.splice(stacks.indexOf(s), 1);
          s.watcher.close();
          s.human.close();
          await s.done();
        }
      }, 60_000);
    }
  });
}
