// The closed vocabulary of capability ids. A descriptor states each one's
// state; `supported` needs fixture evidence, found by what the fixture shows:
// the event types it produces, or a decision-codec case of a hold kind, or a
// shim script-I/O case. engine/core/capabilities/evidence.ts applies these rules.
import { TYPE } from '../kernel/lifecycle.ts';

export type CapabilityState = 'supported' | 'unsupported' | 'not-implemented' | 'unverified';
export const CAPABILITY_STATES: CapabilityState[] = ['supported', 'unsupported', 'not-implemented', 'unverified'];

export interface CapabilityDef {
  id: string;
  description: string;
  /** Proven by a normalized-event fixture whose expected events include ALL of these types (x.* allowed as 'x.*'). */
  events?: string[];
  /** Or by any one of these. */
  anyEvents?: string[];
  /** Only events whose data fields (top-level) hold one of these values count (telling a permission prompt from a question). */
  match?: Record<string, unknown[]>;
  /** Proven by a decision-codec fixture case for a hold of this kind and answer shape. */
  codec?: { hold: string; answer?: 'option' | 'text' | 'values' | 'timeout' | 'dismissed' };
  /** Proven by shim fixture cases run against a daemon in one of these moods (shim.failOpen: down, hung, error). */
  shim?: { moods: readonly string[] };
  /**
   * Proven by a decisions-kind delivery case (a hook reply carrying a verb):
   * `verb` the verb the reply carried, `command` the command the case sent
   * (a type, or `*.<suffix>` for a vendor-scoped verb); both must hold when both are given.
   */
  delivery?: { verb?: 'context' | 'cancel' | 'block' | 'continue' | 'next-turn'; command?: string };
}

export const CAPABILITIES: CapabilityDef[] = [
  { id: 'observe.sessions', description: 'sessions are observed (their start, or first sight)', anyEvents: [TYPE.sessionStarted, TYPE.sessionEnded] },
  { id: 'observe.sessionEnd', description: 'the end of a session is observed', events: [TYPE.sessionEnded] },
  { id: 'observe.runs', description: 'runs (turns) start and finish', events: [TYPE.runStarted, TYPE.runFinished] },
  { id: 'observe.runFailures', description: 'a failed run is told apart from a finished one', events: [TYPE.runFailed] },
  { id: 'observe.runCancel', description: 'a cancelled/interrupted run is told apart', events: [TYPE.runCancelled] },
  { id: 'observe.steps', description: 'sub-run steps (model invocations, loop turns)', events: [TYPE.runStepStarted] },
  { id: 'observe.tools', description: 'tool calls requested and completed', events: [TYPE.toolRequested, TYPE.toolCompleted] },
  { id: 'observe.toolFailures', description: 'failed tool calls are told apart from completed ones', events: [TYPE.toolFailed] },
  { id: 'observe.toolDenials', description: 'denied tool calls are stated', events: [TYPE.toolDenied] },
  {
    id: 'observe.permissions',
    description: "the agent's permission prompts are visible as attention requests",
    events: [TYPE.attentionRequested],
    match: { kind: ['permission'] },
  },
  {
    id: 'observe.questions',
    description: "the agent's questions to the human are visible as form requests",
    events: [TYPE.attentionRequested],
    match: { kind: ['form', 'input'] },
  },
  { id: 'observe.subagents', description: 'subagent / delegation start and stop', events: [TYPE.delegationSubagentStarted, TYPE.delegationSubagentStopped] },
  { id: 'observe.compaction', description: 'context compaction', events: [TYPE.sessionCompacted] },
  { id: 'observe.tasks', description: 'task / todo plan transitions', anyEvents: [TYPE.progressTaskPlanned, TYPE.progressTaskCompleted] },
  { id: 'observe.status', description: 'notifications / status updates', events: [TYPE.progressStatus] },
  { id: 'observe.vendorExtensions', description: 'hooks without a core mapping land in the x.<vendor>.* namespace', anyEvents: ['x.*'] },
  {
    id: 'decide.permission',
    description: 'a permission prompt is held and answered allow/deny over the relay',
    codec: { hold: 'permission', answer: 'option' },
  },
  {
    id: 'decide.permissionText',
    description: 'free-text guidance reaches the agent as the deny reason (AEP-0008)',
    codec: { hold: 'permission', answer: 'text' },
  },
  { id: 'decide.toolGate', description: 'an opt-in pre-tool gate is held and answered over the relay', codec: { hold: 'gate', answer: 'option' } },
  { id: 'decide.form', description: 'a structured question (form) is held and answered with values (AEP-0006)', codec: { hold: 'form', answer: 'values' } },
  { id: 'decide.timeoutFailOpen', description: "an unanswered hold times out to the agent's own dialog", codec: { hold: '*', answer: 'timeout' } },
  {
    id: 'observe.messages',
    description: 'what the user asked and the agent replied (AEP-0007 message.*, opt-in, text at redacted)',
    anyEvents: ['message.user.submitted', 'message.agent.replied'],
  },
  {
    id: 'decide.block',
    description: "an operator policy rule blocks a moment through the hook's own reply (the model reads the reason)",
    delivery: { verb: 'block' },
  },
  {
    id: 'inject.turnBoundary',
    description: 'the end of a turn can be continued with a reason (the agent keeps going instead of stopping)',
    delivery: { verb: 'continue' },
  },
  {
    id: 'inject.context',
    description: 'context can be added to the next model call (a hook reply carrying additional context)',
    delivery: { verb: 'context' },
  },
  {
    id: 'control.instruct',
    description: "steering: a human's instruction (x.<agent>.control.instruct) reaches the model on the next eligible hook reply",
    delivery: { verb: 'context', command: '*.control.instruct' },
  },
  {
    id: 'inject.nextTurn',
    description:
      'a new turn carrying the text can be started once the current one is over (a next-turn carrier): ' +
      'an idle session is reached; `hookmap steer` picks it when no turn runs',
    delivery: { verb: 'next-turn', command: '*.control.instruct' },
  },
  { id: TYPE.controlCancel, description: 'a run can be cancelled over the relay (control.cancel)', delivery: { command: TYPE.controlCancel } },
  { id: 'shim.failOpen', description: 'the shim answers neutral bytes when the daemon is down, hung or erroring', shim: { moods: ['down', 'hung', 'error'] } },
];

export const CAPABILITY_BY_ID = new Map(CAPABILITIES.map((c) => [c.id, c]));
