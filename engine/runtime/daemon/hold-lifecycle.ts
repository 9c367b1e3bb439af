// The life of a held request (AEP-0002 §5.3, §7; AEP-0004 §5): on disk
// before its attention.requested is logged (a daemon killed mid-hold closes
// it at its next start), then exactly one terminal: answered (a routed
// control.attention.respond, rendered by engine/core/map/decide.ts), timed out
// (the hold fails open: neutral bytes, the agent's own dialog decides),
// dismissed (a settling hook came first, the session ended, the agent hung
// up, a delivered cancel answered it, the daemon stopped) or settled out of
// band. The command protocol (commands.ts) decides whether an answer is
// accepted; this unit turns it into bytes and events and frees the hook.
import { holdWindowMaxMs } from '../shim/plan.mjs';
import type { FormFieldSpec } from '../../core/capture/gate.ts';
import { captureRank } from '../../core/aep/schemas.ts';
import type { OutcomeDraft } from '../../core/map/decide.ts';
import type { Answered } from './hold-render.ts';
import { shaped } from '../../core/map/reply-shape.ts';
import { TIMEOUT_SHAPE } from '../../core/descriptor/reply-shape.ts';
import type { AepEvent } from '../../core/map/envelope.ts';
import type { MapResult } from '../../core/map/mapper.ts';
import type { OptionView } from './answer.ts';
import type { DaemonCore } from './core.ts';
import { HoldTable, type HookReply, type PendingHold, type Terminal } from './holds.ts';
import { OpenHoldFile } from './open-holds.ts';
import { effectsOf } from '../../core/kernel/option-effects.ts';
import { decideByRules, ruleRecord, type AnswerRules } from './rule-answer.ts';
import { routeHold, type Ruled } from './approvals.ts';
import type { People } from '../auth/people.ts';
import type { ProjectLabels } from '../../core/capture/project.ts';
import { answerByRule } from './rule-hold.ts';
import { DEFAULT_ATTENTION_TIMEOUT_MS } from '../../core/config/defaults.ts';
import { TYPE } from '../../core/kernel/lifecycle.ts';

export { DEFAULT_ATTENTION_TIMEOUT_MS } from '../../core/config/defaults.ts';

export interface HoldOptions {
  /**
   * Hold timeout for every hold of this agent (flag, config file, HOOKMAP_ATTENTION_TIMEOUT_MS: resolved at the
   * CLI edge); default: the hold's timeout_ms, else 55 s.
   */
  attentionTimeoutMs?: number;
  /** A hold opened (tests, the fixture runner). */
  onHold?: (hold: PendingHold) => void;
  /** Rules that may answer a held request before a human is asked (docs/rules.md). */
  rules?: AnswerRules;
  /** People (engine/runtime/auth/people.ts): a request is routed to its approvers before it is published (approvals.ts). */
  people?: People;
  /** The project labels a request's people are routed by. */
  projects?: ProjectLabels;
}

type HoldParts = Pick<PendingHold, 'kind' | 'hook' | 'session' | 'key' | 'rule' | 'request' | 'payload' | 'neutral' | 'timeoutMs'>;

export class HoldLifecycle {
  private readonly table = new HoldTable();
  private readonly file: OpenHoldFile;
  /** The rules' decision of a request routed before it was published (routeHold): open() asks the rules once. */
  private readonly routed = new Map<string, Ruled>();

  constructor(
    private readonly core: DaemonCore,
    logDir: string,
    private readonly opts: HoldOptions,
  ) {
    this.file = new OpenHoldFile(logDir);
  }

  get size(): number {
    return this.table.size;
  }

  /** The rule book holds are answered by (door.ts saves an "Allow always" in it). */
  get rules(): AnswerRules | undefined {
    return this.opts.rules;
  }
  get people(): People | undefined {
    return this.opts.people;
  }
  get(id: string): PendingHold | undefined {
    return this.table.get(id);
  }
  all(): PendingHold[] {
    return this.table.all();
  }
  inSession(session: string): PendingHold[] {
    return this.table.inSession(session);
  }
  howEnded(id: string): Terminal | undefined {
    return this.table.howEnded(id);
  }

  /** At the daemon's start: requests a killed predecessor was holding get their terminal now; a timeout the agent would outlast is said. */
  start(): void {
    const { core } = this;
    for (const request of this.file.takeOrphans()) {
      const ended = core.events.resolved(request, request.id, 'dismissed', Math.max(0, core.now() - Date.parse(request.time)));
      core.publish([ended]);
      core.say(`hold ${request.id} (session ${request.session}) was open when the previous daemon died: closed as dismissed`);
    }
    const t = this.opts.attentionTimeoutMs;
    if (t !== undefined && t > this.maxWindowMs) {
      core.say(
        `warning: attention timeout ${t} ms is longer than ${core.d.vendor} allows a hook to wait ` +
          `(its hook timeout ${core.d.surface.hookTimeoutMs ?? 'unknown'} ms): holds fail open after ${this.maxWindowMs} ` +
          `ms instead`,
      );
    }
  }

  /** The longest window this agent allows (its own hook timeout, less the shim's margin and grace). */
  get maxWindowMs(): number {
    return holdWindowMaxMs(this.core.d.surface.hookTimeoutMs, this.core.d.shim.marginMs);
  }

  timeoutFor(descriptorMs: number | undefined): number {
    return Math.min(this.opts.attentionTimeoutMs ?? descriptorMs ?? DEFAULT_ATTENTION_TIMEOUT_MS, this.maxWindowMs);
  }

  /** On disk before the request is logged: a crash between the two never leaves a request nobody closes. `expiresAfterMs` stamps its deadline. */
  persist(request: AepEvent, expiresAfterMs?: number): void {
    if (expiresAfterMs !== undefined) stampExpiry(request, expiresAfterMs);
    this.file.add(request);
  }

  /** The request was never logged (it failed its schema check): nothing to close later. */
  unpersist(id: string): void {
    this.file.remove(id);
  }

  /** Before the request is published: route it to its people (approvals.ts); nothing without people. */
  async route(result: MapResult): Promise<void> {
    const hr = result.hold;
    if (!this.opts.people || !hr?.request) return;
    const rule = this.core.d.hooks.get(hr.hook)!.holds[hr.index];
    const o = { kind: hr.kind, hook: hr.hook, session: hr.session, rule, request: hr.request, payload: hr.payload };
    this.routed.set(hr.request.id, await routeHold(this.core, { people: this.opts.people, projects: this.opts.projects }, this.opts.rules, o));
  }

  /**
   * A mapped firing that holds: the rules answer it, or it waits for a human's
   * answer (failing open at once when nobody can answer). `wait` is the hook's reply.
   */
  async open(result: MapResult, neutral: HookReply, signal?: AbortSignal): Promise<{ wait: Promise<HookReply> }> {
    const { core } = this;
    const hr = result.hold!;
    const rule = core.d.hooks.get(hr.hook)!.holds[hr.index];
    const request = hr.request;
    if (!request) {
      core.say(`hold on ${hr.hook} has no ${rule.requestType} event to answer (its emit produced none): answering neutral bytes`);
      return { wait: Promise.resolve(neutral) };
    }
    const o: HoldParts = {
      kind: hr.kind,
      hook: hr.hook,
      session: hr.session,
      key: hr.key,
      rule,
      request,
      payload: hr.payload,
      neutral,
      timeoutMs: this.timeoutFor(hr.timeoutMs),
    };
    const early = this.routed.has(request.id) ? [this.routed.get(request.id)] : undefined;
    this.routed.delete(request.id);
    const ruled = early ? early[0] : o.kind === 'form' || !this.opts.rules ? undefined : await decideByRules(core, this.opts.rules, o);
    if (ruled && (ruled.decision.verb === 'allow' || ruled.decision.verb === 'deny')) {
      const wait = this.hold(o, signal);
      if (await answerByRule(core, this.opts.rules!, this.table.get(request.id)!, ruled.decision, ruled.subject, (...a) => this.answered(...a)))
        return { wait };
      if (core.control) return { wait };
      this.finish(this.table.get(request.id)!, 'timed out', neutral);
      core.publish([core.events.timeout(request, 0)]);
      return { wait };
    }
    const note = ruled && ruleRecord(core, request, ruled.decision, o.hook);
    if (note) core.publish([note]);
    if (!core.control) {
      // Nobody can answer (no relay, or a watch-only one): fail open now, not after the whole window.
      core.publish([core.events.timeout(request, 0)]);
      core.say(`hold ${request.id} (${hr.hook}) failed open at once: control is off (no relay token)`);
      return { wait: Promise.resolve(neutral) };
    }
    return { wait: this.hold(o, signal) };
  }

  /** Register a pending request and wait for its answer, timeout or dismissal (hook holds and model-fired asks). */
  hold(o: HoldParts, signal?: AbortSignal): Promise<HookReply> {
    const { core } = this;
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
          effects: effectsOf(request),
        },
        openedAt: core.now(),
        done: resolve,
      };
      h.timer = core.timers.set(() => void core.serial.run(() => this.expire(h)), o.timeoutMs);
      this.table.add(h);
      if (!this.file.has(request.id)) this.file.add(request);
      signal?.addEventListener('abort', () => void core.serial.run(() => this.dismiss(h, h.id, 'the agent hung up on the held hook')), { once: true });
      this.opts.onHold?.(h);
    });
  }

  finish(h: PendingHold, how: Terminal, reply: HookReply): void {
    if (h.timer !== undefined) this.core.timers.clear(h.timer);
    this.table.close(h, how);
    this.file.remove(h.id);
    h.done(reply);
  }

  private expire(h: PendingHold): void {
    if (this.table.get(h.id) !== h) return;
    this.core.publish([this.core.events.timeout(h.request, h.timeoutMs)]);
    this.core.say(`hold ${h.id} (${h.hook}) timed out after ${h.timeoutMs} ms: its unanswered reply (neutral, or a gate's refusal)`);
    this.finish(h, 'timed out', shaped(h.neutral, h.rule.shapes?.get(TIMEOUT_SHAPE)));
  }

  dismiss(h: PendingHold, cause: string, why: string): void {
    if (this.table.get(h.id) !== h) return;
    this.core.publish([this.core.events.resolved(h.request, cause, 'dismissed', this.core.now() - h.openedAt)]);
    this.core.say(`hold ${h.id} (${h.hook}) dismissed: ${why}`);
    this.finish(h, 'dismissed', h.neutral);
  }

  /** A settling hook (e.g. the tool ran, the elicitation was answered in the agent's UI) frees its hold. */
  settle(s: { key: string; as: 'dismissed' | 'oob'; answer?: Record<string, unknown> }, result: MapResult): void {
    const { core } = this;
    const h = result.session === undefined ? undefined : this.table.byKeyOf(result.session, s.key);
    if (!h) return; // an orphan settle emits nothing: one terminal per request
    const cause = result.events[0]?.id ?? h.id;
    if (s.as === 'dismissed') return this.dismiss(h, cause, `${result.hook} arrived first`);
    const ans = core.events.answered(h.request, cause, s.answer ?? {}, 'oob', undefined, undefined);
    const res = core.events.resolved(h.request, ans.id, 'answered', core.now() - h.openedAt);
    core.publish([ans, res]);
    core.say(`hold ${h.id} (${h.hook}) answered out of band (${result.hook})`);
    this.finish(h, 'settled out of band', h.neutral);
  }

  /** The requests held in a session (id -> run, opened at): a firing that ends the session closes them in its own events. */
  openIn(session: string): [string, { run?: string; at: number }][] {
    return this.table.inSession(session).map((h) => [h.id, { run: h.request.run, at: h.openedAt }]);
  }

  /** AEP-0002 §7 rule 2: the firing that ended `session` closed its held requests (`events`): their hooks get the neutral bytes. */
  releaseClosed(session: string, events: AepEvent[], hook: string): void {
    const closed = new Set(events.filter((e) => e.type === TYPE.attentionResolved).map((e) => e.subject));
    for (const h of this.table.inSession(session)) {
      if (!closed.has(h.id)) continue;
      this.core.say(`hold ${h.id} (${h.hook}) dismissed: ${hook} ends the session`);
      this.finish(h, 'dismissed', h.neutral);
    }
  }

  /** The accepted answer's events (answered, resolved, outcomes), then the hook's reply. */
  answered(h: PendingHold, cmd: AepEvent, it: Answered, by: string | undefined, prepared: { body: string; outcome: OutcomeDraft[] }): void {
    const { core } = this;
    const ans = core.events.answered(h.request, cmd.id, it.applied, 'control', by, h.view.fields as FormFieldSpec[] | undefined);
    const res = core.events.resolved(h.request, ans.id, 'answered', core.now() - h.openedAt);
    h.by = by;
    const outs = prepared.outcome.map((o) => core.events.make({ ...o, cause: o.cause ?? ans.id }));
    core.publish([ans, res, ...outs]);
    core.say(
      `hold ${h.id} (${h.hook}) answered by ${by ?? '(no authenticated sender)'} (command ${cmd.id}): ${it.decision ?? 'no decision template: neutral bytes'}`,
    );
    const shape = it.decision === undefined ? undefined : h.rule.shapes?.get(it.decision);
    this.finish(h, 'answered', { ...shaped(h.neutral, shape), body: prepared.body, contentType: core.contentTypeOf(prepared.body) });
  }

  /** A delivered cancel answered the hold: the request is dismissed, the run cancelled, the hook gets the cancel bytes. */
  cancelled(h: PendingHold, commandId: string, reason: string, run: string, body: string): void {
    const { core } = this;
    const res = core.events.resolved(h.request, commandId, 'dismissed', core.now() - h.openedAt);
    const cancelled = core.events.make({ type: TYPE.runCancelled, session: h.session, run, cause: commandId, data: { by: 'control', reason } });
    core.publish([res, cancelled]);
    core.mapper.closeRun(h.session, run);
    core.say(`hold ${h.id} (${h.hook}) answered with its cancel decision: run ${run} cancelled`);
    this.finish(h, 'dismissed', { ...shaped(h.neutral, h.rule.shapes?.get('cancel')), body, contentType: core.contentTypeOf(body), decided: 'cancel' });
  }

  /** After a (re)connect: the relay learns which sessions we own from their events; re-send each pending request. */
  reclaim(): void {
    for (const h of this.table.all()) this.core.link?.resend(JSON.stringify(h.request));
  }
}

/** AEP-0002 §5.3 `expires_at`: when the hold fails open and the agent's own dialog decides (what a human's countdown shows). */
function stampExpiry(request: AepEvent, timeoutMs: number): void {
  const d = request.data as Record<string, unknown> | undefined;
  const t = Date.parse(request.time);
  if (d && typeof d === 'object' && Number.isFinite(t)) d.expires_at = new Date(t + timeoutMs).toISOString();
}
