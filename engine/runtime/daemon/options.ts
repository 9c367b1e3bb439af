// What a daemon is opened with (DaemonOptions) and what one hook firing
// brings to it (HookInput): the daemon's interface to its callers (the HTTP
// routes, the surfaces, hookmap up/serve/record, the fixture runners).
import type { CaptureLevel } from '../../core/aep/schemas.ts';
import type { ProjectLabels } from '../../core/capture/project.ts';
import type { People } from '../auth/people.ts';
import type { RedactionSettings } from '../../core/capture/redact.ts';
import type { Descriptor } from '../../core/descriptor/types.ts';
import type { AepEvent } from '../../core/map/envelope.ts';
import { MapError } from '../../core/map/mapper.ts';
import { MAX_PAYLOAD_DEPTH, nestsDeeperThan, wellFormedDeep } from '../../core/io/well-formed.ts';
import type { Policy } from '../policy/policy.ts';
import type { BudgetGate } from '../usage/budgets.ts';
import type { PriceBook } from '../usage/prices.ts';
import type { AnswerRules } from './rule-answer.ts';
import type { Timers } from './core.ts';
import type { HookReply, PendingHold } from './holds.ts';
import type { Durability, SessionLog } from './session-log.ts';
import type { SurfaceWriter } from './surface-writers.ts';

export interface DaemonOptions {
  descriptor: Descriptor;
  /** Per-agent log folder ($HOOKMAP_HOME/logs/<agent>: paths.ts agentLogDir). */
  logDir: string;
  /** The host in every event's source URI (HOOKMAP_HOST_ID; default the hostname). */
  host?: string;
  /** Descriptor config overrides. */
  config?: Record<string, unknown>;
  /** HOOKMAP_<AGENT>_<KEY> values by variable name (RuntimeConfig.options): the mapper resolves $config once, decisions read the same. */
  optionVars?: Readonly<Record<string, string>>;
  /** Operator redaction settings (HOOKMAP_SECRET_NAMES / HOOKMAP_REDACT_PII and the environment holding the values). */
  redaction?: RedactionSettings;
  /** Hold timeout for every hold of this agent (flag, config, HOOKMAP_ATTENTION_TIMEOUT_MS); default: the hold's timeout_ms, else 55 s. */
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
  /** Rules that answer held requests (the learned rules and the policy's allow/deny/ask: engine/runtime/policy/rulebook.ts). */
  rules?: AnswerRules;
  /** Named people: who a held request is routed to, who may answer it, where two must allow (engine/runtime/auth/people.ts). */
  people?: People;
  /** The operator's policy in force (hookmap up --policy; swappable while running). */
  policy?: () => Policy | undefined;
  /** Spending caps at their limit refuse the next tool call (engine/runtime/usage/budgets.ts; `up` reads them off the stream). */
  budgets?: BudgetGate;
  /** Every type's ceiling at least this (`hookmap up --capture`). */
  capture?: CaptureLevel;
  /** The project label session.started carries (engine/core/capture/project.ts). */
  projects?: ProjectLabels;
  /** The user's home (`~/` in the descriptor's transcript folders; default the OS's). */
  userHome?: string;
  /** Prices for the cost of transcript usage (the operator's price file, then the table). */
  prices?: PriceBook;
  /** A transcript read is done (tests). */
  onUsageRead?: (r: { session: string; events: number; refused?: string }) => void;
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

/** A hook body as JSON; anything else is a coded `malformed-json` error (a diagnostic, never a 400). */
export function parseBody(body: string | Buffer | undefined, hook: string | undefined): unknown {
  const text = body === undefined ? '' : typeof body === 'string' ? body : body.toString('utf8');
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new MapError('malformed-json', `the hook body is not JSON (${text.length} bytes): ${(e as Error).message}`, hook);
  }
}

/**
 * A firing's payload, parsed and well-formed; throws the coded MapError of a bad hook path, an oversize or a
 * malformed body. `read.payload` keeps whatever could be read, so the diagnostic lands in the payload's session.
 */
export function readPayload(inp: HookInput, read: { payload?: unknown }): unknown {
  if (inp.badPath !== undefined) {
    try {
      read.payload ??= wellFormedDeep(parseBody(inp.body, undefined));
    } catch {
      /* the path is the error reported */
    }
    throw new MapError('bad-hook-path', `malformed hook path: ${inp.badPath}`, inp.hook);
  }
  if (inp.oversize !== undefined) throw new MapError('body-too-large', `the hook body (${inp.oversize} bytes) exceeds the daemon's limit`, inp.hook);
  if (read.payload === undefined) read.payload = parseBody(inp.body, inp.hook);
  read.payload = wellFormedDeep(read.payload);
  // before any expression or digest walks it recursively (issue 40: 3,000 levels ran the mapper out of stack)
  if (nestsDeeperThan(read.payload, MAX_PAYLOAD_DEPTH))
    throw new MapError('payload-too-deep', `the payload nests deeper than ${MAX_PAYLOAD_DEPTH} levels`, inp.hook);
  return read.payload;
}

/** Durability fsync: the agent hears back only once what its firing logged is on disk (group commit). */
export async function durableReply(log: SessionLog, reply: HookReply, say: (line: string) => void): Promise<HookReply> {
  const durable = log.commit();
  if (!durable) return reply;
  try {
    await durable;
    return reply;
  } catch (e) {
    say(`the session log could not be flushed to disk: ${(e as Error).message} (the agent was answered; its events may not survive power loss)`);
    return { ...reply, error: reply.error ?? 'not-durable' };
  }
}
