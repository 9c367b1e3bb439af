// A `kind: "form"` request (AEP-0006 field_spec: string, number, boolean,
// single/multi select, `other` free text) as editable state, turned into
// `answer.values` and checked with the same rules the daemon applies
// (engine/core/aep/form-values.ts), so a person sees every problem inline before
// anything is sent; what the agent still rejects comes back as
// `control.rejected` and is shown beside the form.
import { formValuesIssues, type FieldSpec } from '../../../engine/core/aep/form-values.ts';

export type { FieldSpec };

export const OTHER = '\u0000other';

export interface FieldInput {
  text: string;
  /** select: chosen choice ids (single: at most one), OTHER for the free-text choice. */
  chosen: string[];
  other: string;
  /** boolean: 'yes' | 'no' | '' (unanswered). */
  flag: '' | 'yes' | 'no';
}

export const emptyInput = (): FieldInput => ({ text: '', chosen: [], other: '', flag: '' });

export interface FormCheck {
  values: Record<string, unknown>;
  /** field id -> what is wrong with it, in words for a person. */
  errors: Map<string, string>;
}

export function fieldsOf(data: Record<string, any> | undefined): FieldSpec[] {
  const f = data?.fields;
  return Array.isArray(f) ? f.filter((x) => x && typeof x.id === 'string' && typeof x.type === 'string') : [];
}

export function checkForm(fields: FieldSpec[], inputs: Record<string, FieldInput>): FormCheck {
  const values: Record<string, unknown> = {};
  const errors = new Map<string, string>();
  for (const f of fields) {
    const inp = inputs[f.id] ?? emptyInput();
    switch (f.type) {
      case 'string':
        if (inp.text.trim() !== '') values[f.id] = inp.text;
        break;
      case 'number': {
        const raw = inp.text.trim();
        if (raw === '') break;
        const n = Number(raw);
        if (!Number.isFinite(n)) errors.set(f.id, 'Enter a number.');
        else values[f.id] = n;
        break;
      }
      case 'boolean':
        if (inp.flag) values[f.id] = inp.flag === 'yes';
        break;
      case 'select': {
        const picked = inp.chosen.filter((c) => c !== OTHER);
        const other = inp.chosen.includes(OTHER) ? inp.other.trim() : '';
        if (inp.chosen.includes(OTHER) && other === '') errors.set(f.id, 'Write your answer, or pick one of the choices.');
        if (f.multi) {
          const all = other ? [...picked, other] : picked;
          if (all.length) values[f.id] = all;
        } else if (other) values[f.id] = other;
        else if (picked.length) values[f.id] = picked[0];
        break;
      }
      default:
        break;
    }
  }
  for (const issue of formValuesIssues(fields, values)) {
    if (errors.has(issue.field)) continue;
    const f = fields.find((x) => x.id === issue.field);
    errors.set(issue.field, say(issue.code, f, issue.message));
  }
  return { values, errors };
}

function say(code: string, f: FieldSpec | undefined, fallback: string): string {
  switch (code) {
    case 'required':
      return f?.type === 'select'
        ? f.multi
          ? 'Choose at least one.'
          : 'Choose one.'
        : f?.type === 'boolean'
          ? 'Answer yes or no.'
          : 'This field is required.';
    case 'range':
      if (typeof f?.min === 'number' && typeof f?.max === 'number') return `Enter a number from ${f.min} to ${f.max}.`;
      if (typeof f?.min === 'number') return `Enter ${f.min} or more.`;
      if (typeof f?.max === 'number') return `Enter ${f.max} or less.`;
      return fallback;
    case 'choice':
      return 'Choose one of the listed options.';
    default:
      return fallback.replace(/^field "[^"]*": /, '');
  }
}
