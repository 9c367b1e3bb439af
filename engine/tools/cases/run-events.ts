// Runs normalized-event fixture cases through the mapper and reports every
// difference. One fresh engine state per case; steps share it.
import { isDeepStrictEqual } from 'node:util';
import type { CaptureLevel } from '../../core/aep/schemas.ts';
import type { Descriptor } from '../../core/descriptor/types.ts';
import type { AepEvent } from '../../core/map/envelope.ts';
import { MapError, Mapper, type MapResult } from '../../core/map/mapper.ts';
import type { EventCase, EventStep, ExpectedEvent } from './format.ts';

export interface CaseOutcome {
  name: string;
  failures: string[];
  events: AepEvent[];
  producedTypes: Set<string>;
  /** Events of the steps the case asserts (warm-up steps excluded): what the case proves. */
  checkedEvents: AepEvent[];
  /** Each event's place in the case (`step 2 event 1 (run.finished)`), by id: stable names for messages. */
  places: Map<string, string>;
}

export async function runEventCase(d: Descriptor, c: EventCase, fileCapture?: string): Promise<CaseOutcome> {
  const capture = c.capture ?? fileCapture;
  const mapper = new Mapper(d, { capture: capture && capture !== 'default' ? (capture as CaptureLevel) : undefined, config: c.config });
  const failures: string[] = [];
  const all: AepEvent[] = [];
  const producedTypes = new Set<string>();
  const checkedEvents: AepEvent[] = [];
  const labels = new Map<string, AepEvent>();
  /** Where each event of the case came from (`step 2 event 1`): messages name positions, never random ids. */
  const places = new Map<string, string>();
  /** Hold keys of labelled steps (`as:`), for `settle: { of: $label }`. */
  const holdKeys = new Map<string, string | undefined>();
  for (const [i, step] of c.steps.entries()) {
    const where = `step ${i + 1}${step.hook ? ` (${step.hook})` : ''}`;
    let events: AepEvent[] = [];
    let reply: string | undefined;
    let held: string | undefined;
    let result: MapResult | undefined;
    try {
      const r = (result = await mapper.map(step.hook, step.input, step.surface));
      events = r.events;
      reply = r.reply;
      held = r.hold?.kind;
      all.push(...events);
    } catch (err) {
      const code = err instanceof MapError ? err.code : 'crash';
      if (step.error !== code) failures.push(`${where}: ${code}: ${(err as Error).message}`);
      continue;
    }
    if (step.error) failures.push(`${where}: expected error ${step.error}, got ${events.length} events`);
    if (step.hold !== undefined && held !== (step.hold ?? undefined)) failures.push(`${where}: hold ${held ?? 'none'} != expected ${step.hold ?? 'none'}`);
    if (step.reply !== undefined && reply !== step.reply) failures.push(`${where}: reply ${JSON.stringify(reply)} != expected ${JSON.stringify(step.reply)}`);
    if (step.as) holdKeys.set(step.as, result?.hold?.key);
    if (step.settle !== undefined) settles(result?.settle, step.settle, holdKeys, where, failures);
    events.forEach((e, j) => places.set(e.id, `step ${i + 1} event ${j + 1} (${e.type})`));
    if (!step.expect) continue;
    for (const e of events) producedTypes.add(e.type);
    checkedEvents.push(...events);
    if (events.length !== step.expect.length) {
      failures.push(
        `${where}: ${events.length} events [${events.map((e) => e.type).join(', ')}] != expected ${step.expect.length} ` +
          `[${step.expect.map((e) => e.type).join(', ')}]`,
      );
      continue;
    }
    step.expect.forEach((exp, j) => compare(events[j], exp, `${where} event ${j + 1}`, failures, labels, places));
  }
  return { name: c.name, failures, events: all, producedTypes, checkedEvents, places };
}

/** A `$label` reference to an earlier expected event, or undefined when the value is a literal. */
function ref(v: unknown, labels: Map<string, AepEvent>, where: string, failures: string[]): AepEvent | null | undefined {
  if (typeof v !== 'string' || !v.startsWith('$')) return undefined;
  const hit = labels.get(v.slice(1));
  if (!hit) {
    failures.push(`${where}: ${v} names no earlier event (label one with \`as: ${v.slice(1)}\`)`);
    return null;
  }
  return hit;
}

const show = (v: unknown) => JSON.stringify(v) ?? 'none';

/** `settle: null` (settles nothing), or `{ as, of?: $step, not_of?: $step }`: how, and whose hold (by its key). */
function settles(got: MapResult['settle'], want: EventStep['settle'], holdKeys: Map<string, string | undefined>, where: string, failures: string[]): void {
  if (want === null) {
    if (got) failures.push(`${where}: settles ${got.as} (key ${show(got.key)}), expected no settle`);
    return;
  }
  if (!want) return;
  if (!got) {
    failures.push(`${where}: settles nothing, expected ${want.as}`);
    return;
  }
  if (got.as !== want.as) failures.push(`${where}: settles as ${got.as}, expected ${want.as}`);
  const key = (label: string) => {
    const name = label.replace(/^\$/, '');
    if (!holdKeys.has(name)) failures.push(`${where}: ${label} names no earlier step (label one with \`as: ${name}\`)`);
    return holdKeys.get(name);
  };
  if (want.of !== undefined && got.key !== key(want.of))
    failures.push(`${where}: settles key ${show(got.key)}, not the hold of ${want.of} (${show(key(want.of))})`);
  if (want.not_of !== undefined && got.key === key(want.not_of)) failures.push(`${where}: settles the hold of ${want.not_of}, expected another`);
}

function links(got: AepEvent, exp: ExpectedEvent, where: string, failures: string[], labels: Map<string, AepEvent>, places: Map<string, string>): void {
  // ids and run ids are minted: messages name the event they belong to instead
  const event = (id: unknown) => (id === undefined ? 'none' : (places.get(String(id)) ?? show(id)));
  const runOf = (run: unknown) => {
    if (run === undefined) return 'none';
    const opener = [...labels.values()].find((e) => e.run === run);
    return opener ? `the run of ${event(opener.id)}` : show(run);
  };
  if ('cause' in exp) {
    const target = ref(exp.cause, labels, where, failures);
    const want = target === undefined ? (exp.cause ?? undefined) : target?.id;
    if (target !== null && got.cause !== want)
      failures.push(`${where}: cause ${event(got.cause)} != ${target ? `${exp.cause}, ${event(target.id)}` : show(want)}`);
  }
  if ('run' in exp) {
    const r = exp.run;
    if (r && typeof r === 'object') {
      const other = ref(r.not, labels, where, failures);
      if (other && (got.run === undefined || got.run === other.run)) failures.push(`${where}: run ${runOf(got.run)} is not a run other than ${r.not}'s`);
    } else {
      const target = ref(r, labels, where, failures);
      const want = target === undefined ? (r ?? undefined) : target?.run;
      if (target !== null && got.run !== want) failures.push(`${where}: run ${runOf(got.run)} != ${target ? `${r}'s run` : show(want)}`);
    }
  }
  for (const k of ['session', 'severity', 'seq'] as const) {
    if (k in exp && got[k] !== (exp[k] ?? undefined)) failures.push(`${where}: ${k} ${show(got[k])} != ${show(exp[k] ?? undefined)}`);
  }
  if (exp.as) labels.set(exp.as, got);
}

function compare(got: AepEvent, exp: ExpectedEvent, where: string, failures: string[], labels: Map<string, AepEvent>, places: Map<string, string>): void {
  if (got.type !== exp.type) failures.push(`${where}: type ${got.type} != ${exp.type}`);
  for (const k of ['subject', 'step'] as const) {
    if (!(k in exp)) continue;
    const want = exp[k] ?? undefined;
    if (got[k] !== want) failures.push(`${where}: ${k} ${JSON.stringify(got[k])} != ${JSON.stringify(want)}`);
  }
  links(got, exp, where, failures, labels, places);
  let data = got.data ?? {};
  if (exp.unchecked?.length) {
    data = { ...(data as Record<string, unknown>) };
    for (const f of exp.unchecked) delete (data as Record<string, unknown>)[f];
  }
  if ('data' in exp && !isDeepStrictEqual(data, exp.data ?? {})) failures.push(`${where}: data ${JSON.stringify(data)} != ${JSON.stringify(exp.data)}`);
}
