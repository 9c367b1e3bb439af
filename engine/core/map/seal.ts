// The capture-gate and envelope stages: every draft gated at its ceiling
// (AEP-0005: data fields above the ceiling dropped or redacted; streamed
// text fragments through a per-stream redactor, AEP-0007 §6), its payload
// validated against its schema, and the envelopes built (AEP-0001 §5) with
// their positions left to the commit (commit.ts), which takes them only once
// nothing of the firing can fail. Agent-scoped types (core agent.*) take no
// session position.
import { formatAjvErrors, REGISTRY_BY_TYPE, validatePayload, type CaptureLevel } from '../aep/schemas.ts';
import { gateData } from '../capture/gate.ts';
import { PROJECT_ATTR } from '../capture/project.ts';
import type { FragmentStreams } from '../capture/redaction/fragments.ts';
import { declaredEffects } from '../kernel/option-effects.ts';
import { buildEnvelope, newId, type AepEvent } from './envelope.ts';
import { MapError } from './errors.ts';
import type { Draft, Firing, MapContext } from './firing.ts';

export type Fragments = ReturnType<FragmentStreams['begin']>;

export interface Gated {
  dr: Draft;
  ceiling: CaptureLevel;
  data: Record<string, unknown> | undefined;
  agentScoped: boolean;
}

/** Gate and validate every draft; nothing is committed here (the fragment streams commit with the firing). */
export async function gateDrafts(m: MapContext, f: Firing): Promise<{ gated: Gated[]; frag: Fragments }> {
  const { drafts } = f;
  // redaction first: big strings in yielding slices, so one agent's huge payload never stalls another agent's hooks (issue 11)
  const ceilings = drafts.map((dr) => m.ceilingFor(dr.type, dr.emit.capture));
  const redacting = drafts.filter((_, i) => ceilings[i] === 'redacted').map((dr) => dr.data);
  if (!redacting.length) return gate(m, f, ceilings);
  try {
    await m.redactor.prepare(redacting);
    return gate(m, f, ceilings);
  } finally {
    m.redactor.forgetPrepared();
  }
}

/** The capture gate and the schema check of every draft (the redactor prepared for its big strings). */
function gate(m: MapContext, f: Firing, ceilings: CaptureLevel[]): { gated: Gated[]; frag: Fragments } {
  const d = m.descriptor;
  const { drafts, session, resumedFrom } = f;
  // fragments of a streamed text share a per-stream redactor (AEP-0007 §6); anything else closes the session's streams
  const frag = m.fragments.begin(session);
  const closing = drafts.some((dr) => dr.fragmentOf === undefined) ? frag.close(true) : [];

  // gate + validate every draft before anything is committed
  const gated: Gated[] = [];
  for (const [i, dr] of drafts.entries()) {
    const ceiling = ceilings[i];
    let gates = dr.emit.gates ? { ...d.capture.gates, ...dr.emit.gates } : d.capture.gates;
    if (resumedFrom !== undefined && dr.type === 'session.started') gates = { ...gates, resumed_from: 'metadata' };
    const streamKey = dr.fragmentOf !== undefined && ceiling === 'redacted' ? `${dr.type}\u0000${dr.subject ?? ''}\u0000${dr.fragmentOf}` : undefined;
    const redactor = streamKey ? frag.view(streamKey) : m.redactor;
    const data = gateData(dr.type, dr.data, { ceiling, gates, redactor, standIns: dr.standins, agent: d.agent, subject: dr.subject });
    if (streamKey) frag.noteEvent(streamKey, { type: dr.type, subject: dr.subject, step: dr.step, run: dr.run, data: data ?? {}, meta: dr });
    if (data && REGISTRY_BY_TYPE.has(dr.type)) {
      const errs = validatePayload(dr.type, data);
      if (errs.length)
        throw new MapError('payload-rejected', `rule ${dr.emit.path} produced a ${dr.type} payload its schema rejects: ${formatAjvErrors(errs)}`);
    }
    // only core agent.* types are agent-scoped; x.<vendor>.agent.* is session-scoped (the envelope schema)
    gated.push({ dr, ceiling, data, agentScoped: dr.type.startsWith('agent.') });
  }
  // streams closed by this firing (or past the per-session bound) release their held tails first, as closing fragments
  closing.push(...frag.close(false));
  if (closing.length)
    gated.unshift(
      ...closing.map((ev) => ({
        dr: { ...(ev.meta as Draft), id: newId(), cause: undefined },
        ceiling: 'redacted' as CaptureLevel,
        data: ev.data,
        agentScoped: false,
      })),
    );
  return { gated, frag };
}

/** The envelopes, positions held open (seq/epoch 0 where the event takes one): the commit fills them in. */
export function envelopes(m: MapContext, f: Firing, gated: Gated[]): AepEvent[] {
  const d = m.descriptor;
  const { session } = f;
  const time = new Date(f.now).toISOString();
  return gated.map(({ dr, ceiling, data, agentScoped }) => {
    // the folder's name, never its path, at every ceiling (engine/core/capture/project.ts)
    const project = dr.type === 'session.started' ? m.projectLabel(dr.data?.cwd) : undefined;
    // the vendor's own option ids a request offers or an answer names, with what each means (engine/core/kernel/option-effects.ts)
    const effects = declaredEffects(dr.type, data, d.optionEffects);
    const extensions = { ...(project ? { [PROJECT_ATTR]: project } : {}), ...effects };
    return buildEnvelope({
      id: dr.id,
      type: dr.type,
      subject: dr.subject,
      time,
      host: m.host,
      agent: d.agent,
      channel: d.channel,
      session: agentScoped ? undefined : session,
      run: agentScoped ? undefined : dr.run,
      step: agentScoped ? undefined : dr.step,
      seq: agentScoped ? undefined : 0,
      epoch: agentScoped ? undefined : 0,
      cause: dr.cause,
      severity: dr.emit.severity,
      capture: ceiling,
      data: data ?? (ceiling === 'none' ? undefined : {}),
      extensions: Object.keys(extensions).length ? extensions : undefined,
    });
  });
}
