// Capability evidence: which fixture cases prove which capability claim.
// The vocabulary says what proves each capability (event types, a decision-
// codec case of a hold kind and answer shape, a shim case); this module finds
// the passing cases that show it and judges every claim of one descriptor.
// Only a passing case is evidence: a failing one proves nothing.
import { pathString, type DescriptorError } from '../../core/descriptor/errors.ts';
import type { Descriptor } from '../../core/descriptor/types.ts';
import type { AepEvent } from '../../core/map/envelope.ts';
import { CAPABILITIES, type CapabilityDef, type CapabilityState } from '../../core/capabilities/vocabulary.ts';

export const ANSWER_SHAPES = ['option', 'text', 'values', 'timeout', 'dismissed'] as const;
export type AnswerShape = (typeof ANSWER_SHAPES)[number];

export interface EvidenceCase {
  /** `fixtures/<agent>/<file>.yaml#<case name>` */
  ref: string;
  kind: string;
  passed: boolean;
  /** A shim case a documentation pass did not run (`hookmap check` runs it): named as evidence, never counted as passing. */
  unrun?: boolean;
  /** shim kind: the daemon's mood the case ran against (up, down, hung, error). */
  mood?: string;
  /** events kind: the events its asserted steps produced */
  events: AepEvent[];
  /** decisions kind: the hold kind and the answer's shape */
  hold?: string;
  answer?: AnswerShape;
  /** decisions kind, a delivery or command case: the verb the reply carried, the command it sent. */
  delivered?: string;
  command?: string;
}

export interface CapabilityRow {
  id: string;
  description: string;
  state: CapabilityState | 'undeclared';
  why?: string;
  /** Cases proving it (explicit `evidence` first, then found ones). */
  evidence: string[];
  /** A supported claim backed by a passing fixture (false for every other state). */
  proven: boolean;
  live?: string;
  /** What fixture would prove it, in words. */
  provenBy: string;
}

/** The shape of a decision-codec case's `answer`: `{ option: allow }`, `{ text: ... }`, `{ values: ... }`, `timeout`, `dismissed`. */
export function answerShape(answer: unknown): AnswerShape | undefined {
  if (typeof answer === 'string') return (ANSWER_SHAPES as readonly string[]).includes(answer) ? (answer as AnswerShape) : undefined;
  if (!answer || typeof answer !== 'object') return undefined;
  return ANSWER_SHAPES.find((s) => s in (answer as object));
}

const typeKey = (t: string) => (t.startsWith('x.') ? 'x.*' : t);

function matches(ev: AepEvent, match: CapabilityDef['match']): boolean {
  if (!match) return true;
  return Object.entries(match).every(([k, allowed]) => allowed.includes((ev.data ?? {})[k]));
}

function typesOf(c: EvidenceCase, def: CapabilityDef): Set<string> {
  return new Set(c.events.filter((e) => matches(e, def.match)).map((e) => typeKey(e.type)));
}

/** The refs of passing cases proving `def`, or undefined when none does (or no rule exists). */
export function proofOf(def: CapabilityDef, cases: EvidenceCase[]): string[] | undefined {
  const passing = cases.filter((c) => c.passed);
  if (def.events || def.anyEvents) {
    const events = passing.filter((c) => c.kind === 'events');
    const want = def.events ?? def.anyEvents!;
    const whole = def.events ? events.find((c) => want.every((t) => typesOf(c, def).has(t))) : undefined;
    if (whole) return [whole.ref];
    const refs = new Set<string>();
    for (const t of want) {
      const c = events.find((x) => typesOf(x, def).has(t));
      if (c) refs.add(c.ref);
      else if (def.events) return undefined;
    }
    return refs.size ? [...refs] : undefined;
  }
  if (def.codec) {
    const { hold, answer } = def.codec;
    const hits = passing.filter((c) => c.kind === 'decisions' && c.hold && (hold === '*' || c.hold === hold) && (!answer || c.answer === answer));
    return hits.length ? hits.slice(0, 3).map((c) => c.ref) : undefined;
  }
  if (def.shim) {
    // one case per mood the claim is about (a shim that fails open when the daemon is down, hung, erroring)
    const { moods } = def.shim;
    const hits = moods.map((mood) => cases.find((c) => c.kind === 'shim' && (c.passed || c.unrun) && c.mood === mood)).filter((c) => c !== undefined);
    return hits.length ? hits.map((c) => c.ref) : undefined;
  }
  if (def.delivery) {
    const { verb, command } = def.delivery;
    const commandMatches = (t: string | undefined) =>
      !command || (t !== undefined && (command.startsWith('*.') ? t.endsWith(command.slice(1)) : t === command));
    const hits = passing.filter((c) => c.kind === 'decisions' && (!verb || c.delivered === verb) && commandMatches(c.command) && (verb || c.command));
    return hits.length ? hits.slice(0, 3).map((c) => c.ref) : undefined;
  }
  return undefined;
}

/** What would prove `def`, for error messages and docs. */
export function provenBy(def: CapabilityDef): string {
  const m = def.match
    ? ` with ${Object.entries(def.match)
        .map(([k, v]) => `data.${k} ${v.join('|')}`)
        .join(', ')}`
    : '';
  if (def.events) return `a kind: events case producing ${def.events.join(' and ')}${m}`;
  if (def.anyEvents) return `a kind: events case producing ${def.anyEvents.join(' or ')}${m}`;
  if (def.codec)
    return (
      `a kind: decisions case with hold: ${def.codec.hold === '*' ? '<any kind>' : def.codec.hold}` +
      `${def.codec.answer ? ` and an answer of shape ${def.codec.answer}` : ''}`
    );
  if (def.shim) return `a kind: shim case with the daemon ${def.shim.moods.join(', ')}`;
  if (def.delivery)
    return (
      `a kind: decisions case${def.delivery.command ? ` sending ${def.delivery.command}` : ''}` +
      `${def.delivery.verb ? ` whose reply carries ${def.delivery.verb}` : ''}`
    );
  return 'a fixture case named in the claim (evidence: [file#case]); no fixture kind proves it on its own';
}

export interface Judgement {
  rows: CapabilityRow[];
  errors: DescriptorError[];
}

/**
 * Judge every claim of `d` against the cases. `locate` maps a descriptor path
 * to a position; `resolveRef` turns a claim's `file#case` into a known ref.
 */
export function judgeCapabilities(
  d: Descriptor,
  cases: EvidenceCase[],
  locate: (path: (string | number)[]) => { line: number; col: number },
  resolveRef: (ref: string) => string | undefined,
): Judgement {
  const errors: DescriptorError[] = [];
  const err = (code: DescriptorError['code'], path: (string | number)[], message: string) => {
    const pos = locate(path);
    errors.push({ code, file: d.file, line: pos.line, col: pos.col, path: pathString(path), message });
  };
  const byRef = new Map(cases.map((c) => [c.ref, c]));
  const rows: CapabilityRow[] = [];
  for (const def of CAPABILITIES) {
    const claim = d.capabilities.get(def.id);
    const explicit: string[] = [];
    (claim?.evidence ?? []).forEach((ref, i) => {
      const known = resolveRef(ref);
      if (!known)
        err(
          'unknown-reference',
          ['capabilities', def.id, 'evidence', i],
          `evidence '${ref}' names no fixture case (write file#case, e.g. ${exampleRef(cases)})`,
        );
      else explicit.push(known);
    });
    const found = proofOf(def, cases);
    const hasRule = !!(def.events || def.anyEvents || def.codec || def.shim || def.delivery);
    const explicitPass = explicit.length > 0 && explicit.every((r) => byRef.get(r)?.passed);
    // a named passing case proves it too (a hold whose answer carries the capability, e.g. a stop follow-up form)
    const proven = claim?.state === 'supported' && ((hasRule && !!found) || explicitPass);
    if (claim?.state === 'supported' && !proven && explicit.length === (claim.evidence ?? []).length) {
      err('capability-without-evidence', ['capabilities', def.id], `${def.id} is supported but no passing fixture proves it: add ${provenBy(def)}`);
    }
    rows.push({
      id: def.id,
      description: def.description,
      state: claim?.state ?? 'undeclared',
      why: claim?.why,
      evidence: [...new Set([...explicit, ...(found ?? [])])],
      proven,
      live: claim?.live,
      provenBy: provenBy(def),
    });
  }
  return { rows, errors };
}

function exampleRef(cases: EvidenceCase[]): string {
  return cases[0]?.ref ?? 'fixtures/<agent>/<file>.yaml#<case name>';
}
