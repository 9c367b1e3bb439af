// Stateless checks of one Event: envelope, type, payload. The envelope schema
// (engine/core/aep/schemas.ts) stays the authority; this module only sorts its
// errors into the rule ids of rules.ts and words them for a human.
import type { ErrorObject } from 'ajv';
import {
  validateEnvelope,
  validatePayload,
  formatAjvErrors,
  CORE_ATTRIBUTES,
  REGISTRY_BY_TYPE,
  CATEGORIES,
  TYPE_PATTERN,
  SUPPORTED_VERSIONS,
  typeCategory,
} from '../aep/schemas.ts';
import type { RuleId } from './rules.ts';
import { duplicateTopLevelKeys } from './json-keys.ts';

export interface Finding {
  rule: RuleId;
  message: string;
}

// Names the CloudEvents bridge produces (AEP-0005 §1 B1/B4): an extension
// carrying one of them would be overwritten or misread on the CE side, which
// breaks the bridge's round-trip identity, the same harm as a core collision.
const CE_RESERVED = new Set([
  'specversion',
  'datacontenttype',
  'dataschema',
  'aepversion',
  'aepagentid',
  'aepsessionid',
  'aeprunid',
  'aepstep',
  'aepsequence',
  'aepepoch',
  'aepcausationid',
  'aepseverity',
  'aepcapture',
]);
const CATEGORY_NAMES = new Set(CATEGORIES.map((c) => c.name).filter((n) => n !== 'x'));
// Looser than TYPE_PATTERN on purpose: it accepts any first token so an
// unknown category is reported as type/category, not as a grammar error.
const GENERIC_TYPE = /^(x\.[a-z0-9_-]+\.[a-z0-9_]+(\.[a-z0-9_]+)+|[a-z0-9_]+(\.[a-z0-9_]+)+)$/;

const ENVELOPE_EXTENSION_NAME = /^[a-z0-9]{1,20}$/;

function quote(s: string): string {
  return JSON.stringify(s);
}

function attrOf(e: ErrorObject): string {
  if (e.keyword === 'required') return (e.params as { missingProperty: string }).missingProperty;
  return e.instancePath.split('/')[1] ?? '';
}

/** Checks of the envelope: version, scope rules, extensions, and the rest of the schema. */
export function envelopeFindings(ev: Record<string, unknown>, raw?: string): Finding[] {
  const out: Finding[] = [];
  const errors = validateEnvelope(ev);
  const scope = { agent: new Set<string>(), foreignMissing: false, foreignSeq: false, sessionMissing: [] as string[] };
  const extNames: string[] = [];
  const extValues: string[] = [];
  const nulls = new Set<string>();
  const rest: ErrorObject[] = [];
  for (const e of errors) {
    const sp = e.schemaPath;
    const attr = attrOf(e);
    if (e.keyword === 'if') continue; // the branch errors below say what failed
    if (sp.startsWith('#/allOf/0/then/')) scope.agent.add(attr);
    else if (sp.startsWith('#/allOf/0/else/then/')) {
      if (e.keyword === 'required') scope.foreignMissing = true;
      else scope.foreignSeq = true;
    } else if (sp.startsWith('#/allOf/0/else/else/')) scope.sessionMissing.push(attr);
    else if (sp.startsWith('#/propertyNames')) {
      if (e.keyword === 'propertyNames') extNames.push((e.params as { propertyName: string }).propertyName);
    } else if (sp.startsWith('#/additionalProperties')) extValues.push(attr);
    else if (e.instancePath === '/aep' || e.instancePath === '/type' || (e.keyword === 'required' && attr === 'aep'))
      continue; // own checks
    else if (e.instancePath && ev[attr] === null) nulls.add(attr);
    else rest.push(e);
  }

  const aep = ev.aep;
  if (aep === undefined) out.push({ rule: 'envelope/version', message: 'missing required attribute aep' });
  else if (typeof aep !== 'string' || !SUPPORTED_VERSIONS.includes(aep)) {
    out.push({ rule: 'envelope/version', message: `aep ${JSON.stringify(aep)} is not a supported version (${SUPPORTED_VERSIONS.join(', ')})` });
  }
  if (nulls.size) out.push({ rule: 'envelope/null-attribute', message: `${[...nulls].join(', ')} set to null; absent optional attributes must be omitted` });

  const type = typeof ev.type === 'string' ? ev.type : '?';
  if (scope.agent.size) out.push({ rule: 'envelope/agent-scoped', message: `agent-scoped ${type} must omit ${[...scope.agent].join(', ')}` });
  if (scope.foreignMissing || scope.foreignSeq) {
    const what = [scope.foreignMissing && 'must carry session', scope.foreignSeq && 'must omit seq (the sender does not own the session order)'].filter(
      Boolean,
    );
    out.push({ rule: 'envelope/foreign-emitter', message: `foreign-emitter ${type} ${what.join(' and ')}` });
  }
  if (scope.sessionMissing.length)
    out.push({ rule: 'envelope/session-scoped', message: `session-scoped ${type} must carry ${scope.sessionMissing.join(' and ')}` });

  for (const name of extNames) {
    out.push({ rule: 'envelope/extension-name', message: `extension attribute ${quote(name)} is not [a-z0-9]{1,20}` });
  }
  for (const name of extValues) {
    out.push({
      rule: 'envelope/extension-value',
      message: `extension attribute ${name} must be a string, integer or boolean, got ${JSON.stringify(ev[name])?.slice(0, 40)}`,
    });
  }
  for (const name of Object.keys(ev)) {
    if (!CORE_ATTRIBUTES.has(name) && ENVELOPE_EXTENSION_NAME.test(name) && CE_RESERVED.has(name)) {
      out.push({ rule: 'envelope/extension-collision', message: `extension attribute ${name} collides with a name the CloudEvents bridge reserves` });
    }
  }
  if (raw !== undefined) {
    for (const name of duplicateTopLevelKeys(raw)) {
      const core = CORE_ATTRIBUTES.has(name) ? ' (a core attribute overwritten by a second member)' : '';
      out.push({ rule: 'envelope/extension-collision', message: `attribute ${name} appears more than once${core}` });
    }
  }

  if (rest.length) out.push({ rule: 'envelope/schema', message: formatAjvErrors(rest) });
  return out;
}

/** Type grammar, the closed category set, registration, and the payload schema. */
export function typeAndPayloadFindings(ev: Record<string, unknown>): Finding[] {
  const type = ev.type;
  if (type === undefined) return []; // envelope/schema already says it is missing
  if (typeof type !== 'string') return [{ rule: 'type/grammar', message: `type must be a string, got ${JSON.stringify(type)}` }];
  if (!GENERIC_TYPE.test(type)) {
    return [{ rule: 'type/grammar', message: `type ${quote(type)} is not {category}.{rest} or x.{vendor}.{category}.{rest} (lowercase [a-z0-9_] tokens)` }];
  }
  const category = typeCategory(type);
  // The closed category set binds the core namespace. Vendor types may name
  // their own middle token: the normative Annex A pins themselves use
  // vendor types such as x.<vendor>.file.edited or x.<vendor>.step.completed.
  if (!type.startsWith('x.') && !CATEGORY_NAMES.has(category)) {
    return [{ rule: 'type/category', message: `type ${quote(type)}: category ${quote(category)} is not one of ${[...CATEGORY_NAMES].join(', ')}` }];
  }
  if (!TYPE_PATTERN.test(type)) {
    // e.g. x.demo.session: an x.* type needs a vendor, a category and a rest
    return [{ rule: 'type/grammar', message: `type ${quote(type)}: vendor types are x.{vendor}.{category}.{rest}` }];
  }
  if (type.startsWith('x.')) return []; // vendor payloads are free-form
  if (!REGISTRY_BY_TYPE.has(type)) {
    return [{ rule: 'type/unregistered', message: `${type} is in the core namespace but not a registered type; vendor types are x.{vendor}.${category}.…` }];
  }
  const data = ev.data;
  if (data !== undefined && (data === null || typeof data !== 'object' || Array.isArray(data))) return []; // envelope/schema reports it
  const errors = validatePayload(type, data);
  return errors.length ? [{ rule: 'payload/schema', message: `${type} data: ${formatAjvErrors(errors)}` }] : [];
}
