// One agent's daemon: a hook firing in, AEP events out (log first, then the
// relay), the reply bytes back; held hooks wait for a routed
// control.attention.respond, a timeout, or a settling hook. Everything the
// agent-specific part needs comes from the descriptor: no agent names here.
//
// The agent is never broken by us: every path out of handle() is a reply (the descriptor's neutral bytes when nothing
// was decided or something failed, its block reply where a rule could block what cannot be read: core.ts), and a
// firing that cannot be mapped becomes an x.<vendor>.error.mapping_failed diagnostic event, never a crash.
//
// This file: the hook firing + the composition of units: core.ts, hold-lifecycle.ts, commands.ts (AEP-0004, next-turn.ts),
// model-calls.ts (hookmap mcp), hello.ts, usage-watch.ts; reply bytes are rendered by engine/core/map/decide.ts.
import { Redactor } from '../../core/capture/redact.ts';
import type { CompiledStream, Descriptor } from '../../core/descriptor/types.ts';
import type { Decider } from '../../core/map/decide.ts';
import { sourceHost, type AepEvent } from '../../core/map/envelope.ts';
import { Mapper } from '../../core/map/mapper.ts';
import { canBlockToolCalls, WaitingSigns } from './waiting-sign.ts';
import { EngineState } from '../../core/map/state.ts';
import type { TlsFiles } from '../auth/tls.ts';
import type { AskRequest, EmitRequest } from './asks.ts';
import { CommandProtocol } from './commands.ts';
import { DaemonCore, realTimers } from './core.ts';
import { claimFolder, type Claim } from './epoch.ts';
import { acceptedCommands, optInStates, optionStates, helloCapabilities } from './hello.ts';
import { HoldLifecycle } from './hold-lifecycle.ts';
import type { HookReply, PendingHold } from './holds.ts';
import { blockRuleFor, makeDecider } from './instructions.ts';
import { LifecycleEvents } from './lifecycle.ts';
import { ModelCalls } from './model-calls.ts';
import { openRelayLink } from './relay-attach.ts';
import type { EventLink, RelayLink } from './relay-link.ts';
import type { Dial } from './relay-link-types.ts';
import { DurableSeq } from './seq.ts';
import { Serial } from './serial.ts';
import { durableReply, readPayload, type DaemonOptions, type HookInput } from './options.ts';
import { SessionLog } from './session-log.ts';
import type { SurfaceWriter } from './surface-writers.ts';
import type { CarrierReply } from './next-turn.ts';
import { UsageWatch } from './usage-watch.ts';
import { BudgetAsks } from './budget-asks.ts';

export type { HookReply, PendingHold } from './holds.ts';
export type { Timers } from './core.ts';
export type { SurfaceWriter } from './surface-writers.ts';
export { DEFAULT_ATTENTION_TIMEOUT_MS } from './hold-lifecycle.ts';
export { RESPOND } from './hello.ts';
export type { DaemonOptions, HookInput } from './options.ts';

export class Daemon {
  readonly vendor: string;
  readonly epoch: number;
  readonly logDir: string;
  readonly log: SessionLog;
  readonly mapper: Mapper;
  /** Commands this daemon declares in its hello (AEP-0004 §4.2: authoritative). */
  readonly accepts: string[];
  private readonly d: Descriptor;
  private readonly core: DaemonCore;
  private readonly holds: HoldLifecycle;
  /** What leaves this daemon as text goes through it. */
  readonly redactor: Redactor;
  private readonly commands: CommandProtocol;
  private readonly calls: ModelCalls;
  private readonly release: () => void;
  private readonly decider: Decider;
  /** `hookmap up --capture`: the hello advertises what the raised ceiling lets out. */
  private readonly captureAtLeast?: DaemonOptions['capture'];
  /** Token usage from the agent's transcript, when the descriptor names one. */
  readonly usage?: UsageWatch;
  private readonly budgetAsks?: BudgetAsks;
  private readonly waiting: WaitingSigns;
  /** Take the agent's log folder (lock), bump its epoch, open its logs. */
  static open(opts: DaemonOptions): Daemon {
    return new Daemon(opts, claimFolder(opts.logDir, opts.descriptor.vendor));
  }

  /** open, its epoch flushed off the main thread (`up` flushes every daemon's at once); nothing is emitted before it is durable. */
  static async start(opts: DaemonOptions): Promise<Daemon> {
    return new Daemon(opts, await claimFolder(opts.logDir, opts.descriptor.vendor, true));
  }

  private constructor(opts: DaemonOptions, claim: Claim) {
    const d = (this.d = opts.descriptor);
    this.vendor = d.vendor;
    this.captureAtLeast = opts.capture;
    this.logDir = opts.logDir;
    const say = opts.say ?? (() => {});
    const now = opts.now ?? Date.now;
    const host = opts.host ?? sourceHost();
    this.log = new SessionLog(this.logDir, { durability: opts.durability });
    ({ release: this.release, epoch: this.epoch } = claim);
    const redactor = (this.redactor = new Redactor({ ...opts.redaction, secretNames: [...d.capture.secretNames, ...(opts.redaction?.secretNames ?? [])] }));
    this.mapper = new Mapper(d, {
      state: new EngineState(new DurableSeq(this.epoch, this.log), { history: (s) => this.log.sessionHistory(s) }),
      host,
      redactor,
      config: opts.config,
      optionVars: opts.optionVars,
      now,
      captureAtLeast: opts.capture,
      projects: opts.projects,
    });
    const events = new LifecycleEvents(this.mapper, host, redactor);
    // the one resolved options object (descriptor, HOOKMAP_<AGENT>_<KEY>, overrides): decisions see $config as the mapping did
    const config = this.mapper.effectiveConfig;
    this.core = new DaemonCore({ d, mapper: this.mapper, events, log: this.log, serial: new Serial(), timers: opts.timers ?? realTimers, now, say, config });
    this.waiting = new WaitingSigns(this.core, this.mapper);
    this.holds = new HoldLifecycle(this.core, this.logDir, opts); // its timeout, onHold, rules, people and project labels
    this.accepts = acceptedCommands(d, (key) => this.mapper.configValue(key));
    this.commands = new CommandProtocol(this.core, this.holds, this.accepts);
    this.calls = new ModelCalls(this.core, this.holds, this.commands);
    if (opts.onEvent) this.core.onLogged(opts.onEvent);
    if (opts.budgets?.add) this.core.onLogged((ev) => opts.budgets!.add!(ev)); // spend known as it is logged, not once the relay echoes it
    this.budgetAsks = opts.budgets && new BudgetAsks(this.core, this.holds, opts.budgets);
    const [queue, policy, budgets, budgetAsks] = [this.commands.queue, opts.policy ?? (() => undefined), opts.budgets, this.budgetAsks];
    this.decider = makeDecider({ vendor: d.vendor, queue, policy, budgets, budgetAsks, budgetCancels: !canBlockToolCalls(d), now, say });
    this.core.blockingRule = (hook) => blockRuleFor(opts.policy?.(), d.vendor, hook)?.id;
    if (d.transcript)
      this.usage = new UsageWatch(this.core, d.transcript, this.logDir, {
        home: opts.userHome,
        prices: opts.prices,
        onRead: opts.onUsageRead,
        atToolCalls: opts.budgets !== undefined,
      });
    this.holds.start();
  }

  /** The hello capabilities of this daemon's relay connection (AEP-0003 §4). */
  capabilities = (): Record<string, unknown> => helloCapabilities(this.d, this.accepts, this.captureAtLeast);

  /** The opt-in options of this agent as it runs (what `up` prints beside its surface). */
  optIns(): ReturnType<typeof optInStates> {
    return optInStates(this.d, (key) => this.mapper.configValue(key));
  }

  /** Every descriptor option in effect (value, default, variable): `up` prints them. */
  options(): ReturnType<typeof optionStates> {
    return optionStates(this.d, (key) => this.mapper.configValue(key));
  }

  /** Carry events over `link`; `control` says answers can arrive over it (an authenticated relay). */
  attach(link: EventLink, control: boolean): void {
    this.core.link = link;
    this.core.control = control;
  }

  /** Connect to a relay as an AEP emitter (hello, outbox, reconnect). */
  connectRelay(url: string, token?: string | (() => string | undefined), o: { tls?: TlsFiles; dial?: Dial } = {}): RelayLink {
    const link = openRelayLink(this.core, {
      url,
      token,
      tls: o.tls,
      dial: o.dial,
      capabilities: this.capabilities(),
      logDir: this.logDir,
      onCommand: (cmd, raw, by) => void this.onCommand(cmd, raw, by),
      onReady: () => this.holds.reclaim(),
    });
    this.attach(link, Boolean(typeof token === 'function' ? token() : token));
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
    return this.core.link?.ready ?? false;
  }
  get controlOn(): boolean {
    return this.core.control;
  }

  pending(): PendingHold[] {
    return this.holds.all();
  }

  /** Resolves once everything queued so far (firings, commands, expired timers) has been handled. */
  flush(): Promise<void> {
    return this.core.serial.run(() => undefined);
  }

  // --- a hook firing --------------------------------------------------------------
  async handle(inp: HookInput): Promise<HookReply> {
    // stopping: the agent still gets its neutral bytes, coded, since nothing was recorded
    if (this.core.closed) return { ...this.core.unansweredReply(inp.hook, inp.surface), error: 'daemon-stopping' };
    if (this.budgetAsks && this.usage?.busy) await this.usage.idle(); // budgets: a transcript read under way counts first (at most 2 s)
    const out = await this.core.serial.run(async (): Promise<{ reply: HookReply; held?: Promise<HookReply>; after?: () => void }> => {
      const read: { payload?: unknown } = { payload: inp.payload };
      let mapped = false;
      try {
        const payload = readPayload(inp, read);
        // one pass: the mapper identifies the firing once (hook, session, run) and closes the requests held in a session it ends
        mapped = true;
        const result = await this.mapper.map(inp.hook, payload, inp.surface, { decide: this.decider, open: (s) => this.holds.openIn(s), wellFormed: true });
        mapped = false;
        // on disk before the request is logged: a crash between the two never leaves a request nobody closes
        const request = this.core.control ? result.hold?.request : undefined;
        if (request) await this.holds.route(result); // its people stamped before anyone sees it (approvals.ts)
        if (request) this.holds.persist(request, this.holds.timeoutFor(result.hold!.timeoutMs));
        const { invalid } = this.core.publishChecked(result.events);
        // AEP-0002 §7 rule 2: the firing's own events closed the requests held there; their hooks get the neutral bytes
        if (result.endsSession && result.session !== undefined) this.holds.releaseClosed(result.session, result.events, result.hook);
        // a decided reply went out with its audit events logged: it stands (the failing event is logged as invalid_event)
        if (invalid && !result.decided) {
          if (request) this.holds.unpersist(request.id);
          return { reply: { ...this.core.unansweredReply(result.hook, inp.surface), error: 'invalid-event' } };
        }
        if (result.session !== undefined) this.commands.noteEnded(result.session, result.events);
        await this.waiting.fired(result, payload, inp.surface); // beside the mapping: the agent shows its own dialog (docs/watch.md)
        if (result.decided) this.core.say(`${result.hook} reply carries ${result.decided} (session ${result.session})`);
        if (inp.writer && result.session) this.commands.writers.bind(result.session, inp.writer);
        const neutral = this.core.reply(result.reply, result.exitCode, result.stream);
        if (result.decided) neutral.decided = result.decided;
        if (result.settle) this.holds.settle(result.settle, result);
        const after = this.usage && (() => this.usage!.after(result.hook, payload, result.session, result.events));
        // under a launch's gate a hold nobody allowed (timed out, hung up, nobody to answer) refuses: the agent asks nothing itself
        const unanswered = result.hold && (this.core.gateReply(result.hook, inp.surface) ?? neutral);
        if (result.hold) return { reply: neutral, held: (await this.holds.open(result, unanswered!, inp.signal)).wait, after };
        const asked = this.budgetAsks?.take(result); // a budget at its cap asks a person (at_cap: ask): held like a request
        return { reply: neutral, held: asked && this.budgetAsks!.hold(asked, payload, inp.signal), after };
      } catch (err) {
        return { reply: await this.core.diagnose(err, read.payload, inp.hook, inp.surface, mapped) };
      }
    });
    const reply = await (out.held ?? out.reply);
    out.after?.(); // the transcript is read once the agent has its reply, never before
    return durableReply(this.log, reply, this.core.say);
  }

  /** A next-turn waiter (POST /next-turn/<agent>, next-turn.ts): the text once an instruction can wake the idle session, else neutral; its ack. */
  async waitNextTurn(inp: HookInput): Promise<CarrierReply> {
    const payload = this.commands.payloadOf(inp);
    return (await this.core.serial.run(async () => ({ p: this.commands.waitNextTurn(await this.core.sessionOf(payload, undefined), inp.signal, payload) }))).p;
  }
  ackNextTurn = (t: string, took = true): Promise<boolean> => this.core.serial.run(() => this.commands.nextTurn?.[took ? 'acknowledge' : 'refuse'](t) ?? false);

  /** The neutral reply of `hook` (the descriptor default when the hook is unknown or absent). */
  neutralReply(hook: string | undefined): HookReply {
    return this.core.neutralReply(hook);
  }

  /** A problem a surface saw in the agent's own traffic (a line that is not JSON, one too long): one diagnostic event. */
  problem(code: string, message: string): void {
    this.core.problem(code, message);
  }

  // --- commands, surface writers, model-fired calls (their units) ---------------------
  /**
   * A routed command. `by` is the sender's authenticated name as the relay
   * stamped it beside the command (engine/runtime/relay/socket.ts ROUTED_FRAME), the
   * only name `attention.answered.by` ever carries; the command's own `agent`
   * is self-asserted (AEP-0004 §8) and never used for attribution.
   */
  onCommand(cmd: AepEvent, _raw?: string, by?: string): Promise<void> {
    return this.core.serial.run(() => this.commands.command(cmd, by));
  }

  /** A surface connection ended: it carries nothing any more. */
  forgetWriter(w: SurfaceWriter): void {
    this.commands.writers.forget(w);
  }

  /** The live writer of a session, if any (tests, doctor). */
  writerOf(session: string): SurfaceWriter | undefined {
    return this.commands.writers.get(session);
  }

  /** ask_human (hookmap mcp): held like a hook; resolves to the JSON the MCP server returns to the model. */
  ask(req: AskRequest, signal?: AbortSignal): Promise<string> {
    return this.calls.ask(req, signal);
  }

  /** emit_event (hookmap mcp): one model-authored event in the agent's session. */
  emitFromTool(req: EmitRequest): Promise<AepEvent> {
    return this.calls.emitFromTool(req);
  }

  /** Free every held hook (dismissed, neutral bytes), close the link and the logs, release the lock. */
  async close(): Promise<void> {
    const { core } = this;
    if (core.closed) return;
    await core.serial.run(() => {
      core.closed = true;
      this.waiting.close();
      for (const h of this.holds.all()) this.holds.dismiss(h, h.id, 'the daemon is stopping');
      this.commands.dropQueued();
    });
    await core.link?.close();
    this.log.close();
    this.release();
  }
}
