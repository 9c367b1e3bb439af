// One agent's daemon: a hook firing in, AEP events out (log first, then the
// relay), the reply bytes back; held hooks wait for a routed
// control.attention.respond, a timeout, or a settling hook. Everything the
// agent-specific part needs comes from the descriptor: no agent names here.
//
// The agent is never broken by us: every path out of handle() is a reply
// (the descriptor's neutral bytes when nothing was decided or something
// failed), and a firing that cannot be mapped becomes an
// x.<vendor>.error.mapping_failed diagnostic event, never a crash.
import { hostname } from 'node:os';
import { join } from 'node:path';
import { Redactor } from '../capture/redact.ts';
import type { FormFieldSpec } from '../capture/gate.ts';
import type { CompiledCommand, CompiledStream, Descriptor } from '../descriptor/types.ts';
import { evaluate } from '../expr/compile.ts';
import { sourceHost, type AepEvent } from '../map/envelope.ts';
import { boundId } from '../map/bounds.ts';
import { MapError, Mapper, type MapErrorCode, type MapResult } from '../map/mapper.ts';
import { EngineState } from '../map/state.ts';
import { captureRank } from '../aep/schemas.ts';
import { interpretAnswer, type Interpretation, type OptionView } from './answer.ts';
import { bumpEpoch } from './epoch.ts';
import { AckMemory, HoldTable, type HookReply, type PendingHold, type Terminal } from './holds.ts';
import { DROPPED_EVENT_TYPE, invalidity, LifecycleEvents } from './lifecycle.ts';
import { acquireLock } from './lock.ts';
import { agentLogDir } from './paths.ts';
import { RelayLink, type EventLink } from './relay-link.ts';
import { tlsClientOptions, type TlsFiles } from '../auth/tls.ts';
import { DurableSeq } from './seq.ts';
import { Serial } from './serial.ts';
import { wellFormedDeep } from '../io/well-formed.ts';
import { SessionLog, type AppendRecord, type Durability } from './session-log.ts';
import { OpenHoldFile } from './open-holds.ts';
import { chars, droppedEvent, InstructionQueue, makeDecider, type Queued } from './instructions.ts';
import type { Decider } from '../map/decide.ts';
import type { Policy } from '../policy/policy.ts';
import { ASK_HOOK, AskError, askBindings, askResult, askRule, DEFAULT_ASK_TIMEOUT_MS, optionIds, SessionHints, UNANSWERED, type AskRequest, type EmitRequest } from './asks.ts';

export type { HookReply, PendingHold } from './holds.ts';

export const DEFAULT_ATTENTION_TIMEOUT_MS = 55_000;
export const RESPOND = 'control.attention.respond';

export interface Timers {
  set(fn: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

export interface DaemonOptions {
  descriptor: Descriptor;
  /** Per-agent log folder (default $HOOKMAP_HOME/logs/<agent>). */
  logDir?: string;
  host?: string;
  /** Descriptor config overrides. */
  config?: Record<string, unknown>;
  /** Hold timeout for every hold of this agent (config/env); default: the hold's timeout_ms, else 55 s. */
  attentionTimeoutMs?: number;
  /** What an acknowledged event survives: `none` (default) a hookmap crash, `fsync` also power loss (session-log.ts). */
  durability?: Durability;
  /** Daemon log lines. */
  say?: (line: string) => void;
  timers?: Timers;
  now?: () => number;
  /** Every event, after it is logged (tests, the fixture runner). */
  onEvent?: (ev: AepEvent) => void;
  /** A hold opened (tests, the fixture runner). */
  onHold?: (hold: PendingHold) => void;
  /** The operator's policy in force (hookmap up --policy; swappable while running). */
  policy?: () => Policy | undefined;
}

export interface HookInput {
  /** Hook name from the URL path / argv; absent: read from the payload. */
  hook?: string;
  /** The raw body (parsed here, so malformed JSON is a diagnostic, not a 400). */
  body?: string | Buffer;
  /** An already-parsed payload (in-process callers). */
  payload?: unknown;
  /** The body exceeded the size limit (bytes seen). */
  oversize?: number;
  /** The request path was malformed (why); the firing becomes a diagnostic and neutral bytes. */
  badPath?: string;
  /** Aborted when the agent hangs up on a held hook. */
  signal?: AbortSignal;
  /** What the surface knows beside the payload (a tee connection, a stream id): `$surface` in expressions. */
  surface?: Record<string, unknown>;
  /** The surface this firing came over, when it can carry bytes back (a tee): commands for its sessions are written there. */
  writer?: SurfaceWriter;
}

/** A live surface connection that can write a command's bytes to the agent (engine/surface/tee-endpoint.ts). */
export interface SurfaceWriter {
  readonly id: string;
  write(commandId: string, bytes: string): Promise<{ ok: boolean; why?: string }>;
}

const realTimers: Timers = { set: (fn, ms) => setTimeout(fn, ms), clear: (h) => clearTimeout(h as NodeJS.Timeout) };

export function envAttentionTimeout(env: NodeJS.ProcessEnv = process.env): number | undefined {
  const v = env.HOOKMAP_ATTENTION_TIMEOUT_MS;
  if (v === undefined || v === '') return undefined;
  const n = Number(v);
  if (!Number.isSafeInteger(n) || n < 1) throw new Error(`HOOKMAP_ATTENTION_TIMEOUT_MS must be a positive integer (got ${JSON.stringify(v)})`);
  return n;
}

export class Daemon {
  readonly vendor: string;
  readonly epoch: number;
  readonly logDir: string;
  readonly log: SessionLog;
  readonly mapper: Mapper;
  /** Commands this daemon declares in its hello (AEP-0004 §4.2: authoritative). */
  readonly accepts: string[];
  private readonly d: Descriptor;
  private readonly host: string;
  private readonly events: LifecycleEvents;
  private readonly redactor: Redactor;
  private readonly holds = new HoldTable();
  private openHolds!: OpenHoldFile;
  private readonly acks = new AckMemory();
  private readonly serial = new Serial();
  private readonly timers: Timers;
  private readonly now: () => number;
  private readonly say: (line: string) => void;
  private readonly release: () => void;
  private readonly config: Record<string, unknown>;
  private link?: EventLink;
  private control = false;
  private closed = false;
  /** session -> the surface connection that last carried it (bounded, least recently used first). */
  private readonly writers = new Map<string, SurfaceWriter>();
  /** Commands decided and being written: a redelivery while in flight is dropped (the one ack answers both). */
  private readonly inflight = new Set<string>();
  /** Which session a model-fired tool call belongs to (hookmap mcp). */
  private readonly hints = new SessionHints();
  /** Accepted delivered commands waiting for a hook reply that can carry them. */
  private readonly queue = new InstructionQueue();
  private readonly decider: Decider;
  /** Sessions whose end was seen (bounded): commands to them are refused. */
  private readonly ended = new Set<string>();

  /** Take the agent's log folder (lock), bump its epoch, open its logs. */
  static open(opts: DaemonOptions): Daemon {
    return new Daemon(opts);
  }

  private constructor(private readonly opts: DaemonOptions) {
    const d = (this.d = opts.descriptor);
    this.vendor = d.vendor;
    this.logDir = opts.logDir ?? agentLogDir(d.vendor);
    this.say = opts.say ?? (() => {});
    this.timers = opts.timers ?? realTimers;
    this.now = opts.now ?? Date.now;
    this.host = opts.host ?? sourceHost();
    this.log = new SessionLog(this.logDir, { durability: opts.durability });
    this.release = acquireLock(this.logDir, d.vendor);
    try {
      this.epoch = bumpEpoch(this.logDir);
    } catch (e) {
      this.release();
      throw e;
    }
    this.config = { ...d.config, ...(opts.config ?? {}) };
    this.redactor = new Redactor({ secretNames: d.capture.secretNames });
    this.mapper = new Mapper(d, { state: new EngineState(new DurableSeq(this.epoch, this.log), { history: (s) => this.log.sessionHistory(s) }), host: this.host, redactor: this.redactor, config: opts.config, now: this.now });
    this.events = new LifecycleEvents(this.mapper, this.host, this.redactor);
    this.openHolds = new OpenHoldFile(this.logDir);
    this.decider = makeDecider({ vendor: d.vendor, queue: this.queue, policy: opts.policy ?? (() => undefined), now: this.now, say: this.say });
    // requests a killed predecessor was holding get their terminal now
    for (const request of this.openHolds.takeOrphans()) {
      const ended = this.events.resolved(request, request.id, 'dismissed', Math.max(0, this.now() - Date.parse(request.time)));
      this.publish([ended]);
      this.say(`hold ${request.id} (session ${request.session}) was open when the previous daemon died: closed as dismissed`);
    }
    const holds = [...d.hooks.values()].some((h) => h.holds.length > 0);
    this.accepts = holds && d.posture !== 'observe-only' ? [RESPOND] : [];
    // surface commands: declared only while their opt-in is on (declaring what always refuses is noise)
    for (const c of d.commands.values()) if (d.posture !== 'observe-only' && (!c.optIn || this.mapper.configValue(c.optIn) === true)) this.accepts.push(c.type);
    const t = opts.attentionTimeoutMs;
    const hookTimeout = d.surface.hookTimeoutMs;
    if (t !== undefined && hookTimeout !== undefined && t >= hookTimeout) {
      this.say(`warning: attention timeout ${t} ms is not below the agent's own hook timeout (${hookTimeout} ms): the agent may kill the hook before the hold fails open`);
    }
  }

  /** The hello capabilities of this daemon's relay connection (AEP-0003 §4). */
  capabilities(): Record<string, unknown> {
    const cats = new Set<string>();
    for (const h of this.d.hooks.values()) for (const e of h.emit) if (e.type) cats.add(e.type.startsWith('x.') ? 'x' : e.type.split('.')[0]);
    cats.add('control');
    return {
      emits: [...cats].filter((c) => c !== 'x').sort(),
      capture: ['none', 'metadata', 'redacted', 'full'].filter((l) => captureRank(l) <= captureRank(this.d.capture.ceiling) || Object.values(this.d.capture.overrides).some((o) => captureRank(l) <= captureRank(o))),
      control: { accepts: this.accepts, ack_window_ms: 10_000 },
    };
  }

  /** Carry events over `link`; `control` says answers can arrive over it (an authenticated relay). */
  attach(link: EventLink, control: boolean): void {
    this.link = link;
    this.control = control;
  }

  /** Connect to a relay as an AEP emitter (hello, outbox, reconnect). */
  connectRelay(url: string, token?: string, o: { tls?: TlsFiles } = {}): RelayLink {
    const link = new RelayLink({
      url,
      token,
      tls: o.tls ? tlsClientOptions(o.tls) : undefined,
      identity: { agent: this.vendor, instance: `${hostname()}/${process.pid}` },
      capabilities: this.capabilities(),
      log: this.log,
      cursorFile: join(this.logDir, 'relay-cursors.json'),
      onCommand: (cmd, raw, by) => void this.onCommand(cmd, raw, by),
      onReady: () => this.reclaim(),
      onDropped: (info) => {
        if (this.closed) return;
        // a notice about a notice is not sent again (the dead-letter file has both)
        if (info.type === DROPPED_EVENT_TYPE) return;
        void this.serial.run(() => {
          try {
            this.publish([this.events.dropped(info)]);
          } catch (e) {
            this.say(`could not log the event-dropped notice: ${(e as Error).message}`);
          }
        });
      },
      say: this.say,
    });
    this.attach(link, Boolean(token));
    link.start();
    return link;
  }

  /** How a stream-subscriber surface attaches (undefined for every other kind). */
  get streamSpec(): CompiledStream | undefined {
    return this.d.surface.stream;
  }

  /** The descriptor's surface kind (stdio-tee, stream-subscriber, ...). */
  get surfaceKind(): string {
    return this.d.surface.kind;
  }

  get relayReady(): boolean {
    return this.link?.ready ?? false;
  }

  get controlOn(): boolean {
    return this.control;
  }

  pending(): PendingHold[] {
    return this.holds.all();
  }

  /** Resolves once everything queued so far (firings, commands, expired timers) has been handled. */
  flush(): Promise<void> {
    return this.serial.run(() => undefined);
  }

  // --- a hook firing --------------------------------------------------------------

  async handle(inp: HookInput): Promise<HookReply> {
    // stopping: the agent still gets its neutral bytes, coded, since nothing was recorded
    if (this.closed) return { ...this.neutralReply(inp.hook), error: 'daemon-stopping' };
    const out = await this.serial.run(async (): Promise<{ reply: HookReply; held?: Promise<HookReply> }> => {
      let payload = inp.payload;
      try {
        if (inp.badPath !== undefined) {
          // the diagnostic still lands in the payload's session when the body names one
          try {
            payload ??= wellFormedDeep(parseBody(inp.body, undefined));
          } catch {
            /* the path is the error reported */
          }
          throw new MapError('bad-hook-path', `malformed hook path: ${inp.badPath}`, inp.hook);
        }
        if (inp.oversize !== undefined) throw new MapError('body-too-large', `the hook body (${inp.oversize} bytes) exceeds the daemon's limit`, inp.hook);
        if (payload === undefined) payload = parseBody(inp.body, inp.hook);
        payload = wellFormedDeep(payload);
        if (this.holds.size) await this.closeBeforeSessionEnd(inp.hook, payload, inp.surface);
        const result = await this.mapper.map(inp.hook, payload, inp.surface, { decide: this.decider });
        // on disk before the request is logged: a crash between the two never leaves a request nobody closes
        const request = this.control ? result.hold?.request : undefined;
        if (request) {
          stampExpiry(request, this.timeoutFor(result.hold!.timeoutMs));
          this.openHolds.add(request);
        }
        const { invalid } = this.publishChecked(result.events);
        // a decided reply went out with its audit events logged: it stands (the failing event is logged as invalid_event)
        if (invalid && !result.decided) {
          if (request) this.openHolds.remove(request.id);
          return { reply: { ...this.neutralReply(result.hook), error: 'invalid-event' } };
        }
        if (result.session !== undefined) this.noteEnded(result.session, result.events);
        if (result.decided) this.say(`${result.hook} reply carries ${result.decided} (session ${result.session})`);
        if (inp.writer && result.session) this.bindWriter(result.session, inp.writer);
        const neutral = this.reply(result.reply, result.exitCode);
        if (result.decided) neutral.decided = result.decided;
        if (result.settle) this.settle(result.settle, result);
        if (result.hold) return { reply: neutral, held: this.openHold(result, neutral, inp.signal) };
        return { reply: neutral };
      } catch (err) {
        return { reply: await this.diagnose(err, payload, inp.hook, inp.surface) };
      }
    });
    const reply = await (out.held ?? out.reply);
    // durability fsync: the agent hears back only once what this firing logged is on disk (group commit)
    const durable = this.log.commit();
    if (durable) {
      try {
        await durable;
      } catch (e) {
        this.say(`the session log could not be flushed to disk: ${(e as Error).message} (the agent was answered; its events may not survive power loss)`);
        return { ...reply, error: reply.error ?? 'not-durable' };
      }
    }
    return reply;
  }

  private async diagnose(err: unknown, payload: unknown, hookArg: string | undefined, surface?: Record<string, unknown>): Promise<HookReply> {
    const me = err instanceof MapError ? err : new MapError('mapping-error', (err as Error)?.message ?? String(err), hookArg);
    const hook = me.hook ?? hookArg;
    const session = await this.sessionOf(payload, hook, surface);
    this.say(`hook not mapped [${me.code}] hook=${hook ?? '?'} session=${session ?? '?'}: ${me.message} (answered neutral bytes)`);
    try {
      this.publish([this.mapper.diagnostic(me, session, hook)]);
    } catch (e) {
      this.say(`could not log the diagnostic event: ${(e as Error).message}`);
    }
    return { ...this.neutralReply(hook), error: me.code };
  }

  private async sessionOf(payload: unknown, hook: string | undefined, surface?: Record<string, unknown>): Promise<string | undefined> {
    if (!payload || typeof payload !== 'object' || Array.isArray(payload)) return undefined;
    try {
      const s = await evaluate(this.d.session, payload, { hook, surface, known_session: () => false });
      return typeof s === 'string' && s ? boundId(s) : typeof s === 'number' ? String(s) : undefined;
    } catch {
      return undefined;
    }
  }

  /** The neutral reply of `hook` (the descriptor default when the hook is unknown or absent). */
  neutralReply(hook: string | undefined): HookReply {
    const h = hook ? this.d.hooks.get(hook) : undefined;
    return this.reply(h?.reply ?? this.d.replies.neutral, this.d.replies.exitCode);
  }

  private reply(body: string, exit: number): HookReply {
    return { body, exit, contentType: this.contentTypeOf(body) };
  }

  private contentTypeOf(body: string): string {
    if (this.d.replies.contentType) return this.d.replies.contentType;
    if (body.trim() === '') return 'text/plain; charset=utf-8';
    try {
      JSON.parse(body);
      return 'application/json';
    } catch {
      return 'text/plain; charset=utf-8';
    }
  }

  /** Log first, then the relay. */
  private publish(events: AepEvent[]): AppendRecord[] {
    return this.publishChecked(events).recs;
  }

  /**
   * Every event is checked against the envelope and payload schemas before
   * the log: one that fails is replaced, at its position, by an
   * x.hookmap.error.invalid_event diagnostic (original type + digest), so
   * nothing invalid is ever logged or sent and nothing after it is lost.
   */
  private publishChecked(events: AepEvent[]): { recs: AppendRecord[]; invalid: boolean } {
    const recs: AppendRecord[] = [];
    let invalid = false;
    for (let ev of events) {
      const why = invalidity(ev);
      if (why !== undefined) {
        invalid = true;
        this.say(`event ${ev.type} (seq ${ev.seq ?? '-'}) failed its schema check and was logged as x.hookmap.error.invalid_event: ${why}`);
        ev = this.events.invalidEvent(ev, why);
        const still = invalidity(ev);
        if (still !== undefined) {
          this.say(`the invalid-event diagnostic itself fails its schema (${still}): nothing logged for that position`);
          continue;
        }
      }
      const rec = this.log.append(ev);
      recs.push(rec);
      this.noteHint(ev);
      this.opts.onEvent?.(ev);
      this.link?.deliver(rec);
    }
    return { recs, invalid };
  }

  // --- holds --------------------------------------------------------------------------

  private timeoutFor(descriptorMs: number | undefined): number {
    return this.opts.attentionTimeoutMs ?? envAttentionTimeout() ?? descriptorMs ?? DEFAULT_ATTENTION_TIMEOUT_MS;
  }

  private openHold(result: MapResult, neutral: HookReply, signal?: AbortSignal): Promise<HookReply> {
    const hr = result.hold!;
    const rule = this.d.hooks.get(hr.hook)!.holds[hr.index];
    const request = hr.request;
    if (!request) {
      this.say(`hold on ${hr.hook} has no ${rule.requestType} event to answer (its emit produced none): answering neutral bytes`);
      return Promise.resolve(neutral);
    }
    const timeoutMs = this.timeoutFor(hr.timeoutMs);
    if (!this.control) {
      // Nobody can answer (no relay, or a watch-only one): fail open now, not after the whole window.
      this.publish([this.events.timeout(request, 0)]);
      this.say(`hold ${request.id} (${hr.hook}) failed open at once: control is off (no relay token)`);
      return Promise.resolve(neutral);
    }
    return this.hold({ kind: hr.kind, hook: hr.hook, session: hr.session, key: hr.key, rule, request, payload: hr.payload, neutral, timeoutMs }, signal);
  }

  /** Register a pending request and wait for its answer, timeout or dismissal (hook holds and model-fired asks). */
  private hold(o: Pick<PendingHold, 'kind' | 'hook' | 'session' | 'key' | 'rule' | 'request' | 'payload' | 'neutral' | 'timeoutMs'>, signal?: AbortSignal): Promise<HookReply> {
    const { request, rule } = o;
    const data = (request.data ?? {}) as Record<string, any>;
    const options: OptionView[] = Array.isArray(data.options) ? data.options.filter((x: any) => x && typeof x.id === 'string') : [];
    return new Promise<HookReply>((resolve) => {
      const h: PendingHold = {
        ...o,
        id: request.id,
        view: {
          kind: o.kind,
          options,
          fields: Array.isArray(data.fields) ? data.fields : undefined,
          labelsReal: captureRank(request.capture ?? 'metadata') >= captureRank('redacted'),
          decisions: new Set(rule.decisions.keys()),
        },
        openedAt: this.now(),
        done: resolve,
      };
      h.timer = this.timers.set(() => void this.serial.run(() => this.expire(h)), o.timeoutMs);
      this.holds.add(h);
      if (!this.openHolds.has(request.id)) this.openHolds.add(request);
      signal?.addEventListener('abort', () => void this.serial.run(() => this.dismiss(h, h.id, 'the agent hung up on the held hook')), { once: true });
      this.opts.onHold?.(h);
    });
  }

  private finish(h: PendingHold, how: Terminal, reply: HookReply): void {
    if (h.timer !== undefined) this.timers.clear(h.timer);
    this.holds.close(h, how);
    this.openHolds.remove(h.id);
    h.done(reply);
  }

  private expire(h: PendingHold): void {
    if (this.holds.get(h.id) !== h) return;
    this.publish([this.events.timeout(h.request, h.timeoutMs)]);
    this.say(`hold ${h.id} (${h.hook}) timed out after ${h.timeoutMs} ms: neutral bytes, the agent's own dialog decides`);
    this.finish(h, 'timed out', h.neutral);
  }

  private dismiss(h: PendingHold, cause: string, why: string): void {
    if (this.holds.get(h.id) !== h) return;
    this.publish([this.events.resolved(h.request, cause, 'dismissed', this.now() - h.openedAt)]);
    this.say(`hold ${h.id} (${h.hook}) dismissed: ${why}`);
    this.finish(h, 'dismissed', h.neutral);
  }

  /** A settling hook (e.g. the tool ran, the elicitation was answered in the agent's UI) frees its hold. */
  private settle(s: { key: string; as: 'dismissed' | 'oob'; answer?: Record<string, unknown> }, result: MapResult): void {
    const h = result.session === undefined ? undefined : this.holds.byKeyOf(result.session, s.key);
    if (!h) return; // an orphan settle emits nothing: one terminal per request
    const cause = result.events[0]?.id ?? h.id;
    if (s.as === 'dismissed') return this.dismiss(h, cause, `${result.hook} arrived first`);
    const ans = this.events.answered(h.request, cause, s.answer ?? {}, 'oob', undefined, undefined);
    const res = this.events.resolved(h.request, ans.id, 'answered', this.now() - h.openedAt);
    this.publish([ans, res]);
    this.say(`hold ${h.id} (${h.hook}) answered out of band (${result.hook})`);
    this.finish(h, 'settled out of band', h.neutral);
  }

  /** AEP-0002 §7 rule 2: a session never ends with a request still pending. */
  private async closeBeforeSessionEnd(hookArg: string | undefined, payload: unknown, surface?: Record<string, unknown>): Promise<void> {
    if (!payload || typeof payload !== 'object') return;
    let hook = hookArg;
    try {
      hook ??= await this.mapper.hookNameOf(payload, surface);
    } catch {
      return;
    }
    const rule = hook ? this.d.hooks.get(hook) : undefined;
    if (!rule?.emit.some((e) => e.sessionEnd)) return;
    const vendorSession = await this.sessionOf(payload, hook, surface);
    if (vendorSession === undefined) return;
    const session = this.mapper.state.aepOf(vendorSession); // a resumed session's successor
    for (const h of this.holds.inSession(session)) this.dismiss(h, h.id, `${hook} ends the session`);
  }

  /** After a (re)connect: the relay learns which sessions we own from their events; re-send each pending request. */
  private reclaim(): void {
    for (const h of this.holds.all()) this.link?.resend(JSON.stringify(h.request));
  }

  // --- commands -----------------------------------------------------------------------

  /**
   * A routed command. `by` is the sender's authenticated name as the relay
   * stamped it beside the command (engine/relay/socket.ts ROUTED_FRAME), the
   * only name `attention.answered.by` ever carries; the command's own `agent`
   * is self-asserted (AEP-0004 §8) and never used for attribution.
   */
  onCommand(cmd: AepEvent, _raw?: string, by?: string): Promise<void> {
    return this.serial.run(() => this.command(cmd, by));
  }

  private async command(cmd: AepEvent, by: string | undefined): Promise<void> {
    const source = String(cmd.source ?? '');
    const id = String(cmd.id ?? '');
    const recorded = this.acks.get(source, id);
    if (recorded) {
      // AEP-0004 §3: a redelivered command gets its recorded ack, byte-identical; never a second decision
      this.link?.resend(recorded);
      this.say(`command ${id} redelivered: re-sent its recorded ack`);
      return;
    }
    const session = typeof cmd.session === 'string' && cmd.session ? cmd.session : undefined;
    if (!session || !id) {
      this.say(`command ${cmd.type} without session or id ignored (nothing to ack into)`);
      return;
    }
    const surfaceCmd = this.d.commands.get(String(cmd.type));
    if (surfaceCmd?.deliver && this.accepts.includes(surfaceCmd.type)) return this.deliveredCommand(cmd, surfaceCmd, session, source, id);
    if (surfaceCmd && this.accepts.includes(surfaceCmd.type)) return this.surfaceCommand(cmd, surfaceCmd, session, source, id);
    if (cmd.type !== RESPOND || !this.accepts.includes(cmd.type)) {
      return this.nack(cmd, session, 'unsupported', `not-accepted: ${cmd.type} is not accepted by the ${this.vendor} daemon (accepts: ${this.accepts.join(', ') || 'none'})`);
    }
    const subject = typeof cmd.subject === 'string' ? cmd.subject : undefined;
    const h = subject ? this.holds.get(subject) : undefined;
    if (!h || h.session !== session) {
      const how = subject ? this.holds.howEnded(subject) : undefined;
      return this.nack(cmd, session, 'invalid', how ? `already-closed: attention request ${subject} was already ${how}` : `no-such-request: no pending attention request ${subject ?? '(subject missing)'} in this session`);
    }
    const answer = (cmd.data as Record<string, unknown> | undefined)?.answer;
    const it = interpretAnswer(answer, h.view);
    if (!it.ok) return this.nack(cmd, session, it.reason, it.detail, h.request.run); // stays pending
    let body: string;
    let outcome: AepEvent[];
    try {
      const b = await this.bindings(h, it, answer);
      body = it.decision === undefined ? h.neutral.body : await this.decisionBytes(h, it.decision, b);
      outcome = await this.outcomeDrafts(h, b);
    } catch (e) {
      this.say(`decision for ${h.id} could not be built: ${(e as Error).message}`);
      this.publish([this.mapper.diagnostic(new MapError('mapping-error', `decision ${it.decision}: ${(e as Error).message}`, h.hook), session, h.hook)]);
      return this.nack(cmd, session, 'refused', 'decision-failed: the decision could not be built; the request stays pending', h.request.run);
    }
    const acc = this.events.accepted(session, cmd, h.request.run);
    const [rec] = this.publish([acc]);
    this.acks.record(source, id, rec.line);
    const ans = this.events.answered(h.request, cmd.id, it.applied, 'control', by, h.view.fields as FormFieldSpec[] | undefined);
    const res = this.events.resolved(h.request, ans.id, 'answered', this.now() - h.openedAt);
    const outs = outcome.map((o) => this.events.make({ ...(o as any), cause: (o as any).cause ?? ans.id }));
    this.publish([ans, res, ...outs]);
    this.say(`hold ${h.id} (${h.hook}) answered by ${by ?? '(no authenticated sender)'} (command ${cmd.id}): ${it.decision ?? 'no decision template: neutral bytes'}`);
    this.finish(h, 'answered', { ...h.neutral, body, contentType: this.contentTypeOf(body) });
  }

  // --- surface commands (a command answered by writing bytes on the surface) --------

  private bindWriter(session: string, w: SurfaceWriter): void {
    this.writers.delete(session);
    this.writers.set(session, w);
    if (this.writers.size > 10_000) this.writers.delete(this.writers.keys().next().value as string);
  }

  /** A surface connection ended: it carries nothing any more. */
  forgetWriter(w: SurfaceWriter): void {
    for (const [s, x] of this.writers) if (x === w) this.writers.delete(s);
  }

  /** The live writer of a session, if any (tests, doctor). */
  writerOf(session: string): SurfaceWriter | undefined {
    return this.writers.get(session);
  }

  // --- model-fired calls (hookmap mcp: ask_human, emit_event) -------------------------

  private noteHint(ev: AepEvent): void {
    if (typeof ev.session !== 'string') return;
    const at = this.now();
    if (ev.type === 'session.ended') return this.hints.ended(ev.session);
    this.hints.noteActive(ev.session, at);
    if (ev.type === 'tool.requested' && typeof ev.subject === 'string') this.hints.noteTool(ev.subject, ev.session, at);
  }

  /** The session a model-fired call belongs to: named, or found from the agent's own announcement of the call. */
  private toolSession(session: string | undefined, tool: string | undefined, suffix: string): string {
    const s = session ?? this.hints.resolve(tool, suffix, this.now());
    if (s === undefined) throw new AskError('no-session', `no session of ${this.vendor} announced ${tool ?? suffix} lately and more than one (or none) is active: pass the session (hookmap mcp --session, or HOOKMAP_SESSION)`, 409);
    if (this.ended.has(s)) throw new AskError('session-ended', `session ${s} has ended`, 409);
    if (!this.mapper.state.has(s)) throw new AskError('unknown-session', `this ${this.vendor} daemon has seen no firing of session ${s}`, 404);
    return s;
  }

  /**
   * ask_human: attention.requested in the agent's session (kind input, the
   * question as its prompt, the options as 1..n), held like a hook until a
   * control.attention.respond answers it, it times out, or the caller hangs up.
   * Resolves to the JSON the MCP server returns to the model.
   */
  async ask(req: AskRequest, signal?: AbortSignal): Promise<string> {
    if (this.closed) throw new AskError('daemon-stopping', 'the daemon is stopping', 503);
    // the hold is returned wrapped: awaiting it inside the serial queue would stall every firing behind it
    const out = await this.serial.run(async (): Promise<{ id: string; held: Promise<HookReply> }> => {
      const session = this.toolSession(req.session, req.tool, 'ask_human');
      if (!this.control) throw new AskError('control-off', `nobody can answer: control is off (start hookmap up with a token)`, 409);
      const options = optionIds(req.options);
      const request = this.events.make({
        type: 'attention.requested',
        session,
        run: this.mapper.openRun(session),
        data: { kind: 'input', prompt: req.question, ...(options.length ? { options } : {}), respond_via: ['control'] },
      });
      this.openHolds.add(request);
      const { invalid } = this.publishChecked([request]);
      if (invalid) {
        this.openHolds.remove(request.id);
        throw new AskError('invalid-event', 'the attention request failed its schema check (logged as invalid_event)', 500);
      }
      this.say(`ask_human ${request.id} raised in session ${session}${options.length ? ` (${options.length} options)` : ''}`);
      const neutral = { body: UNANSWERED, exit: 0, contentType: 'application/json' };
      return { id: request.id, held: this.hold({ kind: 'permission', hook: ASK_HOOK, session, rule: askRule(options), request, payload: { options }, neutral, timeoutMs: req.timeoutMs ?? DEFAULT_ASK_TIMEOUT_MS }, signal) };
    });
    const reply = await out.held;
    const why = reply.body === UNANSWERED ? this.holds.howEnded(out.id) : undefined;
    return askResult(reply.body, out.id, why);
  }

  /** emit_event: one model-authored event in the agent's session, through the daemon's own envelope path. */
  async emitFromTool(req: EmitRequest): Promise<AepEvent> {
    if (this.closed) throw new AskError('daemon-stopping', 'the daemon is stopping', 503);
    return this.serial.run(() => {
      const session = this.toolSession(req.session, req.tool, 'emit_event');
      let ev: AepEvent;
      try {
        ev = this.events.make({ type: req.type, session, run: this.mapper.openRun(session), subject: req.subject, severity: req.severity, data: req.data ?? {} });
      } catch (e) {
        throw new AskError('invalid-event', (e as Error).message.replace(/^daemon built/, 'the event is'));
      }
      const { invalid } = this.publishChecked([ev]);
      if (invalid) throw new AskError('invalid-event', `the ${req.type} event failed its schema check (logged as x.hookmap.error.invalid_event at its position)`);
      this.say(`emit_event ${req.type} ${ev.id} in session ${session}`);
      return ev;
    });
  }

  // --- delivered commands (carried by the next eligible hook reply) --------------------

  private noteEnded(session: string, events: AepEvent[]): void {
    if (events.some((e) => e.type === 'session.ended')) {
      this.ended.delete(session);
      this.ended.add(session);
      if (this.ended.size > 4_096) this.ended.delete(this.ended.values().next().value as string);
    } else if (events.length) this.ended.delete(session); // a resumed session lives again
  }

  /**
   * Accept (and queue) or refuse a delivered command: steering text within the
   * agent's cap, a cancel of the run that is running. A cancel that finds a
   * held hook able to carry it answers that hook at once (its `cancel` decision).
   */
  private async deliveredCommand(cmd: AepEvent, spec: CompiledCommand, session: string, source: string, id: string): Promise<void> {
    const known = this.mapper.state.has(session);
    const run = this.mapper.openRun(session);
    if (this.ended.has(session)) return this.nack(cmd, session, 'invalid', `session-ended: session ${session} has ended; nothing more reaches it`);
    if (!known) return this.nack(cmd, session, 'invalid', `unknown-session: this ${this.vendor} daemon has seen no firing of session ${session}`);
    const data = (cmd.data ?? {}) as Record<string, unknown>;
    if (spec.when) {
      const b = { session, run, run_open: run !== undefined, command: cmd, data, config: this.mapper.effectiveConfig, agent: this.vendor };
      let ok: unknown;
      try {
        ok = await evaluate(spec.when, cmd, b);
      } catch (e) {
        this.say(`${cmd.type} when-condition failed: ${(e as Error).message}`);
      }
      if (!ok) return this.nack(cmd, session, 'refused', `not-applicable: ${spec.refuse ?? `${cmd.type} does not apply to session ${session} now`}`, run);
    }
    const q: Queued = { id, source, spec, at: this.now() };
    if (spec.deliver === 'context') {
      const text = data.text;
      if (typeof text !== 'string' || text.trim() === '') return this.nack(cmd, session, 'invalid', 'text-required: data.text must be a non-empty string', run);
      const n = chars(text);
      if (spec.maxChars !== undefined && n > spec.maxChars) return this.nack(cmd, session, 'invalid', `text-too-long: the instruction is ${n} characters; ${this.vendor} takes at most ${spec.maxChars}`, run);
      if (this.queue.count(session, spec.type) >= spec.queueCap) return this.nack(cmd, session, 'invalid', `queue-full: ${spec.queueCap} instructions already wait for session ${session}`, run);
      q.text = text;
      this.accept(cmd, session, source, id, run);
      this.queue.add(session, q);
      this.say(`${cmd.type} ${id} queued for session ${session} (${n} characters)`);
      return;
    }
    // deliver: cancel
    const target = typeof cmd.run === 'string' && cmd.run ? cmd.run : undefined;
    if (target !== undefined && target !== run) {
      const st = this.mapper.state.session(session);
      return this.nack(cmd, session, 'invalid', st.closedRuns?.has(target) ? `run-ended: run ${target} of session ${session} has already ended` : `unknown-run: run ${target} is not running in session ${session}${run ? ` (running: ${run})` : ''}`, run);
    }
    if (run === undefined) return this.nack(cmd, session, 'refused', `no-run: nothing is running in session ${session}`);
    if (this.queue.list(session).some((x) => x.spec.deliver === 'cancel' && x.run === run)) return this.nack(cmd, session, 'refused', `cancel-queued: a cancel of run ${run} already waits for the agent's next reply`, run);
    q.run = run;
    q.reason = typeof data.reason === 'string' && data.reason.trim() ? data.reason : undefined;
    const held = this.holds.inSession(session).find((h) => h.rule.decisions.has('cancel') && (h.request.run === undefined || h.request.run === run));
    if (held) return this.cancelHeld(cmd, held, q, session, run);
    this.accept(cmd, session, source, id, run);
    this.queue.add(session, q);
    this.say(`control.cancel ${id} queued for run ${run} (session ${session}): the agent's next eligible reply stops it`);
  }

  private accept(cmd: AepEvent, session: string, source: string, id: string, run?: string): void {
    const [rec] = this.publish([this.events.accepted(session, cmd, run)]);
    this.acks.record(source, id, rec.line);
  }

  /** A held hook that can carry the cancel answers it now: the request is dismissed, the run cancelled. */
  private async cancelHeld(cmd: AepEvent, h: PendingHold, q: Queued, session: string, run: string): Promise<void> {
    const reason = q.reason ?? 'cancelled over hookmap';
    let body: string;
    try {
      const b = await this.bindings(h, { ok: true, decision: 'cancel', applied: {} }, undefined);
      b.reason = reason;
      body = await this.decisionBytes(h, 'cancel', b);
    } catch (e) {
      this.say(`cancel for ${h.id} could not be built: ${(e as Error).message}`);
      return this.nack(cmd, session, 'refused', 'decision-failed: the cancel reply could not be built; the request stays pending', run);
    }
    this.accept(cmd, session, q.source, q.id, run);
    const res = this.events.resolved(h.request, q.id, 'dismissed', this.now() - h.openedAt);
    const cancelled = this.events.make({ type: 'run.cancelled', session, run, cause: q.id, data: { by: 'control', reason } });
    this.publish([res, cancelled]);
    this.mapper.closeRun(session, run);
    this.say(`hold ${h.id} (${h.hook}) answered with its cancel decision: run ${run} cancelled`);
    this.finish(h, 'dismissed', { ...h.neutral, body, contentType: this.contentTypeOf(body), decided: 'cancel' });
  }

  private async surfaceCommand(cmd: AepEvent, spec: CompiledCommand, session: string, source: string, id: string): Promise<void> {
    const key = `${source}\u0000${id}`;
    if (this.inflight.has(key)) return; // the forthcoming ack answers this delivery too
    const st = this.mapper.state.has(session) ? this.mapper.state.session(session) : undefined;
    const run = st?.runId;
    const b: Record<string, unknown> = { session, run, run_open: run !== undefined, command: cmd, data: cmd.data ?? {}, config: this.mapper.effectiveConfig, agent: this.vendor };
    let bytes: string;
    try {
      if (spec.when && !(await evaluate(spec.when, cmd, b))) return this.nack(cmd, session, 'refused', `not-applicable: ${spec.refuse ?? `${cmd.type} does not apply to session ${session} now`}`, run);
      const v = await evaluate(spec.write!, cmd, b);
      if (v === undefined || v === null || v === '') return this.nack(cmd, session, 'refused', `decision-failed: the ${cmd.type} template produced no bytes`, run);
      bytes = typeof v === 'string' ? v : JSON.stringify(v);
    } catch (e) {
      this.say(`${cmd.type} for session ${session} could not be built: ${(e as Error).message}`);
      return this.nack(cmd, session, 'refused', `decision-failed: the ${cmd.type} bytes could not be built`, run);
    }
    const writer = this.writers.get(session);
    if (!writer) return this.nack(cmd, session, 'refused', `no-surface: no live ${this.d.surface.kind} connection carries session ${session} (is the agent running behind hookmap?)`, run);
    this.inflight.add(key);
    // the write happens outside the serial queue: firings keep flowing while the surface confirms
    void writer.write(id, bytes).then(
      (r) => r,
      (e: Error) => ({ ok: false, why: e.message }),
    ).then((r) => this.serial.run(() => {
      this.inflight.delete(key);
      if (!r.ok) return this.nack(cmd, session, 'busy', `write-failed: the bytes could not be written: ${r.why ?? 'unknown reason'}`, run);
      const [rec] = this.publish([this.events.accepted(session, cmd, run)]);
      this.acks.record(source, id, rec.line);
      this.say(`${cmd.type} ${id} written on ${writer.id} for session ${session}`);
    }));
  }

  /** A problem a surface saw in the agent's own traffic (a line that is not JSON, one too long): one diagnostic event. */
  problem(code: string, message: string): void {
    if (this.closed) return;
    void this.serial.run(() => {
      this.say(`surface problem [${code}]: ${message}`);
      try {
        this.publish([this.mapper.diagnostic(new MapError(code as MapErrorCode, message), undefined, undefined)]);
      } catch (e) {
        this.say(`could not log the diagnostic event: ${(e as Error).message}`);
      }
    });
  }

  private nack(cmd: AepEvent, session: string, reason: string, detail: string, run?: string): void {
    const [rec] = this.publish([this.events.rejected(session, cmd, reason, detail, run)]);
    this.acks.record(String(cmd.source ?? ''), String(cmd.id), rec.line);
    this.say(`command ${cmd.id} (${cmd.type}) rejected [${reason}]: ${detail}`);
  }

  private async bindings(h: PendingHold, it: Extract<Interpretation, { ok: true }>, answer: unknown): Promise<Record<string, unknown>> {
    if (h.hook === ASK_HOOK) return askBindings(h, it);
    const b: Record<string, unknown> = {
      hook: h.hook,
      agent: this.vendor,
      session: h.session,
      run: h.request.run,
      config: this.config,
      option: it.applied.option,
      text: it.applied.text,
      values: it.applied.values,
      answer,
      request: h.request,
    };
    for (const [name, e] of this.d.vars) b[name] = await evaluate(e, h.payload, b);
    return b;
  }

  /** A decision template's bytes: a string result is the bytes, anything else its JSON. */
  private async decisionBytes(h: PendingHold, decision: string, b: Record<string, unknown>): Promise<string> {
    const v = await evaluate(h.rule.decisions.get(decision)!, h.payload, b);
    if (v === undefined) return h.neutral.body;
    return typeof v === 'string' ? v : JSON.stringify(v);
  }

  /** The hold's `outcome` emits (e.g. tool.denied on a commanded deny), evaluated before any position is taken. */
  private async outcomeDrafts(h: PendingHold, b: Record<string, unknown>): Promise<any[]> {
    const out: any[] = [];
    for (const e of h.rule.outcome) {
      const o = (await evaluate(e.expr, h.payload, b)) as Record<string, any> | undefined;
      if (!o) continue;
      const type = e.type ?? o.type;
      if (typeof type !== 'string') throw new Error(`outcome ${e.path} produced no type`);
      out.push({ type, session: h.session, subject: o.subject === undefined ? undefined : String(o.subject), cause: o.cause, run: h.request.run, severity: e.severity, gates: e.gates, data: o.data ?? {} });
    }
    return out;
  }

  // --- shutdown ---------------------------------------------------------------------

  /** Free every held hook (dismissed, neutral bytes), close the link and the logs, release the lock. */
  async close(): Promise<void> {
    if (this.closed) return;
    await this.serial.run(() => {
      this.closed = true;
      for (const h of this.holds.all()) this.dismiss(h, h.id, 'the daemon is stopping');
      // what was queued never reaches the agent now: audited, never silent
      for (const [session, items] of this.queue.all()) {
        for (const q of items) {
          try {
            const a = droppedEvent(this.vendor, q, 'daemon-stopping');
            this.publish([this.events.make({ type: a.type, session, cause: a.cause, data: a.data, gates: a.gates })]);
          } catch (e) {
            this.say(`could not log the drop of ${q.id}: ${(e as Error).message}`);
          }
        }
        this.queue.remove(session, items);
      }
    });
    await this.link?.close();
    this.log.close();
    this.release();
  }
}

function parseBody(body: string | Buffer | undefined, hook: string | undefined): unknown {
  const text = body === undefined ? '' : typeof body === 'string' ? body : body.toString('utf8');
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new MapError('malformed-json', `the hook body is not JSON (${text.length} bytes): ${(e as Error).message}`, hook);
  }
}

/** AEP-0002 §5.3 `expires_at`: when the hold fails open and the agent's own dialog decides (what a human's countdown shows). */
function stampExpiry(request: AepEvent, timeoutMs: number): void {
  const d = request.data as Record<string, unknown> | undefined;
  const t = Date.parse(request.time);
  if (d && typeof d === 'object' && Number.isFinite(t)) d.expires_at = new Date(t + timeoutMs).toISOString();
}
