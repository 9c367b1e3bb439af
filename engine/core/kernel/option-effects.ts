// What an answer option means (allow, deny, always, never), and so whether an
// answer is a refusal: the one definition the daemon (which option a rule's
// allow or deny applies), the timeline and tail (what became of a call), and
// the web inbox (a card's and a call's words) read. Never guessed from an id
// by a pattern: an option's effect is what the request says it is.
//
// - The AEP convention ids (the Annex A pins' `allow` / `deny`; hookmap's
//   descriptors add `always` / `never`, ACP's allow_always / reject_always)
//   mean their own name.
// - Where a vendor's own ids must stay (`once` / `reject`, `session` ...,
//   replayed verbatim to the agent or read
//   from its own dialog), the descriptor declares them (`option_effects`) and
//   the mapper marks the attention.requested and attention.answered events
//   that carry them with the `hookmapeffects` extension attribute
//   (AEP-0001 §5.4: a scalar, `once=allow reject=deny`).
// - A form's answer (`values`) is no refusal; guidance text that names no
//   option answers a permission as its refusing option does (AEP-0008).
// Browser-safe.

export type OptionEffect = 'allow' | 'deny' | 'always' | 'never';
export const OPTION_EFFECTS: readonly OptionEffect[] = ['allow', 'deny', 'always', 'never'];

/** The envelope extension attribute (AEP-0001 §5.4) declaring the effects of a vendor's own option ids. */
export const EFFECTS_ATTR = 'hookmapeffects';

export type Effects = Readonly<Record<string, OptionEffect>>;

const isEffect = (v: unknown): v is OptionEffect => typeof v === 'string' && (OPTION_EFFECTS as readonly string[]).includes(v);

/** The attribute's value: `id=effect` pairs, space-separated, in the order given. */
export function formatEffects(effects: Effects): string {
  return Object.entries(effects)
    .map(([id, e]) => `${id}=${e}`)
    .join(' ');
}

/** The attribute's value read back; what is not an `id=effect` pair with a known effect is ignored. */
export function parseEffects(value: unknown): Record<string, OptionEffect> {
  const out: Record<string, OptionEffect> = {};
  if (typeof value !== 'string') return out;
  for (const pair of value.split(' ')) {
    const i = pair.lastIndexOf('=');
    const effect = pair.slice(i + 1);
    if (i > 0 && isEffect(effect)) out[pair.slice(0, i)] = effect;
  }
  return out;
}

/** The effects an event declares for vendor ids (its `hookmapeffects` attribute); {} when it declares none. */
export function effectsOf(ev: Record<string, unknown> | undefined): Record<string, OptionEffect> {
  return ev ? parseEffects(ev[EFFECTS_ATTR]) : {};
}

/** The effect of option `id`: a declared effect, else the convention id's own meaning, else undefined (unknown). */
export function effectOf(id: string | undefined, effects: Effects = {}): OptionEffect | undefined {
  if (id === undefined) return undefined;
  return Object.hasOwn(effects, id) ? effects[id] : isEffect(id) ? id : undefined;
}

/** deny (this once) or never (reject always). */
export const refuses = (e: OptionEffect | undefined): boolean => e === 'deny' || e === 'never';
/** allow (this once) or always. */
export const permits = (e: OptionEffect | undefined): boolean => e === 'allow' || e === 'always';
/** A standing decision: always or never. */
export const standing = (e: OptionEffect | undefined): boolean => e === 'always' || e === 'never';

export interface AnswerLike {
  option?: unknown;
  text?: unknown;
  values?: unknown;
}

/**
 * Is this answer a refusal? Its option's effect is deny or never; with no
 * option, guidance text on a permission request is applied as the refusing
 * option (AEP-0008); a form's values never are.
 */
export function isRefusal(answer: AnswerLike | undefined, ctx: { kind?: unknown; effects?: Effects } = {}): boolean {
  if (!answer || typeof answer !== 'object') return false;
  if (typeof answer.option === 'string') return refuses(effectOf(answer.option, ctx.effects));
  if (answer.values !== undefined) return false;
  return ctx.kind === 'permission' && typeof answer.text === 'string';
}

type EventLike = { data?: Record<string, any> } & Record<string, unknown>;

/** What a request's (and its answer's) vendor option ids mean: both events' hookmapeffects attributes. */
export function requestEffects(request: EventLike | undefined, answered?: EventLike): Record<string, OptionEffect> {
  return { ...effectsOf(request), ...effectsOf(answered) };
}

/** Does an attention.answered refuse its request (attention.requested, when known)? The one reading every view shares. */
export function answeredRefuses(answered: EventLike, request?: EventLike): boolean {
  return isRefusal(answered.data?.answer, { kind: request?.data?.kind, effects: requestEffects(request, answered) });
}

/** The effect of the option an attention.answered names (undefined: no option, or one whose meaning nothing declares). */
export function answeredEffect(answered: EventLike, request?: EventLike): OptionEffect | undefined {
  const option = answered.data?.answer?.option;
  return typeof option === 'string' ? effectOf(option, requestEffects(request, answered)) : undefined;
}

/** The first option whose effect is `effect`. */
export function optionWith(effect: OptionEffect, options: readonly { id: string }[], effects: Effects = {}): string | undefined {
  return options.find((o) => effectOf(o.id, effects) === effect)?.id;
}

/** The option a refusal applies: the one whose effect is deny (this once), else never. */
export function refusingOption(options: readonly { id: string }[], effects: Effects = {}): string | undefined {
  return optionWith('deny', options, effects) ?? optionWith('never', options, effects);
}

/** The option an allow applies: the one whose effect is allow (this once), never an always one (hookmap's rule is what persists). */
export function permissiveOption(options: readonly { id: string }[], effects: Effects = {}): string | undefined {
  return optionWith('allow', options, effects);
}

/**
 * The extension attribute marking an attention.requested (its `options`) or an
 * attention.answered (its `answer.option`) with the effects `declared` gives
 * the vendor ids it carries; {} when it carries none (convention ids need none).
 */
export function declaredEffects(type: string, data: Record<string, any> | undefined, declared: Effects): Record<string, string> {
  let ids: unknown[] = [];
  if (type === 'attention.requested' && Array.isArray(data?.options)) ids = data.options.map((o: { id?: unknown } | null) => o?.id);
  else if (type === 'attention.answered') ids = [data?.answer?.option];
  const own: Record<string, OptionEffect> = {};
  for (const id of ids) if (typeof id === 'string' && Object.hasOwn(declared, id)) own[id] = declared[id];
  return Object.keys(own).length ? { [EFFECTS_ATTR]: formatEffects(own) } : {};
}

/**
 * AEP-0008: whether a request takes an answer over the control binding. A present `respond_via` without `control`
 * is informational (answered at the agent, or elsewhere): shown, never answered through hookmap.
 */
export function answerableViaControl(data: unknown): boolean {
  const via = typeof data === 'object' && data !== null ? (data as { respond_via?: unknown }).respond_via : undefined;
  return !Array.isArray(via) || via.includes('control');
}

/**
 * What a held request asks a person, as routing and escalation read it: a form asks a question, a tool gate asks
 * permission (the push door's kinds: permission, form, gate); any other kind is itself.
 */
export const askedKind = (kind: string): string => (kind === 'form' || kind === 'question' ? 'question' : kind === 'gate' ? 'permission' : kind);
