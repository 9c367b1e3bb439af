// A past session (import-read.ts) as the AEP events a logged session has:
// session.started (its project label), run.started / run.finished per turn,
// tool.requested per tool call and x.hookmap.usage.reported per model
// response (tokens and cost from the price book), each marked with the
// `hookmapimported` extension attribute, its data through the capture gate
// at the ceiling in force, and its id derived from the agent, the session
// and what it stands for, so importing the same session again makes the
// same ids (and nothing new).
import { REGISTRY_BY_TYPE, formatAjvErrors, validatePayload, type CaptureLevel } from '../../core/aep/schemas.ts';
import { aepDigest } from '../../core/capture/canonical.ts';
import { gateData } from '../../core/capture/gate.ts';
import { PROJECT_ATTR } from '../../core/capture/project.ts';
import type { Redactor } from '../../core/capture/redact.ts';
import { TYPE, fateOf, RUN_TERMINALS, runEnd, TOOL_TERMINALS } from '../../core/kernel/lifecycle.ts';
import { buildEnvelope, type AepEvent } from '../../core/map/envelope.ts';
import { PRICE_TABLE, type PriceBook } from './prices.ts';
import type { ImportedSession } from './import-read.ts';
import { IMPORTED_ATTR } from './imported.ts';
import { USAGE_GATES, USAGE_TYPE, usageData } from './tally.ts';

export interface ImportEventOptions {
  agent: string;
  host: string;
  /** The capture ceiling in force for a type. */
  ceilingFor: (type: string) => CaptureLevel;
  redactor: Redactor;
  prices: PriceBook;
  /** The session's project label (from its cwd), if any. */
  project?: string;
  /** The client name session.started carries. */
  client: string;
}

/** The id of the imported event standing for `what` of a session: the same every import. */
export function importedId(agent: string, session: string, what: string): string {
  return `imp-${aepDigest([agent, session, what])}`;
}

/** The type that ends a run that finished (the kernel's vocabulary). */
const RUN_FINISHED = RUN_TERMINALS.find((t) => runEnd(t) === 'finished')!;
/** The types that end a tool call that completed or failed. */
const TOOL_END = (fate: string) => TOOL_TERMINALS.find((t) => fateOf(t)?.fate === fate)!;

interface Spec {
  id: string;
  type: string;
  time: string;
  data: Record<string, unknown>;
  run?: string;
  gates?: Record<string, 'metadata'>;
}

/**
 * The session's events not yet in `known` (ids already imported), in time order (the session's start first), numbered
 * from `firstSeq` on: a session imported again yields nothing, a session that grew yields what is new.
 */
export function importedEvents(
  s: ImportedSession & { session: string },
  o: ImportEventOptions,
  known: ReadonlySet<string> = new Set(),
  firstSeq = 0,
): AepEvent[] {
  const specs: Spec[] = [];
  const add = (what: string, type: string, time: string, data: Record<string, unknown>, x: { run?: string; gates?: Record<string, 'metadata'> } = {}) => {
    const id = importedId(o.agent, s.session, what);
    if (!known.has(id)) specs.push({ id, type, time, data, ...x });
  };
  add('session', TYPE.sessionStarted, s.first ?? new Date(0).toISOString(), { client: { name: o.client }, ...(s.cwd ? { cwd: s.cwd } : {}) });
  for (const r of s.runs.values()) {
    add(`run:${r.id}:start`, TYPE.runStarted, r.start, {}, { run: r.id });
    const ms = Date.parse(r.end) - Date.parse(r.start);
    add(`run:${r.id}:end`, RUN_FINISHED, r.end, ms >= 0 ? { duration_ms: ms } : {}, { run: r.id });
  }
  for (const c of s.tools) add(c.key, TYPE.toolRequested, c.time, { tool: { name: c.name, ...(c.call_id ? { call_id: c.call_id } : {}) } }, { run: c.run });
  for (const r of s.results) {
    const tool = { name: r.name, call_id: r.call_id };
    const ms = r.duration_ms !== undefined ? { duration_ms: r.duration_ms } : {};
    if (r.failed) add(r.key, TOOL_END('failed'), r.time, { tool, error: { type: 'tool_error' }, ...ms }, { run: r.run });
    else add(r.key, TOOL_END('completed'), r.time, { tool, ...ms }, { run: r.run });
  }
  const table = `${PRICE_TABLE.name} ${PRICE_TABLE.version} (${PRICE_TABLE.published})`;
  for (const r of s.responses) {
    const tokens = { input: 0, output: 0, cache_read: 0, cache_write: 0, reasoning: 0, ...r.tokens };
    const data = usageData({ model: r.model, tokens, responses: 1 }, o.prices.cost(r.model, tokens), table);
    add(r.key, USAGE_TYPE, r.time, data, { run: r.run, gates: USAGE_GATES });
  }
  const rank = (x: Spec) => (x.type === TYPE.sessionStarted ? 0 : 1);
  specs.sort((a, b) => rank(a) - rank(b) || (a.time < b.time ? -1 : a.time > b.time ? 1 : 0));
  return specs.map((x, i) => {
    const ceiling = o.ceilingFor(x.type);
    const gated = gateData(x.type, x.data, { ceiling, gates: x.gates, redactor: o.redactor, agent: o.agent });
    if (gated && REGISTRY_BY_TYPE.has(x.type)) {
      const errs = validatePayload(x.type, gated);
      if (errs.length) throw new Error(`an imported ${x.type} payload its schema rejects: ${formatAjvErrors(errs)}`);
    }
    const ext: Record<string, string | boolean> = { [IMPORTED_ATTR]: true };
    if (x.type === TYPE.sessionStarted && o.project) ext[PROJECT_ATTR] = o.project;
    return buildEnvelope({
      id: x.id,
      type: x.type,
      time: x.time,
      host: o.host,
      agent: o.agent,
      session: s.session,
      run: x.run,
      seq: firstSeq + i,
      capture: ceiling,
      data: gated ?? (ceiling === 'none' ? undefined : {}),
      extensions: ext,
    });
  });
}
