// Model-fired calls through the running daemon (hookmap mcp; AEP-0001 §9,
// the AEP reference's aep-mcp design): `ask_human` raises attention.requested
// in the agent's session and holds like a hook (hold-lifecycle.ts) until it
// is answered, times out, or the caller hangs up; `emit_event` appends one
// model-authored event through the daemon's own envelope path. The session a
// call belongs to is named, or found from the agent's own announcement of
// the tool call (SessionHints, fed by every logged event).
import type { AepEvent } from '../../core/map/envelope.ts';
import {
  ASK_HOOK,
  AskError,
  askResult,
  askRule,
  DEFAULT_ASK_TIMEOUT_MS,
  optionIds,
  SessionHints,
  UNANSWERED,
  type AskRequest,
  type EmitRequest,
} from './asks.ts';
import type { CommandProtocol } from './commands.ts';
import type { DaemonCore } from './core.ts';
import type { HoldLifecycle } from './hold-lifecycle.ts';
import type { HookReply } from './holds.ts';
import { TYPE } from '../../core/kernel/lifecycle.ts';

export class ModelCalls {
  /** Which session a model-fired tool call belongs to. */
  private readonly hints = new SessionHints();

  constructor(
    private readonly core: DaemonCore,
    private readonly holds: HoldLifecycle,
    private readonly commands: CommandProtocol,
  ) {
    core.onLogged((ev) => this.noteHint(ev));
  }

  private noteHint(ev: AepEvent): void {
    if (typeof ev.session !== 'string') return;
    const at = this.core.now();
    if (ev.type === TYPE.sessionEnded) return this.hints.ended(ev.session);
    this.hints.noteActive(ev.session, at);
    if (ev.type === TYPE.toolRequested && typeof ev.subject === 'string') this.hints.noteTool(ev.subject, ev.session, at);
  }

  /** The session a model-fired call belongs to: named, or found from the agent's own announcement of the call. */
  private toolSession(session: string | undefined, tool: string | undefined, suffix: string): string {
    const { core } = this;
    const s = session ?? this.hints.resolve(tool, suffix, core.now());
    if (s === undefined)
      throw new AskError(
        'no-session',
        `no session of ${core.vendor} announced ${tool ?? suffix} lately and more than one (or ` +
          `none) is active: pass the session (hookmap mcp --session, or HOOKMAP_SESSION)`,
        409,
      );
    if (this.commands.hasEnded(s)) throw new AskError('session-ended', `session ${s} has ended`, 409);
    if (!core.mapper.state.has(s)) throw new AskError('unknown-session', `this ${core.vendor} daemon has seen no firing of session ${s}`, 404);
    return s;
  }

  /**
   * ask_human: attention.requested in the agent's session (kind input, the
   * question as its prompt, the options as 1..n), held like a hook until a
   * control.attention.respond answers it, it times out, or the caller hangs up.
   * Resolves to the JSON the MCP server returns to the model.
   */
  async ask(req: AskRequest, signal?: AbortSignal): Promise<string> {
    const { core } = this;
    if (core.closed) throw new AskError('daemon-stopping', 'the daemon is stopping', 503);
    // the hold is returned wrapped: awaiting it inside the serial queue would stall every firing behind it
    const out = await core.serial.run(async (): Promise<{ id: string; held: Promise<HookReply> }> => {
      const session = this.toolSession(req.session, req.tool, 'ask_human');
      if (!core.control) throw new AskError('control-off', `nobody can answer: control is off (start hookmap up with a token)`, 409);
      const options = optionIds(req.options);
      const request = core.events.make({
        type: TYPE.attentionRequested,
        session,
        run: core.mapper.openRun(session),
        data: { kind: 'input', prompt: req.question, ...(options.length ? { options } : {}), respond_via: ['control'] },
      });
      this.holds.persist(request);
      const { invalid } = core.publishChecked([request]);
      if (invalid) {
        this.holds.unpersist(request.id);
        throw new AskError('invalid-event', 'the attention request failed its schema check (logged as invalid_event)', 500);
      }
      core.say(`ask_human ${request.id} raised in session ${session}${options.length ? ` (${options.length} options)` : ''}`);
      const neutral = { body: UNANSWERED, exit: 0, contentType: 'application/json' };
      return {
        id: request.id,
        held: this.holds.hold(
          {
            kind: 'permission',
            hook: ASK_HOOK,
            session,
            rule: askRule(options),
            request,
            payload: { options },
            neutral,
            timeoutMs: req.timeoutMs ?? DEFAULT_ASK_TIMEOUT_MS,
          },
          signal,
        ),
      };
    });
    const reply = await out.held;
    const why = reply.body === UNANSWERED ? this.holds.howEnded(out.id) : undefined;
    return askResult(reply.body, out.id, why);
  }

  /** emit_event: one model-authored event in the agent's session, through the daemon's own envelope path. */
  async emitFromTool(req: EmitRequest): Promise<AepEvent> {
    const { core } = this;
    if (core.closed) throw new AskError('daemon-stopping', 'the daemon is stopping', 503);
    return core.serial.run(() => {
      const session = this.toolSession(req.session, req.tool, 'emit_event');
      let ev: AepEvent;
      try {
        ev = core.events.make({
          type: req.type,
          session,
          run: core.mapper.openRun(session),
          subject: req.subject,
          severity: req.severity,
          data: req.data ?? {},
        });
      } catch (e) {
        throw new AskError('invalid-event', (e as Error).message.replace(/^daemon built/, 'the event is'));
      }
      const { invalid } = core.publishChecked([ev]);
      if (invalid)
        throw new AskError('invalid-event', `the ${req.type} event failed its schema check (logged as x.hookmap.error.invalid_event at its position)`);
      core.say(`emit_event ${req.type} ${ev.id} in session ${session}`);
      return ev;
    });
  }
}
