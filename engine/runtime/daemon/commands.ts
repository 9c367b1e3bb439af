// The AEP-0004 command protocol of one agent's daemon: a routed command in, exactly one ack out (control.accepted, or
// control.rejected with a reason and a coded detail, §3), recorded so a redelivery gets the same ack bytes and never a
// second decision (§2.3, §3). Four kinds of command: an answer to a held request (control.attention.respond, turned into
// bytes by hold-lifecycle.ts), a delivered command (queued per session, carried by the next eligible hook reply:
// instructions.ts, the steering design record), a surface command (bytes written on a live surface connection,
// surface-writers.ts), and hookmap's own control queries (door.ts: answered in the ack).
import { cancelBody, prepareAnswer, withAlways } from './hold-render.ts';
import { nextTurnCommand, type CompiledCommand } from '../../core/descriptor/types.ts';
import { commandApplies, commandBindings, renderCommandWrite } from '../../core/map/decide.ts';
import type { AepEvent } from '../../core/map/envelope.ts';
import { MapError } from '../../core/map/mapper.ts';
import { interpretAnswer } from './answer.ts';
import { judgeAnswer, mayAsk, partial } from './approvals.ts';
import type { DaemonCore } from './core.ts';
import { RESPOND } from './hello.ts';
import { carrierOffNote } from './carrier-off.ts';
import { DOOR_COMMANDS, doorCommand } from './door.ts';
import type { HoldLifecycle } from './hold-lifecycle.ts';
import { AckMemory, type PendingHold } from './holds.ts';
import { chars, droppedEvent, InstructionQueue, type Queued } from './instructions.ts';
import { NextTurn, type CarrierReply } from './next-turn.ts';
import { readPayload, type HookInput } from './options.ts';
import { SurfaceWriters } from './surface-writers.ts';
import { TYPE } from '../../core/kernel/lifecycle.ts';

export class CommandProtocol {
  private readonly acks = new AckMemory();
  /** Accepted delivered commands waiting for a hook reply that can carry them. */
  readonly queue = new InstructionQueue();
  /** Which live surface connection carries each session. */
  readonly writers = new SurfaceWriters();
  /** Commands decided and being written: a redelivery while in flight is dropped (the one ack answers both). */
  private readonly inflight = new Set<string>();
  /** Sessions whose end was seen (bounded): commands to them are refused. */
  private readonly ended = new Set<string>();
  /** The carrier that reaches an idle session, when the descriptor declares one on an accepted command (next-turn.ts). */
  readonly nextTurn?: NextTurn;

  constructor(
    private readonly core: DaemonCore,
    private readonly holds: HoldLifecycle,
    /** Commands this daemon declares in its hello (hello.ts). */
    private readonly accepts: readonly string[],
  ) {
    const spec = nextTurnCommand(core.d);
    if (!spec?.nextTurn) return;
    const enabled = accepts.includes(spec.type) && core.mapper.configValue(spec.nextTurn.optIn) === true;
    const idle = (s: string) => core.mapper.openRun(s) === undefined && !holds.inSession(s).length;
    this.nextTurn = new NextTurn(core, { spec, queue: this.queue, enabled, idle, ended: (s) => this.ended.has(s), known: (s) => core.mapper.knows(s) });
    if (!enabled) this.carrierOff = { spec, idle };
  }

  /** The descriptor's next-turn carrier when its opt-in is off: an instruction for an idle session then waits for the session's next prompt. */
  private readonly carrierOff?: { spec: CompiledCommand; idle: (session: string) => boolean };

  /** A routed command (in the serial queue). `by`: the sender's authenticated name as the relay stamped it, the only name an answer is attributed to. */
  async command(cmd: AepEvent, by: string | undefined): Promise<void> {
    const { core } = this;
    const source = String(cmd.source ?? '');
    const id = String(cmd.id ?? '');
    const recorded = this.acks.get(source, id);
    if (recorded) {
      // AEP-0004 §3: a redelivered command gets its recorded ack, byte-identical; never a second decision
      core.link?.resend(recorded);
      core.say(`command ${id} redelivered: re-sent its recorded ack`);
      return;
    }
    const session = typeof cmd.session === 'string' && cmd.session ? cmd.session : undefined;
    if (!session || !id) return core.say(`command ${cmd.type} without session or id ignored (nothing to ack into)`);
    const surfaceCmd = core.d.commands.get(String(cmd.type));
    if (surfaceCmd?.deliver && this.accepts.includes(surfaceCmd.type)) return this.deliveredCommand(cmd, surfaceCmd, session, source, id);
    if (surfaceCmd && this.accepts.includes(surfaceCmd.type)) return this.surfaceCommand(cmd, surfaceCmd, session, source, id);
    if (DOOR_COMMANDS.includes(cmd.type) && this.accepts.includes(cmd.type)) {
      const off = mayAsk(this.holds.people, this.holds.get(String(cmd.subject)), by); // a person it is not routed to learns nothing of it
      if (off) return this.nack(cmd, session, 'refused', off);
      const r = await doorCommand({ core, hold: (x) => this.holds.get(x), rules: this.holds.rules }, cmd, session, by); // answered in the ack
      return r.ok ? this.accept(cmd, session, source, id, undefined, undefined, r.result) : this.nack(cmd, session, r.reason, r.detail);
    }
    if (cmd.type !== RESPOND || !this.accepts.includes(cmd.type)) {
      const accepted = this.accepts.join(', ') || 'none';
      return this.nack(cmd, session, 'unsupported', `not-accepted: ${cmd.type} is not accepted by the ${core.vendor} daemon (accepts: ${accepted})`);
    }
    return this.answer(cmd, session, source, id, by);
  }

  /** control.attention.respond: the named pending request, in this session, answered in a way its card allows. */
  private async answer(cmd: AepEvent, session: string, source: string, id: string, by: string | undefined): Promise<void> {
    const { core } = this;
    const subject = typeof cmd.subject === 'string' ? cmd.subject : undefined;
    const h = subject ? this.holds.get(subject) : undefined;
    if (!h || h.session !== session) {
      const how = subject ? this.holds.howEnded(subject) : undefined;
      return this.nack(
        cmd,
        session,
        'invalid',
        how
          ? `already-closed: attention request ${subject} was already ${how}`
          : `no-such-request: no pending attention request ${subject ?? '(subject missing)'} in this session`,
      );
    }
    const answer = (cmd.data as Record<string, unknown> | undefined)?.answer;
    const read = interpretAnswer(answer, h.view);
    if (!read.ok) return this.nack(cmd, session, read.reason, read.detail, h.request.run); // stays pending
    const it = withAlways(h, read);
    const judged = judgeAnswer(core, this.holds.people, h, by, it.applied); // people: routed? the second of two? (approvals.ts)
    if (judged.go === 'refuse') return this.nack(cmd, session, judged.reason, judged.detail, h.request.run); // stays pending
    if (judged.go === 'partial') return partial(core, h, judged, (result) => this.accept(cmd, session, source, id, h.request.run, undefined, result));
    let prepared: Awaited<ReturnType<typeof prepareAnswer>>;
    try {
      prepared = await prepareAnswer(this.core, h, it, answer);
    } catch (e) {
      core.say(`decision for ${h.id} could not be built: ${(e as Error).message}`);
      core.publish([core.mapper.diagnostic(new MapError('mapping-error', `decision ${it.decision}: ${(e as Error).message}`, h.hook), session, h.hook)]);
      return this.nack(cmd, session, 'refused', 'decision-failed: the decision could not be built; the request stays pending', h.request.run);
    }
    this.accept(cmd, session, source, id, h.request.run);
    this.holds.answered(h, cmd, it, by, prepared);
  }

  /**
   * Accept (and queue) or refuse a delivered command: steering text within the
   * agent's cap, a cancel of the run that is running. A cancel that finds a
   * held hook able to carry it answers that hook at once (its `cancel` decision).
   */
  private async deliveredCommand(cmd: AepEvent, spec: CompiledCommand, session: string, source: string, id: string): Promise<void> {
    const { core } = this;
    const known = core.mapper.state.has(session);
    const run = core.mapper.openRun(session);
    if (this.ended.has(session)) return this.nack(cmd, session, 'invalid', `session-ended: session ${session} has ended; nothing more reaches it`);
    if (!known) return this.nack(cmd, session, 'invalid', `unknown-session: this ${core.vendor} daemon has seen no firing of session ${session}`);
    const data = (cmd.data ?? {}) as Record<string, unknown>;
    if (spec.when) {
      let ok: unknown;
      try {
        ok = await commandApplies(spec, cmd, commandBindings(core.d, cmd, session, run, core.mapper.effectiveConfig));
      } catch (e) {
        core.say(`${cmd.type} when-condition failed: ${(e as Error).message}`);
      }
      if (!ok) return this.nack(cmd, session, 'refused', `not-applicable: ${spec.refuse ?? `${cmd.type} does not apply to session ${session} now`}`, run);
    }
    const q: Queued = { id, source, spec, at: core.now() };
    if (spec.deliver === 'context') {
      const text = data.text;
      if (typeof text !== 'string' || text.trim() === '') return this.nack(cmd, session, 'invalid', 'text-required: data.text must be a non-empty string', run);
      const n = chars(text);
      if (spec.maxChars !== undefined && n > spec.maxChars)
        return this.nack(cmd, session, 'invalid', `text-too-long: the instruction is ${n} characters; ${core.vendor} takes at most ${spec.maxChars}`, run);
      if (this.queue.count(session, spec.type) >= spec.queueCap)
        return this.nack(cmd, session, 'invalid', `queue-full: ${spec.queueCap} instructions already wait for session ${session}`, run);
      q.text = text;
      const off = this.carrierOff?.spec.type === spec.type && this.carrierOff.idle(session) ? this.carrierOff.spec : undefined;
      this.accept(cmd, session, source, id, run, off && carrierOffNote(this.core, off, session));
      this.queue.add(session, q);
      core.say(`${cmd.type} ${id} queued for session ${session} (${n} characters)`);
      this.nextTurn?.poke(session); // an idle session with a waiter: it wakes now
      return;
    }
    // deliver: cancel
    const target = typeof cmd.run === 'string' && cmd.run ? cmd.run : undefined;
    if (target !== undefined && target !== run) {
      const st = core.mapper.state.session(session);
      return this.nack(
        cmd,
        session,
        'invalid',
        st.closedRuns?.has(target)
          ? `run-ended: run ${target} of session ${session} has already ended`
          : `unknown-run: run ${target} is not running in session ${session}${run ? ` (running: ${run})` : ''}`,
        run,
      );
    }
    if (run === undefined) return this.nack(cmd, session, 'refused', `no-run: nothing is running in session ${session}`);
    if (this.queue.list(session).some((x) => x.spec.deliver === 'cancel' && x.run === run))
      return this.nack(cmd, session, 'refused', `cancel-queued: a cancel of run ${run} already waits for the agent's next reply`, run);
    q.run = run;
    q.reason = typeof data.reason === 'string' && data.reason.trim() ? data.reason : undefined;
    const held = this.holds.inSession(session).find((h) => h.rule.decisions.has('cancel') && (h.request.run === undefined || h.request.run === run));
    if (held) return this.cancelHeld(cmd, held, q, session, run);
    this.accept(cmd, session, source, id, run);
    this.queue.add(session, q);
    core.say(`control.cancel ${id} queued for run ${run} (session ${session}): the agent's next eligible reply stops it`);
  }

  /** A held hook that can carry the cancel answers it now: the request is dismissed, the run cancelled. */
  private async cancelHeld(cmd: AepEvent, h: PendingHold, q: Queued, session: string, run: string): Promise<void> {
    const reason = q.reason ?? 'cancelled over hookmap';
    let body: string;
    try {
      body = await cancelBody(this.core, h, reason);
    } catch (e) {
      this.core.say(`cancel for ${h.id} could not be built: ${(e as Error).message}`);
      return this.nack(cmd, session, 'refused', 'decision-failed: the cancel reply could not be built; the request stays pending', run);
    }
    this.accept(cmd, session, q.source, q.id, run);
    this.holds.cancelled(h, q.id, reason, run, body);
  }

  /** A command answered by writing bytes on the live surface connection that carries the session. */
  private async surfaceCommand(cmd: AepEvent, spec: CompiledCommand, session: string, source: string, id: string): Promise<void> {
    const { core } = this;
    const key = `${source}\u0000${id}`;
    if (this.inflight.has(key)) return; // the forthcoming ack answers this delivery too
    const st = core.mapper.state.has(session) ? core.mapper.state.session(session) : undefined;
    const run = st?.runId;
    const b = commandBindings(core.d, cmd, session, run, core.mapper.effectiveConfig);
    let bytes: string;
    try {
      if (spec.when && !(await commandApplies(spec, cmd, b)))
        return this.nack(cmd, session, 'refused', `not-applicable: ${spec.refuse ?? `${cmd.type} does not apply to session ${session} now`}`, run);
      const v = await renderCommandWrite(spec, cmd, b);
      if (v === undefined) return this.nack(cmd, session, 'refused', `decision-failed: the ${cmd.type} template produced no bytes`, run);
      bytes = v;
    } catch (e) {
      core.say(`${cmd.type} for session ${session} could not be built: ${(e as Error).message}`);
      return this.nack(cmd, session, 'refused', `decision-failed: the ${cmd.type} bytes could not be built`, run);
    }
    const writer = this.writers.get(session);
    if (!writer)
      return this.nack(
        cmd,
        session,
        'refused',
        `no-surface: no live ${core.d.surface.kind} connection carries session ${session} (is the agent running behind hookmap?)`,
        run,
      );
    this.inflight.add(key);
    // the write happens outside the serial queue: firings keep flowing while the surface confirms
    void writer
      .write(id, bytes)
      .then(
        (r) => r,
        (e: Error) => ({ ok: false, why: e.message }),
      )
      .then((r) =>
        core.serial.run(() => {
          this.inflight.delete(key);
          if (!r.ok) return this.nack(cmd, session, 'busy', `write-failed: the bytes could not be written: ${r.why ?? 'unknown reason'}`, run);
          this.accept(cmd, session, source, id, run);
          core.say(`${cmd.type} ${id} written on ${writer.id} for session ${session}`);
        }),
      );
  }

  private accept(cmd: AepEvent, session: string, source: string, id: string, run?: string, note?: string, result?: Record<string, unknown>): void {
    const [rec] = this.core.publish([this.core.events.accepted(session, cmd, run, note, result)]);
    this.acks.record(source, id, rec.line);
  }

  private nack(cmd: AepEvent, session: string, reason: string, detail: string, run?: string): void {
    const [rec] = this.core.publish([this.core.events.rejected(session, cmd, reason, detail, run)]);
    this.acks.record(String(cmd.source ?? ''), String(cmd.id), rec.line);
    this.core.say(`command ${cmd.id} (${cmd.type}) rejected [${reason}]: ${detail}`);
  }

  /** A firing's events: a session.ended closes the session to commands; any other event means it lives (again). */
  noteEnded(session: string, events: AepEvent[]): void {
    if (events.some((e) => e.type === TYPE.sessionEnded)) {
      this.ended.delete(session);
      this.ended.add(session);
      if (this.ended.size > 4_096) this.ended.delete(this.ended.values().next().value as string);
      this.nextTurn?.release(session, 'session-ended');
    } else if (events.length) this.ended.delete(session); // a resumed session lives again
    if (!this.ended.has(session)) this.nextTurn?.poke(session); // the turn may have ended: a waiting instruction wakes it
  }

  /** A waiter's hook payload, or undefined when it is none. */
  payloadOf(inp: HookInput): unknown {
    try {
      return readPayload(inp, { payload: inp.payload });
    } catch {
      return undefined;
    }
  }

  /** A next-turn waiter of `session` (serial): resolves with the text that wakes it, or neutral bytes. */
  waitNextTurn(session: string | undefined, signal?: AbortSignal, payload?: unknown): Promise<CarrierReply> {
    return this.nextTurn && session && !this.ended.has(session) ? this.nextTurn.wait(session, signal, payload) : Promise.resolve(this.core.reply('', 0));
  }

  hasEnded = (session: string): boolean => this.ended.has(session);

  /** A stopping daemon: what was queued never reaches the agent now, audited, never silent. */
  dropQueued(): void {
    const { core } = this;
    this.nextTurn?.releaseAll();
    for (const [session, items] of this.queue.all()) {
      for (const q of items) {
        try {
          const a = droppedEvent(core.vendor, q, 'daemon-stopping');
          core.publish([core.events.make({ type: a.type, session, cause: a.cause, data: a.data, gates: a.gates })]);
        } catch (e) {
          core.say(`could not log the drop of ${q.id}: ${(e as Error).message}`);
        }
      }
      this.queue.remove(session, items);
    }
  }
}
