// The next-turn carrier (engine/runtime/daemon/next-turn.ts): steering that reaches
// an idle session through a background waiter (Claude Code's asyncRewake
// Stop handler). What is pinned: the idle-or-running choice of carrier,
// delivered only once the bytes went out, never twice (also when a turn
// starts or ends while an instruction is in flight), the opt-in, a killed
// waiter that leaves the instruction queued, a session end that releases the
// waiter and drops what is queued, the bound, one waiter per session.
import { afterEach, describe, expect, it } from 'vitest';
import { Daemon, type Timers } from '../../../engine/runtime/daemon/daemon.ts';
import type { CarrierReply } from '../../../engine/runtime/daemon/next-turn.ts';
import { loadVendor } from '../../../engine/core/descriptor/registry.ts';
import type { AepEvent } from '../../../engine/core/map/envelope.ts';
import { validateStream } from '../../../engine/core/validate/index.ts';
import { MemoryLink, tempDir, instructCommand } from './helpers.ts';

const d = loadVendor('claude-code');
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** Timers a test fires by hand. */
function manualTimers() {
  const pending = new Map<number, () => void>();
  let n = 0;
  const timers: Timers = {
    set: (fn) => {
      pending.set(++n, fn);
      return n;
    },
    clear: (h) => void pending.delete(h as number),
  };
  return { timers, fireAll: () => [...pending.entries()].forEach(([k, fn]) => (pending.delete(k), fn())) };
}

function open(config: Record<string, unknown> = { instruct: true, next_turn: true }, timers?: Timers) {
  const t = tempDir();
  const events: AepEvent[] = [];
  const daemon = Daemon.open({ descriptor: d, logDir: t.dir, config, timers, onEvent: (e) => events.push(e), say: () => {} });
  daemon.attach(new MemoryLink(), true);
  cleanups.push(t.done, () => daemon.close());
  return { daemon, events };
}

const payload = (hook: string, extra: Record<string, unknown> = {}, session = 's1') => ({
  hook_event_name: hook,
  session_id: session,
  transcript_path: '/tmp/t.jsonl',
  cwd: '/w',
  permission_mode: 'default',
  ...extra,
});
const body = (hook: string, session = 's1') => Buffer.from(JSON.stringify(payload(hook, { stop_hook_active: false }, session)));
const instruct = (text: string, session = 's1'): AepEvent => instructCommand(text, session);
const of = (events: AepEvent[], type: string) => events.filter((e) => e.type === `x.claude-code.instruction.${type}`);
const pre = (id = 't1') => payload('PreToolUse', { tool_name: 'Bash', tool_input: { command: 'ls' }, tool_use_id: id });
/** Whether the promise has settled (after the daemon's queue drained). */
async function settled(daemon: Daemon, p: Promise<unknown>): Promise<boolean> {
  let done = false;
  void p.then(() => (done = true));
  await daemon.flush();
  await new Promise((r) => setImmediate(r));
  return done;
}

/** A session whose turn has finished: idle at its prompt. */
async function idleSession(daemon: Daemon, session = 's1') {
  await daemon.handle({ payload: payload('SessionStart', { source: 'startup' }, session) });
  await daemon.handle({ payload: payload('UserPromptSubmit', { prompt: 'go' }, session) });
  await daemon.handle({ payload: payload('Stop', { stop_hook_active: false }, session) });
}

describe('the next-turn carrier', () => {
  it('an idle session: the waiter gets the text with exit 2; delivered (carrier next-turn) only once the bytes went out', async () => {
    const { daemon, events } = open();
    await idleSession(daemon);
    const waiter = daemon.waitNextTurn({ body: body('Stop') });
    expect(await settled(daemon, waiter)).toBe(false);
    const c = instruct('Now write the changelog (next turn)');
    await daemon.onCommand(c);
    const r: CarrierReply = await waiter;
    expect([r.body, r.exit]).toEqual(['Now write the changelog (next turn)', 2]);
    expect(of(events, 'delivered')).toEqual([]); // not yet: the waiter has not acknowledged it
    expect(await daemon.ackNextTurn(r.ack!)).toBe(true);
    expect(of(events, 'delivered').map((e) => [e.cause, e.data?.carrier])).toEqual([[c.id, 'next-turn']]);
    expect(JSON.stringify(events)).not.toContain('changelog'); // the text stays off the metadata stream
    expect(validateStream(events)).toEqual([]);
  });

  it("the woken turn is a run: its UserPromptSubmit opens it with trigger control, caused by the instruction; a later prompt is the user's", async () => {
    const { daemon, events } = open();
    await idleSession(daemon);
    const waiter = daemon.waitNextTurn({ body: body('Stop') });
    const c = instruct('now the migration tests');
    await daemon.onCommand(c);
    const r = await waiter;
    const before = events.length;
    expect(await daemon.ackNextTurn(r.ack!)).toBe(true);
    expect(events.slice(before).map((e) => e.type)).toEqual(['x.claude-code.instruction.delivered']); // the wake hook emits nothing: it notes
    await daemon.handle({ payload: payload('UserPromptSubmit', { prompt: 'Stop hook feedback' }) });
    const started = events.slice(before).filter((e) => e.type === 'run.started');
    expect(started.map((e) => [e.cause, e.data?.trigger])).toEqual([[c.id, 'control']]);
    // a second instruction now rides the woken turn's hook replies: the session is no longer idle
    await daemon.onCommand(instruct('and the linter'));
    const next = daemon.waitNextTurn({ body: body('Stop') });
    expect(await settled(daemon, next)).toBe(false);
    const reply = await daemon.handle({ payload: pre() });
    expect(JSON.parse(reply.body).hookSpecificOutput.additionalContext).toBe('and the linter');
    await daemon.handle({ payload: payload('Stop', { stop_hook_active: false }) });
    await daemon.handle({ payload: payload('UserPromptSubmit', { prompt: 'typed by the user' }) });
    expect(events.filter((e) => e.type === 'run.started').map((e) => e.data?.trigger)).toEqual(['user', 'control', 'user']); // consumed once
    const run = started[0].run;
    expect(events.filter((e) => e.type === 'tool.requested').map((e) => e.run)).toEqual([run]);
    expect(events.filter((e) => e.type === 'run.finished').map((e) => [e.run, e.cause])[1]).toEqual([run, started[0].id]);
    expect(validateStream(events)).toEqual([]);
  });

  it('an ack refused (twice, or unknown) wakes no run', async () => {
    const { daemon, events } = open();
    await idleSession(daemon);
    const waiter = daemon.waitNextTurn({ body: body('Stop') });
    await daemon.onCommand(instruct('once'));
    const r = await waiter;
    expect(await daemon.ackNextTurn(r.ack!)).toBe(true);
    expect(await daemon.ackNextTurn(r.ack!)).toBe(false);
    expect(await daemon.ackNextTurn('0'.repeat(32))).toBe(false);
    await daemon.handle({ payload: payload('UserPromptSubmit', { prompt: 'Stop hook feedback' }) });
    await daemon.handle({ payload: payload('Stop', { stop_hook_active: false }) });
    await daemon.handle({ payload: payload('UserPromptSubmit', { prompt: 'typed' }) });
    expect(events.filter((e) => e.type === 'run.started').map((e) => e.data?.trigger)).toEqual(['user', 'control', 'user']); // woken once
  });

  it('a nack (the waiter could not hand the text over) puts it back at the head of the queue at once: the next waiter takes it', async () => {
    const { daemon, events } = open();
    await idleSession(daemon);
    await daemon.onCommand(instruct('first'));
    const r1 = await daemon.waitNextTurn({ body: body('Stop') });
    expect(r1.body).toBe('first');
    expect(await daemon.ackNextTurn(r1.ack!, false)).toBe(true);
    expect(await daemon.ackNextTurn(r1.ack!, false)).toBe(false); // once per token
    expect(await daemon.ackNextTurn(r1.ack!)).toBe(false); // a nacked token can no longer deliver
    const r2 = await daemon.waitNextTurn({ body: body('Stop') }); // at once: not after the 15 s ack window (no timer fired)
    expect(r2.body).toBe('first');
    expect(await daemon.ackNextTurn(r2.ack!)).toBe(true);
    expect(of(events, 'delivered')).toHaveLength(1);
  });

  it('a waiter that finds instructions already queued in an idle session takes them at once', async () => {
    const { daemon } = open();
    await idleSession(daemon);
    await daemon.onCommand(instruct('one'));
    await daemon.onCommand(instruct('two'));
    const r = await daemon.waitNextTurn({ body: body('Stop') });
    expect([r.body, r.exit]).toEqual(['one\n\ntwo', 2]);
  });

  it('while a turn runs the instruction rides the next hook reply (carrier hook-reply), never the waiter', async () => {
    const { daemon, events } = open();
    await idleSession(daemon);
    const waiter = daemon.waitNextTurn({ body: body('Stop') });
    await daemon.handle({ payload: payload('UserPromptSubmit', { prompt: 'again' }) });
    const c = instruct('mid-turn');
    await daemon.onCommand(c);
    expect(await settled(daemon, waiter)).toBe(false);
    const r = await daemon.handle({ payload: pre() });
    expect(JSON.parse(r.body).hookSpecificOutput.additionalContext).toBe('mid-turn');
    await daemon.handle({ payload: payload('Stop', { stop_hook_active: false }) });
    expect(await settled(daemon, waiter)).toBe(false); // nothing left for it: it keeps waiting, no second turn
    expect(of(events, 'delivered').map((e) => e.data?.carrier)).toEqual(['hook-reply']);
  });

  it('race: the turn ends with the instruction queued; its Stop reply carries it and the waiter arriving with that Stop does not', async () => {
    const { daemon, events } = open();
    await daemon.handle({ payload: payload('UserPromptSubmit', { prompt: 'go' }) });
    const early = daemon.waitNextTurn({ body: body('Stop') }); // the background handler of the same Stop, first at the daemon
    await daemon.onCommand(instruct('before you stop'));
    const stop = await daemon.handle({ payload: payload('Stop', { stop_hook_active: false }) });
    expect(JSON.parse(stop.body).hookSpecificOutput.additionalContext).toBe('before you stop');
    const late = daemon.waitNextTurn({ body: body('Stop') }); // and a second waiter after it (supersedes the first)
    expect((await early).exit).toBe(0);
    expect(await settled(daemon, late)).toBe(false);
    expect(of(events, 'delivered')).toHaveLength(1);
  });

  it('race: a turn starts while the instruction is in flight to the waiter; its hook replies do not carry it again', async () => {
    const { daemon, events } = open();
    await idleSession(daemon);
    const waiter = daemon.waitNextTurn({ body: body('Stop') });
    await daemon.onCommand(instruct('exactly once'));
    const r = await waiter; // taken, not yet written
    const ups = await daemon.handle({ payload: payload('UserPromptSubmit', { prompt: 'typed meanwhile' }) });
    expect(ups.body).not.toContain('exactly once');
    expect((await daemon.handle({ payload: pre() })).body).not.toContain('exactly once');
    expect(await daemon.ackNextTurn(r.ack!)).toBe(true);
    expect(await daemon.ackNextTurn(r.ack!)).toBe(false); // a second ack is refused: the waiter wakes nothing
    expect(await daemon.ackNextTurn('0'.repeat(32))).toBe(false);
    expect(of(events, 'delivered')).toHaveLength(1);
    expect((await daemon.handle({ payload: pre('t2') })).body).not.toContain('exactly once');
  });

  it('a waiter killed before its bytes went out: the instruction stays queued, audited by nothing false, and the next waiter gets it', async () => {
    const { daemon, events } = open();
    await idleSession(daemon);
    const ac = new AbortController();
    const gone = daemon.waitNextTurn({ body: body('Stop'), signal: ac.signal });
    ac.abort(); // killed while waiting
    expect((await gone).exit).toBe(0);
    const c = instruct('survives the crash');
    await daemon.onCommand(c);
    const second = daemon.waitNextTurn({ body: body('Stop') });
    const r = await second;
    r.sent!(false); // crashed between taking and writing
    await daemon.flush();
    expect(of(events, 'delivered')).toEqual([]);
    const third = await daemon.waitNextTurn({ body: body('Stop') });
    expect(third.body).toBe('survives the crash');
    expect(await daemon.ackNextTurn(third.ack!)).toBe(true);
    expect(await daemon.ackNextTurn(r.ack!)).toBe(false); // the crashed one, back from the dead: refused
    expect(of(events, 'delivered').map((e) => e.cause)).toEqual([c.id]);
  });

  it('a session end releases the waiter and drops what is queued (session-ended); one in flight then lost is dropped too', async () => {
    const { daemon, events } = open();
    await idleSession(daemon);
    const waiter = daemon.waitNextTurn({ body: body('Stop') });
    await daemon.onCommand(instruct('in flight'));
    const taken = await waiter;
    await daemon.handle({ payload: payload('UserPromptSubmit', { prompt: 'again' }) }); // busy: the next one queues
    const queued = instruct('still queued');
    await daemon.onCommand(queued);
    const second = daemon.waitNextTurn({ body: body('Stop') });
    await daemon.handle({ payload: payload('SessionEnd', { reason: 'exit' }) });
    expect((await second).exit).toBe(0);
    taken.sent!(false);
    await daemon.flush();
    expect(of(events, 'dropped').map((e) => e.data?.reason)).toEqual(['session-ended', 'session-ended']);
    expect((await daemon.waitNextTurn({ body: body('Stop') })).exit).toBe(0); // an ended session gets no waiter
    expect(validateStream(events)).toEqual([]);
  });

  it('an orphaned waiter that read the text but never acked (its shim killed): back in the queue after the ack window, its late ack refused', async () => {
    const mt = manualTimers();
    const { daemon, events } = open(undefined, mt.timers);
    await idleSession(daemon);
    const c = instruct('nobody printed me');
    await daemon.onCommand(c);
    const orphan = await daemon.waitNextTurn({ body: body('Stop') });
    expect(orphan.body).toBe('nobody printed me');
    mt.fireAll(); // the ack window passes
    await daemon.flush();
    expect(await daemon.ackNextTurn(orphan.ack!)).toBe(false);
    expect(of(events, 'delivered')).toEqual([]);
    const r = await daemon.handle({ payload: payload('UserPromptSubmit', { prompt: 'next' }) });
    expect(JSON.parse(r.body).hookSpecificOutput.additionalContext).toBe('nobody printed me');
    expect(of(events, 'delivered').map((e) => [e.cause, e.data?.carrier])).toEqual([[c.id, 'hook-reply']]);
  });

  it('bounded: the waiter is released (neutral) at wait_ms; a newer waiter releases the older', async () => {
    const mt = manualTimers();
    const { daemon } = open(undefined, mt.timers);
    await idleSession(daemon);
    const first = daemon.waitNextTurn({ body: body('Stop') });
    const second = daemon.waitNextTurn({ body: body('Stop') });
    expect(await first).toMatchObject({ body: '', exit: 0 });
    expect(await settled(daemon, second)).toBe(false);
    mt.fireAll();
    expect(await second).toMatchObject({ body: '', exit: 0 });
  });

  it('off by default: without next_turn the waiter returns at once and the instruction waits for a hook reply', async () => {
    const { daemon } = open({ instruct: true });
    await idleSession(daemon);
    await daemon.onCommand(instruct('later'));
    expect(await daemon.waitNextTurn({ body: body('Stop') })).toMatchObject({ body: '', exit: 0 });
    const r = await daemon.handle({ payload: payload('UserPromptSubmit', { prompt: 'next' }) });
    expect(JSON.parse(r.body).hookSpecificOutput.additionalContext).toBe('later');
  });

  it('next_turn without instruct carries nothing (the command itself is refused)', async () => {
    const { daemon, events } = open({ next_turn: true });
    await idleSession(daemon);
    const c = instruct('refused');
    await daemon.onCommand(c);
    expect(events.find((e) => e.cause === c.id)?.type).toBe('control.rejected');
    expect((await daemon.waitNextTurn({ body: body('Stop') })).exit).toBe(0);
  });

  it('hostile waiter bodies (not JSON, no session, another session) wake nothing', async () => {
    const { daemon } = open();
    await idleSession(daemon);
    await daemon.onCommand(instruct('for s1 only'));
    expect((await daemon.waitNextTurn({ body: Buffer.from('not json') })).exit).toBe(0);
    expect((await daemon.waitNextTurn({ body: Buffer.from('{"hook_event_name":"Stop"}') })).exit).toBe(0);
    expect((await daemon.waitNextTurn({ body: Buffer.from('[1,2]') })).exit).toBe(0);
    const other = daemon.waitNextTurn({ body: body('Stop', 's2') });
    expect(await settled(daemon, other)).toBe(false);
    expect((await daemon.waitNextTurn({ body: body('Stop') })).body).toBe('for s1 only');
  });

  it('joined instructions stay within the 10,000-character cap: the rest waits for the next turn', async () => {
    const { daemon } = open();
    await idleSession(daemon);
    await daemon.onCommand(instruct('a'.repeat(6000)));
    await daemon.onCommand(instruct('b'.repeat(6000)));
    const r = await daemon.waitNextTurn({ body: body('Stop') });
    expect(r.body).toBe('a'.repeat(6000));
  });
});
