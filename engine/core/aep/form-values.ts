// Checks a form answer (`answer.values`) against the request's `fields`
// (AEP-0002 §5.2 field_spec, §5.3; AEP-0006). Pure and dependency-free: the
// daemon rejects an invalid `control.attention.respond` with it
// (`control.rejected{reason:"invalid"}`) and `hookmap validate` checks the
// recorded `attention.answered` with the same code, so the two never disagree.

export interface FieldChoice {
  id: string;
  label?: string;
}
export interface FieldSpec {
  id: string;
  type: 'string' | 'number' | 'boolean' | 'select' | string;
  label?: string;
  required?: boolean;
  multi?: boolean;
  other?: boolean;
  choices?: FieldChoice[];
  min?: number;
  max?: number;
}

export type FormIssueCode = 'required' | 'choice' | 'multi' | 'type' | 'range' | 'unknown';
export interface FormIssue {
  code: FormIssueCode;
  field: string;
  message: string;
}

function show(v: unknown): string {
  const s = JSON.stringify(v) ?? String(v);
  return s.length > 60 ? `${s.slice(0, 57)}...` : s;
}

function kindOf(v: unknown): string {
  return v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v;
}

/** Every problem with `values`, in field order then unknown keys; [] when the answer is valid. */
export function formValuesIssues(fields: FieldSpec[], values: unknown): FormIssue[] {
  if (values === null || typeof values !== 'object' || Array.isArray(values)) {
    return [{ code: 'type', field: '', message: `values must be an object mapping field ids to answers, got ${kindOf(values)}` }];
  }
  const vals = values as Record<string, unknown>;
  const issues: FormIssue[] = [];
  const push = (code: FormIssueCode, field: string, message: string) => issues.push({ code, field, message: `field "${field}": ${message}` });
  const known = new Set<string>();
  for (const f of fields) {
    known.add(f.id);
    // hasOwn, not `in`: a key like "constructor" must not be found on the prototype
    const present = Object.prototype.hasOwnProperty.call(vals, f.id) && vals[f.id] !== undefined;
    if (!present) {
      if (f.required) push('required', f.id, 'required but not answered');
      continue;
    }
    const v = vals[f.id];
    switch (f.type) {
      case 'string':
        if (typeof v !== 'string') push('type', f.id, `expected a string, got ${kindOf(v)}`);
        break;
      case 'number':
        if (typeof v !== 'number' || !Number.isFinite(v)) push('type', f.id, `expected a number, got ${kindOf(v)}`);
        else if (typeof f.min === 'number' && v < f.min) push('range', f.id, `${v} is below min ${f.min}`);
        else if (typeof f.max === 'number' && v > f.max) push('range', f.id, `${v} is above max ${f.max}`);
        break;
      case 'boolean':
        if (typeof v !== 'boolean') push('type', f.id, `expected a boolean, got ${kindOf(v)}`);
        break;
      case 'select': {
        const ids = (f.choices ?? []).map((c) => c.id);
        const checkOne = (x: unknown) => {
          if (typeof x !== 'string') push('type', f.id, `expected a choice id string, got ${kindOf(x)}`);
          else if (!ids.includes(x) && !f.other) push('choice', f.id, `${show(x)} is not one of the choices (${ids.join(', ')})`);
        };
        if (f.multi) {
          if (!Array.isArray(v)) {
            push('multi', f.id, `a multi select takes an array of choice ids, got ${kindOf(v)}`);
            break;
          }
          if (f.required && v.length === 0) push('required', f.id, 'required but no choice selected');
          const seen = new Set<unknown>();
          for (const x of v) {
            if (seen.has(x)) push('multi', f.id, `${show(x)} is selected twice`);
            seen.add(x);
            checkOne(x);
          }
        } else if (Array.isArray(v)) {
          push('multi', f.id, 'a single select takes one choice id, not an array');
        } else {
          checkOne(v);
        }
        break;
      }
      default:
        // An unknown field type is the request's problem (its schema rejects
        // it); there is nothing sound to check the value against.
        break;
    }
  }
  for (const k of Object.keys(vals)) {
    if (!known.has(k)) issues.push({ code: 'unknown', field: k, message: `field "${k}": not a field of this form` });
  }
  return issues;
}

/** The first problem with a form answer as a human-readable reason, or null when it is valid. */
export function formValuesError(fields: FieldSpec[], values: Record<string, unknown>): string | null {
  return formValuesIssues(fields, values)[0]?.message ?? null;
}

/**
 * Is this value user-authored text (a string field, or `other` free text on a
 * select)? Such values need capture `redacted` or above (AEP-0006 gating).
 */
export function isFreeTextValue(field: FieldSpec, value: unknown): boolean {
  if (field.type === 'string') return true;
  if (field.type !== 'select') return false;
  const ids = new Set((field.choices ?? []).map((c) => c.id));
  const list = Array.isArray(value) ? value : [value];
  return list.some((x) => typeof x === 'string' && !ids.has(x));
}
