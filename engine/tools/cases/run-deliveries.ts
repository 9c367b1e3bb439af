// Delivery cases (`kind: decisions`): what a hook reply carries besides its
// neutral bytes, through the REAL daemon (queue, policy, hold machinery; log
// in a temp folder, an in-memory link for the relay, a fake clock). The
// exact reply bytes are the decision-codec evidence for the verb.
//
//   - name: an instruction rides the next PostToolUse as additionalContext
//     config: { instruct: true }          # optional descriptor config overrides
//     policy: { rules: [...] }            # optional: an operator policy (docs/policy.md)
//     steps: [ { input: {...} }, ... ]    # firings first (awaited)
//     held: { input: {...} }              # optional: a firing that opens a hold (not awaited)
//     waiter: { input: {...} }            # optional: a next-turn waiter (engine/runtime/daemon/next-turn.ts) started before the
//                                         #   commands; its reply (acked when it carries text) is the one checked, verb next-turn
//     commands:                           # optional: commands sent next, each with its ack
//       - { type: x.<agent>.control.instruct, session: s1, data: { text: ... }, ack: accepted }
//       - { ..., ack: { rejected: invalid }, code: text-too-long }   # a nack's code (data.code)
//       - { type: ..., fill: { text: 10001 } }   # data.text = 10001 characters (a cap probe)
//     deliver: { input: {...} }           # optional: the firing whose reply is checked
//     reply: '{"hookSpecificOutput":...}' # EXACT bytes of `deliver`'s reply (else of `held`'s)
//     then: [ { input: {...} }, ... ]     # optional: firings after the checked one (their events count)
//     exit: 0                             # optional (default 0)
//     verb: context                       # optional: the verb the reply must carry (none: neutral)
//     events: [...]                       # optional: every event's type, in order
import { isDeepStrictEqual } from 'node:util';
import { stringify } from 'yaml';
import { AEP_VERSION } from '../../core/aep/schemas.ts';
import type { HookReply } from '../../runtime/daemon/port.ts';
import type { Descriptor } from '../../core/descriptor/types.ts';
import { newId, type AepEvent } from '../../core/map/envelope.ts';
import { compilePolicy, formatPolicyError, type Policy } from '../../runtime/policy/policy.ts';
import { checkReply, FakeTimers, withCaseDaemon, type AckSpec, type DecisionOutcome } from './run-decisions.ts';

type Firing = { hook?: string; input: Record<string, unknown> };

export interface DeliveryCase {
  name: string;
  config?: Record<string, unknown>;
  policy?: unknown;
  steps?: Firing[];
  held?: Firing;
  waiter?: Firing;
  commands?: { type: string; session: string; run?: string; data?: Record<string, unknown>; fill?: Record<string, number>; ack?: AckSpec; code?: string }[];
  deliver?: Firing;
  then?: Firing[];
  reply: string;
  exit?: number;
  verb?: string;
  events?: string[];
}

export function isDeliveryCase(c: unknown): c is DeliveryCase {
  return !!c && typeof c === 'object' && ('deliver' in c || 'held' in c || 'commands' in c || 'waiter' in c);
}

const show = (v: unknown) => JSON.stringify(v);

export interface DeliveryOutcome extends DecisionOutcome {
  /** The verb the checked reply carried (evidence), and the first command sent. */
  delivered?: string;
  command?: string;
}

export async function runDeliveryCase(d: Descriptor, c: DeliveryCase): Promise<DeliveryOutcome> {
  const failures: string[] = [];
  const events: AepEvent[] = [];
  const out: DeliveryOutcome = { name: c.name, failures, events, command: c.commands?.[0]?.type };
  let policy: Policy | undefined;
  if (c.policy !== undefined) {
    const p = compilePolicy(`${c.name} (policy)`, stringify(c.policy));
    if (!p.policy) {
      failures.push(`the case's policy does not load: ${p.errors.map(formatPolicyError).join('; ')}`);
      return out;
    }
    policy = p.policy;
  }
  const timers = new FakeTimers();
  const lines: string[] = [];
  let held = false;
  let heldReply: Promise<HookReply> | undefined;
  return withCaseDaemon(
    'hookmap-deliveries-',
    { descriptor: d, timers, config: c.config, policy: () => policy, onEvent: (ev) => events.push(ev), onHold: () => (held = true), say: (l) => lines.push(l) },
    out,
    async (daemon) => {
      for (const [i, st] of (c.steps ?? []).entries()) {
        const r = await daemon.handle({ hook: st.hook, payload: st.input });
        if (r.error) failures.push(`steps[${i}] answered error ${r.error} (${lines.join(' | ')})`);
      }
      if (c.held) {
        heldReply = daemon.handle({ hook: c.held.hook, payload: c.held.input });
        await daemon.flush();
        if (!held) failures.push(`held: no hold opened (${lines.join(' | ')})`);
      }
      const waiting = c.waiter && daemon.waitNextTurn({ payload: c.waiter.input });
      for (const [i, spec] of (c.commands ?? []).entries()) {
        const data: Record<string, unknown> = { ...(spec.data ?? {}) };
        for (const [k, n] of Object.entries(spec.fill ?? {})) data[k] = 'x'.repeat(n);
        const cmd: AepEvent = {
          aep: AEP_VERSION,
          id: newId(),
          type: spec.type,
          time: new Date().toISOString(),
          source: 'aep://fixtures/agent/hookmap-fixture',
          agent: 'hookmap-fixture',
          session: spec.session,
          ...(spec.run ? { run: spec.run } : {}),
          data,
        };
        await daemon.onCommand(cmd);
        await daemon.flush();
        const ack = events.find((e) => e.cause === cmd.id && (e.type === 'control.accepted' || e.type === 'control.rejected'));
        const got: AckSpec | undefined = ack ? (ack.type === 'control.accepted' ? 'accepted' : { rejected: String((ack.data as any)?.reason) }) : undefined;
        const want = spec.ack ?? 'accepted';
        if (!isDeepStrictEqual(got, want))
          failures.push(`commands[${i}] ${spec.type}: ack expected ${show(want)}, got ${show(got)} ${show(ack?.data)} (${lines.slice(-3).join(' | ')})`);
        if (spec.code !== undefined && (ack?.data as any)?.code !== spec.code)
          failures.push(`commands[${i}] ${spec.type}: nack code expected ${show(spec.code)}, got ${show((ack?.data as any)?.code)}`);
      }
      let r: HookReply | undefined;
      if (c.deliver) r = await daemon.handle({ hook: c.deliver.hook, payload: c.deliver.input });
      let woke = false;
      if (waiting) {
        let got: Awaited<typeof waiting> | undefined;
        void waiting.then((w) => (got = w));
        await daemon.flush();
        await new Promise((res) => setImmediate(res));
        if (!got) timers.fireAll(); // nothing woke it: its bound releases it
        const w = await waiting;
        if (w.ack && !(await daemon.ackNextTurn(w.ack))) failures.push('waiter: its ack was refused');
        woke = !!w.ack;
        r ??= w;
      }
      if (heldReply) {
        if (daemon.pending().length) {
          timers.fireAll(); // free what is still held so the case ends
          await daemon.flush();
        }
        const hr = await heldReply;
        r ??= hr;
      }
      if (!r) {
        failures.push('nothing to check: give `deliver` (or `held`)');
        return;
      }
      for (const [i, st] of (c.then ?? []).entries()) {
        const t = await daemon.handle({ hook: st.hook, payload: st.input });
        if (t.error) failures.push(`then[${i}] answered error ${t.error} (${lines.join(' | ')})`);
      }
      out.reply = r.body;
      out.delivered = woke ? 'next-turn' : r.decided;
      if (r.error) failures.push(`the checked firing answered error ${r.error} (${lines.join(' | ')})`);
      checkReply(c, r, events, failures);
      if (c.verb !== undefined && out.delivered !== c.verb) failures.push(`verb: expected ${c.verb}, the reply carries ${out.delivered ?? 'none'}`);
    },
  );
}
