// The closed list of rule ids `hookmap validate` reports. Other tools match on
// these strings (CI greps, the mapping engine's tests), so an id is never
// renamed or reused for a different meaning; add new ids instead.

export const RULES = {
  'syntax/not-json': 'a line is not parseable JSON (JSONL: one JSON object per line)',
  'syntax/not-object': 'a line is JSON but not an object (an Event is a single JSON object, AEP-0001 §5)',
  'envelope/schema': 'the envelope fails the AEP envelope schema in a way no more specific rule names (AEP-0001 §5.1)',
  'envelope/version': '`aep` is missing or names a version this validator does not speak (AEP-0001 §5.1 #1, §11)',
  'envelope/null-attribute': 'an absent OPTIONAL attribute is set to null instead of omitted (AEP-0001 §5.1)',
  'envelope/agent-scoped': 'an agent.* Event carries session, run, step or seq (AEP-0001 §5.2)',
  'envelope/session-scoped': 'a session-scoped Event lacks session or seq (AEP-0001 §5.2)',
  'envelope/foreign-emitter': 'a control command or attention.routed lacks session or carries seq (AEP-0001 §5.2, AEP-0004 §2.2)',
  'envelope/extension-name': 'an extension attribute name is not [a-z0-9]{1,20} (AEP-0001 §5.4)',
  'envelope/extension-value': 'an extension attribute value is not a JSON string, integer or boolean (AEP-0001 §5.4)',
  'envelope/extension-collision':
    'an attribute name appears twice, or an extension takes a name the CloudEvents bridge reserves ' + '(AEP-0001 §5.4, AEP-0005 §1)',
  'type/grammar': 'the type is not {category}.{rest} or x.{vendor}.{category}.{rest} (AEP-0001 §6)',
  'type/category': 'the type names a category outside the closed set (AEP-0002 §3, registry/categories.json)',
  'type/unregistered': 'a core-namespace type is not in the registry (AEP-0002 §4, registry/types.json)',
  'payload/schema': "`data` fails the registered type's payload schema (AEP-0002 §5)",
  'capture/above-level': 'a payload field needs a higher capture level than the Event declares (AEP-0001 §8.2(a), AEP-0002 §5.1, AEP-0006 values gating)',
  'id/conflict': 'one (source, id) names two different Events (AEP-0001 §5.1 #2, §7 rule 4)',
  'order/seq-regression': 'within one epoch of a session, seq goes below a seq already seen (AEP-0001 §7 rules 1-2)',
  'order/epoch-regression': 'a session goes back to an earlier epoch (AEP-0001 §7 rule 2)',
  'order/position-conflict': 'two different Events claim one (epoch, seq) position in a session (AEP-0001 §7 rule 2)',
  'lifecycle/run-terminal-duplicate': 'a run reaches a second terminal (run.finished / run.failed / run.cancelled) (AEP-0002 §2.5)',
  'lifecycle/session-end-duplicate': 'a session has a second distinct session.ended (AEP-0002 §2.5)',
  'lifecycle/after-session-end': 'new work is sequenced after session.ended; only late completions stay legal (AEP-0002 §2.5)',
  'lifecycle/attention-subject': 'an attention lifecycle Event after attention.requested lacks subject (AEP-0002 §7 rule 1)',
  'lifecycle/attention-terminal-duplicate': 'an attention request gets a second terminal (attention.resolved / attention.timeout) (AEP-0002 §2.5, §7)',
  'lifecycle/attention-dangling': 'a session ends with an attention request still pending (AEP-0002 §7 rule 2)',
  'control/ack-missing-cause': 'a control.accepted / control.rejected does not name its command in cause (AEP-0004 §3)',
  'control/ack-duplicate': 'a command gets a second ack decision (AEP-0004 §3: exactly one per command)',
  'form/not-a-form': 'attention.answered carries answer.values for a request that is not kind "form" (AEP-0006)',
  'form/required-missing': 'answer.values omits a field the form marks required (AEP-0002 §5.3, AEP-0006)',
  'form/invalid-choice': 'a select value is not one of its choices[].id and the field does not allow other (AEP-0006)',
  'form/multi-shape': 'a multi select is not answered with an array of distinct ids, or a single select with an array (AEP-0006)',
  'form/value-type': 'a value does not have its field type (string / number / boolean / select id) (AEP-0006)',
  'form/out-of-range': 'a number value lies outside the field min / max (AEP-0002 §5.2 field_spec)',
  'form/unknown-field': 'answer.values names a field the form does not have (AEP-0006: a map of field_spec.id)',
} as const;

export type RuleId = keyof typeof RULES;
export const RULE_IDS = Object.keys(RULES) as RuleId[];

export interface Violation {
  /** 1-based line in the input (for object input: 1-based index). */
  line: number;
  /** The Event's `id` when the line has one. */
  id?: string;
  rule: RuleId;
  message: string;
}
