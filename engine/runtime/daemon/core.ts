// What every part of one agent's daemon shares: its descriptor and mapper,
// the events it authors itself, the serial queue every firing and command
// runs in, its clock and timers, and the one way out for an event: checked
// against its schemas, logged, then carried to the relay (log first). The
// daemon's units (hold-lifecycle.ts, commands.ts, model-calls.ts) are built
// on one DaemonCore; daemon.ts composes them. AEP-0001 §5 (envelope, order
// within a session), AEP-0002 §6 (x.hookmap.* diagnostics).
import type { CompiledHook, Descriptor } from '../../core/descriptor/types.ts';
import { contentTypeOf, renderDecision } from '../../core/map/decide.ts';
import { decidedShape, neutralShape } from '../../core/map/reply-shape.ts';
import type { AepEvent } from '../../core/map/envelope.ts';
import { MapError, type Mapper, type MapErrorCode } from '../../core/map/mapper.ts';
import type { HookReply } from './holds.ts';
import { invalidity, type LifecycleEvents } from './lifecycle.ts';
import type { EventLink } from './relay-link.ts';
import type { Serial } from './serial.ts';
import type { AppendRecord, SessionLog } from './session-log.ts';

export interface Timers {
  set(fn: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

export const realTimers: Timers = { set: (fn, ms) => setTimeout(fn, ms), clear: (h) => clearTimeout(h as NodeJS.Timeout) };

export interface CoreParts {
  d: Descriptor;
  mapper: Mapper;
  events: LifecycleEvents;
  log: SessionLog;
  serial: Serial;
  timers: Timers;
  now: () => number;
  say: (line: string) => void;
  /** Descriptor config with the daemon's overrides (what decision templates see as `$config`). */
  config: Record<string, unknown>;
}

export class DaemonCore {
  readonly d: Descriptor;
  readonly vendor: string;
  readonly mapper: Mapper;
  readonly events: LifecycleEvents;
  readonly log: SessionLog;
  readonly serial: Serial;
  readonly timers: Timers;
  readonly now: () => number;
  readonly say: (line: string) => void;
  readonly config: Record<string, unknown>;
  /** The relay (or a stand-in) events are carried over. */
  link?: EventLink;
  /** Answers can arrive over the link (an authenticated relay). */
  control = false;
  /** close() has begun: nothing new is taken. */
  closed = false;
  /** The id of a rule in force that could block a firing of this hook (operator policy), where one could: see diagnose(). */
  blockingRule?: (hook: CompiledHook) => string | undefined;
  /** Called with every event once it is logged, in registration order, before the link carries it. */
  private readonly listeners: ((ev: AepEvent) => void)[] = [];

  constructor(p: CoreParts) {
    this.d = p.d;
    this.vendor = p.d.vendor;
    this.mapper = p.mapper;
    this.events = p.events;
    this.log = p.log;
    this.serial = p.serial;
    this.timers = p.timers;
    this.now = p.now;
    this.say = p.say;
    this.config = p.config;
  }

  onLogged(fn: (ev: AepEvent) => void): void {
    this.listeners.push(fn);
  }

  /** Log first, then the relay. */
  publish(events: AepEvent[]): AppendRecord[] {
    return this.publishChecked(events).recs;
  }

  /**
   * Every event is checked against the envelope and payload schemas before
   * the log: one that fails is replaced, at its position, by an
   * x.hookmap.error.invalid_event diagnostic (original type + digest), so
   * nothing invalid is ever logged or sent and nothing after it is lost.
   */
  publishChecked(events: AepEvent[]): { recs: AppendRecord[]; invalid: boolean } {
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
      for (const fn of this.listeners) fn(ev);
      this.link?.deliver(rec);
    }
    return { recs, invalid };
  }

  /** Reply bytes with their exit intent, stream (absent: stdout) and content type. */
  reply(body: string, exit: number, stream?: 'stderr'): HookReply {
    return { body, exit, ...(stream ? { stream } : {}), contentType: this.contentTypeOf(body) };
  }

  contentTypeOf(body: string): string {
    return contentTypeOf(this.d.replies, body);
  }

  /** The neutral reply of `hook` (the descriptor default when the hook is unknown or absent). */
  neutralReply(hook: string | undefined): HookReply {
    const h = hook ? this.d.hooks.get(hook) : undefined;
    const s = neutralShape(this.d, hook);
    return this.reply(h?.reply ?? this.d.replies.neutral, s.exit, s.stream);
  }

  /**
   * Under a launch's gate (the shim said HOOKMAP_GATE: `hookmap run` turned the agent's own asking off), the hook's
   * refusing answer (hook.fail_closed): what a held call nobody allowed and a firing that cannot be read get.
   */
  gateReply(hook: string | undefined, surface: Record<string, unknown> | undefined): HookReply | undefined {
    const fc = surface?.gate === true && hook ? this.d.hooks.get(hook)?.failClosed : undefined;
    return fc && { ...this.reply(fc.reply, 0), decided: 'block' }; // stdout, exit 0: the compiler refuses a hook replying otherwise
  }

  /**
   * What a firing nobody answered gets (up stopping, an event that failed its schema, a payload that cannot be read,
   * a hold nobody allowed): the gate's refusal under a launch's gate, else the hook's neutral bytes. One home for it.
   */
  unansweredReply(hook: string | undefined, surface: Record<string, unknown> | undefined): HookReply {
    return this.gateReply(hook, surface) ?? this.neutralReply(hook);
  }

  /** The payload's agent session id (bounded), when it names one: where a diagnostic or a session end lands. */
  sessionOf(payload: unknown, hook: string | undefined, surface?: Record<string, unknown>): Promise<string | undefined> {
    return this.mapper.vendorSessionOf(payload, hook, surface);
  }

  /**
   * A firing that cannot be mapped: one diagnostic event (in its session when the payload names one), the neutral bytes coded.
   * `mapped`: the mapper failed it, and its error already names the session it read (the payload is not asked again).
   */
  async diagnose(err: unknown, payload: unknown, hookArg: string | undefined, surface?: Record<string, unknown>, mapped = false): Promise<HookReply> {
    const me = err instanceof MapError ? err : new MapError('mapping-error', (err as Error)?.message ?? String(err), hookArg);
    // a payload too deep to walk is read by its top-level fields alone (its hook name and session are there)
    const readable = me.code === 'payload-too-deep' ? topLevelScalars(payload) : payload;
    const hook = me.hook ?? hookArg ?? (await this.mapper.hookNameOf(readable, surface).catch(() => undefined));
    const session = mapped ? me.session : await this.sessionOf(readable, hook, surface);
    const closed = await this.failClosed(hook, session, me);
    this.say(
      `hook not mapped [${me.code}] hook=${hook ?? '?'} session=${session ?? '?'}: ${me.message} ` +
        (closed ? `(answered with its block reply: ${closed.rule} could apply and the request cannot be read)` : '(answered neutral bytes)'),
    );
    try {
      this.publish([this.mapper.diagnostic(me, session, hook)]);
    } catch (e) {
      this.say(`could not log the diagnostic event: ${(e as Error).message}`);
    }
    return closed?.reply ?? { ...this.unansweredReply(hook, surface), error: me.code };
  }

  /**
   * Fail closed (issue 40): a firing that cannot be read (too deep, malformed, a rule that threw) where a rule in
   * force could block it gets the hook's block reply, never the neutral bytes that would let the call go ahead.
   * Only where the descriptor gives the hook a `block` decision; a held hook's neutral bytes already leave the
   * request to the agent's own dialog (a human). The template sees no payload: it is what could not be read.
   */
  private async failClosed(hook: string | undefined, session: string | undefined, me: MapError): Promise<{ reply: HookReply; rule: string } | undefined> {
    const h = hook ? this.d.hooks.get(hook) : undefined;
    const entry = h?.decide.get('block');
    const rule = h && entry ? this.blockingRule?.(h) : undefined;
    if (!rule || !entry) return undefined;
    const reason = `hookmap could not read this request [${me.code}] and rule ${rule} could block it: blocked (fail closed)`;
    try {
      const body = await renderDecision(entry, { verb: 'block', reason, authored: [] }, {}, { agent: this.vendor, hook, session, config: this.config });
      const s = decidedShape(this.d, hook, entry);
      return { reply: { ...this.reply(body, s.exit, s.stream), decided: 'block', error: me.code }, rule };
    } catch (e) {
      this.say(`the block reply of ${hook} could not be rendered without its payload (${(e as Error).message}): neutral bytes`);
      return undefined;
    }
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
}

function topLevelScalars(payload: unknown): unknown {
  if (!payload || typeof payload !== 'object' || Array.isArray(payload)) return payload;
  return Object.fromEntries(Object.entries(payload).filter(([, v]) => v === null || typeof v !== 'object'));
}
