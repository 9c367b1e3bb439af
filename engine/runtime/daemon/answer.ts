// What an answer means for one held request: pure, so the decision-codec
// fixtures and the unit tests pin it without sockets. The rules:
//
//   permission / gate (options):
//     {option}            an offered option id, else rejected `invalid`
//     {text} = an option  that option (id, or exactly one label, any case,
//                         trimmed: AEP-0008): the word IS the decision
//     {option: allow|deny} not offered: the AEP convention words, read as the card's
//                         allow-once option (never an "always" one) or its refusing one,
//                         by the options' effects (engine/core/kernel/option-effects.ts)
//     {text} other        the refusing option with the text as the reason:
//                         the descriptor's `text` decision when it has one
//                         (deny-with-guidance), else its refusing option's
//                         decision; never the permissive choice (AEP-0008 MUST)
//     {} / blank text     plain refusal (adapters.md: falls through to deny)
//   form (fields):
//     {values}            checked with formValuesError (AEP-0006 MUST-reject:
//                         missing required field, non-choice for a closed
//                         select): `invalid` leaves the request pending
//     {option}/{text}     accepted for a one-field form (AEP-0006 degradation)
//
// The decision is the name of a descriptor decision template; undefined means
// the hold has no template for it and the agent gets its neutral bytes (the
// agent's own dialog decides, e.g. an `ask` option).
import { formValuesError, type FieldSpec } from '../../core/aep/form-values.ts';
import { permissiveOption as kernelPermissive, refusingOption as kernelRefusing, type Effects } from '../../core/kernel/option-effects.ts';

export interface OptionView {
  id: string;
  label?: string;
}

export interface RequestView {
  kind: 'permission' | 'form' | 'gate';
  options: OptionView[];
  /** The form's field specs; undefined when the card was emitted without them (capture none). */
  fields?: FieldSpec[];
  /** Labels are real text (capture redacted+), not structural placeholders, so matching them is meaningful. */
  labelsReal: boolean;
  /** Decision template names the hold defines. */
  decisions: ReadonlySet<string>;
  /** What the vendor's own option ids mean (the request's hookmapeffects attribute); convention ids need none. */
  effects?: Effects;
}

export interface Applied {
  option?: string;
  text?: string;
  values?: Record<string, unknown>;
}

export type Interpretation = { ok: true; decision: string | undefined; applied: Applied } | { ok: false; reason: 'invalid'; detail: string };

/** The option a refusal applies (its effect deny, else never): the kernel's reading of the request's options. */
export function refusingOption(options: OptionView[], effects?: Effects): string | undefined {
  return kernelRefusing(options, effects);
}

/** The option a rule's allow applies: the allow-once choice, never an "always" one (hookmap's rule is what persists). */
export function permissiveOption(options: OptionView[], effects?: Effects): string | undefined {
  return kernelPermissive(options, effects);
}

const bad = (detail: string): Interpretation => ({ ok: false, reason: 'invalid', detail: `bad-answer: ${detail}` });
const isObj = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
const norm = (s: string) => s.trim().toLowerCase();

/** An option named by a word: its id, or exactly one label (when labels are real). */
export function optionNamed(word: string, options: OptionView[], labelsReal: boolean): string | undefined {
  const w = norm(word);
  if (!w) return undefined;
  const byId = options.find((o) => norm(o.id) === w);
  if (byId) return byId.id;
  if (!labelsReal) return undefined; // a placeholder label ("1") must never grant anything
  const byLabel = options.filter((o) => typeof o.label === 'string' && norm(o.label) === w);
  return byLabel.length === 1 ? byLabel[0].id : undefined;
}

export function interpretAnswer(answer: unknown, req: RequestView): Interpretation {
  if (!isObj(answer)) return bad('answer must be an object with option, text or values');
  const { option, text, values } = answer;
  if (option !== undefined && typeof option !== 'string') return bad('answer.option must be a string');
  if (text !== undefined && typeof text !== 'string') return bad('answer.text must be a string');
  return req.kind === 'form' ? interpretForm(option, text, values, req) : interpretOptions(option, text, values, req);
}

function pick(req: RequestView, name: string | undefined): string | undefined {
  return name !== undefined && req.decisions.has(name) ? name : undefined;
}

function interpretOptions(option: string | undefined, text: string | undefined, values: unknown, req: RequestView): Interpretation {
  if (values !== undefined) return bad('answer.values answers a form; this request takes option or text');
  const refusing = refusingOption(req.options, req.effects);
  const guidance = text !== undefined && text.trim() !== '' ? text : undefined;
  if (option !== undefined) {
    // `allow` / `deny`, the AEP convention words (`hookmap answer --allow|--deny`), name the card's own allow-once or
    // refusing option where its ids are the vendor's (once / reject)
    const id = req.options.some((x) => x.id === option)
      ? option
      : option === 'allow'
        ? permissiveOption(req.options, req.effects)
        : option === 'deny'
          ? refusing
          : undefined;
    const o = req.options.find((x) => x.id === id);
    if (!o) return bad(`option ${JSON.stringify(option)} is not offered (${req.options.map((x) => x.id).join(', ')})`);
    // a refusal with a stated reason is the deny-with-guidance path
    if (o.id === refusing && guidance && req.decisions.has('text')) return { ok: true, decision: 'text', applied: { option: o.id, text: guidance } };
    return { ok: true, decision: pick(req, o.id), applied: guidance ? { option: o.id, text: guidance } : { option: o.id } };
  }
  if (guidance) {
    const named = optionNamed(guidance, req.options, req.labelsReal);
    if (named) return { ok: true, decision: pick(req, named), applied: { option: named } };
    if (req.decisions.has('text')) return { ok: true, decision: 'text', applied: refusing ? { option: refusing, text: guidance } : { text: guidance } };
    if (refusing) return { ok: true, decision: pick(req, refusing), applied: { option: refusing, text: guidance } };
    return bad('free text does not name an option and this request has no refusing option to apply it to');
  }
  if (refusing) return { ok: true, decision: pick(req, refusing), applied: { option: refusing } };
  return bad('empty answer: name an option');
}

function interpretForm(option: string | undefined, text: string | undefined, values: unknown, req: RequestView): Interpretation {
  let vals: Record<string, unknown>;
  if (values !== undefined) {
    if (!isObj(values)) return bad('answer.values must be an object mapping field ids to answers');
    vals = values;
  } else if ((option !== undefined || text !== undefined) && req.fields?.length === 1) {
    // AEP-0006 degradation: a pre-form consumer answering a one-question form
    const f = req.fields[0];
    let v: unknown = option ?? text;
    if (f.type === 'select' && typeof v === 'string') {
      const named = optionNamed(v, f.choices ?? [], req.labelsReal);
      if (named) v = f.multi ? [named] : named;
      else if (f.multi && f.other) v = [v];
    }
    vals = { [f.id]: v };
  } else {
    return bad('a form is answered with answer.values');
  }
  if (req.fields) {
    const err = formValuesError(req.fields, vals);
    if (err) return bad(err);
  }
  return { ok: true, decision: pick(req, 'values'), applied: { values: vals } };
}
