// The model-fired emit path (AEP-0001 §9; the AEP reference's aep-mcp design,
// docs/components/aep-mcp.md): what `hookmap mcp` asks the running daemon to
// do for a tool the model called. `ask_human` raises attention.requested
// (kind input, or permission with the question's options) in the agent's
// session and holds until a control.attention.respond answers it or it times
// out; `emit_event` appends one model-authored event. Both go through the
// daemon, so their envelopes are the daemon's own (same session log, same
// (epoch, seq), same capture gate and redaction): identical by construction.
//
// The ask is a hold like a hook's, with a rule built here instead of read
// from a descriptor: its reply is JSON for the MCP server, never bytes for an
// agent's hook. No `$name` of the descriptor is bound in it.
import { REGISTRY_BY_TYPE, TYPE_PATTERN, type Severity } from '../../core/aep/schemas.ts';
import type { CompiledHold } from '../../core/descriptor/types.ts';
import type { Interpretation } from './answer.ts';
import type { PendingHold } from './holds.ts';
import { tryCompile, isFailure, type Expr } from '../../core/expr/compile.ts';
import { TYPE } from '../../core/kernel/lifecycle.ts';

const SEVERITIES: Severity[] = ['debug', 'info', 'notice', 'warning', 'error', 'critical'];

/** The hold's pseudo hook name (never a descriptor hook: `@` is not in any agent's hook names). */
export const ASK_HOOK = '@ask_human';

export type AskErrorCode =
  | 'bad-request'
  | 'unknown-session'
  | 'no-session'
  | 'session-ended'
  | 'control-off'
  | 'control-refused'
  | 'reserved-type'
  | 'foreign-namespace'
  | 'invalid-type'
  | 'invalid-event'
  | 'daemon-stopping';

export class AskError extends Error {
  constructor(
    readonly code: AskErrorCode,
    message: string,
    readonly status = 400,
  ) {
    super(message);
  }
}

export interface AskRequest {
  /** The agent's session; absent: the session that just requested this tool (see SessionHints). */
  session?: string;
  /** The MCP tool name the agent used (mcp__<server>__ask_human), a hint for finding the session. */
  tool?: string;
  question: string;
  /** Offered answers (labels); the human may still answer with free text. */
  options?: string[];
  timeoutMs?: number;
}

export interface EmitRequest {
  session?: string;
  tool?: string;
  type: string;
  data?: Record<string, unknown>;
  subject?: string;
  severity?: Severity;
}

export const MAX_QUESTION = 4_000;
export const MAX_OPTIONS = 20;
export const DEFAULT_ASK_TIMEOUT_MS = 300_000;
export const MAX_ASK_TIMEOUT_MS = 3_600_000;

const isObj = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

export function parseAsk(body: unknown): AskRequest {
  if (!isObj(body)) throw new AskError('bad-request', 'the body is a JSON object: { question, options?, session?, tool?, timeout_ms? }');
  const { question, options, session, tool, timeout_ms } = body;
  if (typeof question !== 'string' || question.trim() === '') throw new AskError('bad-request', '`question` is a non-empty string');
  if (question.length > MAX_QUESTION) throw new AskError('bad-request', `\`question\` is ${question.length} characters (at most ${MAX_QUESTION})`);
  if (
    options !== undefined &&
    (!Array.isArray(options) || options.length > MAX_OPTIONS || !options.every((o) => typeof o === 'string' && o.trim() !== '' && o.length <= 200))
  )
    throw new AskError('bad-request', `\`options\` is a list of at most ${MAX_OPTIONS} non-empty strings (200 characters each)`);
  if (options && new Set(options.map((o) => o.trim().toLowerCase())).size !== options.length) throw new AskError('bad-request', '`options` repeat a label');
  if (session !== undefined && (typeof session !== 'string' || session === '' || session.length > 512))
    throw new AskError('bad-request', '`session` is a session id');
  if (tool !== undefined && (typeof tool !== 'string' || tool.length > 200)) throw new AskError('bad-request', '`tool` is the MCP tool name');
  if (timeout_ms !== undefined && (!Number.isSafeInteger(timeout_ms) || (timeout_ms as number) < 1_000 || (timeout_ms as number) > MAX_ASK_TIMEOUT_MS))
    throw new AskError('bad-request', `\`timeout_ms\` is an integer from 1000 to ${MAX_ASK_TIMEOUT_MS}`);
  return {
    question,
    options: options as string[] | undefined,
    session: session as string | undefined,
    tool: tool as string | undefined,
    timeoutMs: timeout_ms as number | undefined,
  };
}

export function parseEmit(body: unknown, vendor: string): EmitRequest {
  if (!isObj(body)) throw new AskError('bad-request', 'the body is a JSON object: { type, data?, subject?, severity?, session?, tool? }');
  const { type, data, subject, severity, session, tool } = body;
  if (typeof type !== 'string' || !TYPE_PATTERN.test(type)) throw new AskError('invalid-type', `\`type\` ${JSON.stringify(type)} is not an AEP event type`);
  // commands are never emitted by a model: control flows only from authenticated senders (AEP-0004 §4.1)
  if (type.startsWith('control.') || /^x\.[^.]+\.control\./.test(type))
    throw new AskError('control-refused', `${type} is a command: emit_event never sends control.*`);
  // the daemon owns the lifecycles: a model-fired session/run/attention event would forge them
  if (/^(session|run|attention)\./.test(type))
    throw new AskError('reserved-type', `${type}: session.*, run.* and attention.* are the daemon's own lifecycle; emit_event does not forge them`);
  if (type.startsWith('x.') && type.split('.')[1] !== vendor)
    throw new AskError('foreign-namespace', `${type} is outside this agent's namespace x.${vendor}.*`);
  if (!type.startsWith('x.') && !REGISTRY_BY_TYPE.has(type))
    throw new AskError('invalid-type', `${type} is not a registered AEP type (use x.${vendor}.<name> for your own)`);
  if (data !== undefined && !isObj(data)) throw new AskError('bad-request', '`data` is a JSON object');
  if (subject !== undefined && (typeof subject !== 'string' || subject.length > 512)) throw new AskError('bad-request', '`subject` is a string');
  if (severity !== undefined && !SEVERITIES.includes(severity as Severity))
    throw new AskError('bad-request', `\`severity\` is one of ${SEVERITIES.join(', ')}`);
  if (session !== undefined && (typeof session !== 'string' || session === '' || session.length > 512))
    throw new AskError('bad-request', '`session` is a session id');
  if (tool !== undefined && (typeof tool !== 'string' || tool.length > 200)) throw new AskError('bad-request', '`tool` is the MCP tool name');
  return {
    type,
    data: data as Record<string, unknown> | undefined,
    subject: subject as string | undefined,
    severity: severity as EmitRequest['severity'],
    session: session as string | undefined,
    tool: tool as string | undefined,
  };
}

/** The option ids of an ask: `1`..`n`, the human's labels beside them (the AEP-0006 structural ids). */
export const optionIds = (options: string[] | undefined): { id: string; label: string }[] => (options ?? []).map((label, i) => ({ id: String(i + 1), label }));

let answered: Expr | undefined;

/** The ask's hold rule: every option and free text answer with the same JSON; no outcome events. */
export function askRule(options: { id: string }[]): CompiledHold {
  if (!answered) {
    const c = tryCompile('{ "status": "answered", "option": $option, "label": $label, "text": $text }', ['ask_human']);
    if (isFailure(c)) throw new Error(`the ask_human reply template does not compile: ${c.message}`);
    answered = c;
  }
  const decisions = new Map<string, Expr>([['text', answered]]);
  for (const o of options) decisions.set(o.id, answered);
  return { kind: 'permission', timeoutMs: undefined, decisions, requestType: TYPE.attentionRequested, outcome: [] } as unknown as CompiledHold;
}

/** The hold's neutral reply: nobody answered (timeout, dismissal, daemon stopping). */
export const UNANSWERED = '{"status":"unanswered"}';

/** What the MCP server reads: the answer (or why there is none) with the attention request's id. */
export function askResult(body: string, requestId: string, why: string | undefined): string {
  let v: Record<string, unknown>;
  try {
    v = JSON.parse(body);
  } catch {
    v = { status: 'unanswered' };
  }
  for (const k of Object.keys(v)) if (v[k] === undefined || v[k] === null) delete v[k];
  return JSON.stringify({ ...v, request_id: requestId, ...(v.status === 'unanswered' ? { why: why ?? 'no answer' } : {}) });
}

/**
 * Which session a tool call belongs to when the MCP server cannot say: the
 * session whose latest tool.requested named this tool (the agent announces
 * the call on its pre-tool hook just before the MCP server sees it), else the
 * one session active lately. Bounded; session ids only, no content.
 */
export class SessionHints {
  private readonly byTool = new Map<string, { session: string; at: number }>();
  private readonly active = new Map<string, number>();

  constructor(private readonly max = 1_000) {}

  noteTool(tool: string, session: string, at: number): void {
    this.byTool.delete(tool);
    this.byTool.set(tool, { session, at });
    while (this.byTool.size > this.max) this.byTool.delete(this.byTool.keys().next().value as string);
  }

  noteActive(session: string, at: number): void {
    this.active.delete(session);
    this.active.set(session, at);
    while (this.active.size > this.max) this.active.delete(this.active.keys().next().value as string);
  }

  ended(session: string): void {
    this.active.delete(session);
  }

  /**
   * The session for a call of `tool` at `now`. Suffix match over the names
   * agents give MCP tools: `mcp__hookmap__ask_human` (double underscores),
   * `hookmap.ask_human`, and `mcp_hookmap_ask_human` (single underscores,
   * then only with the `mcp_` prefix, so a tool merely ending in the word is
   * no match).
   */
  resolve(tool: string | undefined, suffix: string, now: number, windowMs = 120_000): string | undefined {
    let best: { session: string; at: number } | undefined;
    for (const [name, v] of this.byTool) {
      const match =
        tool !== undefined
          ? name === tool
          : name === suffix || name.endsWith(`__${suffix}`) || name.endsWith(`.${suffix}`) || (name.startsWith('mcp_') && name.endsWith(`_${suffix}`));
      if (match && now - v.at <= windowMs && (!best || v.at > best.at)) best = v;
    }
    if (best) return best.session;
    const recent = [...this.active].filter(([, at]) => now - at <= 10 * 60_000);
    return recent.length === 1 ? recent[0][0] : undefined;
  }
}

/** The bindings of an ask's reply: the applied option with its label, the free text. */
export function askBindings(h: PendingHold, it: Extract<Interpretation, { ok: true }>): Record<string, unknown> {
  const options = (h.payload as { options?: { id: string; label: string }[] }).options ?? [];
  const label = it.applied.option === undefined ? undefined : options.find((o) => o.id === it.applied.option)?.label;
  return { option: it.applied.option, label, text: it.applied.text };
}
