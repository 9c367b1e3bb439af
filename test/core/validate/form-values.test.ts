import { describe, it, expect } from 'vitest';
import { formValuesError, formValuesIssues, isFreeTextValue, type FieldSpec } from '../../../engine/core/aep/form-values.ts';

const FIELDS: FieldSpec[] = [
  { id: 'name', type: 'string', label: '1', required: true },
  { id: 'ok', type: 'boolean', label: '2' },
  {
    id: 'langs',
    type: 'select',
    label: '3',
    multi: true,
    required: true,
    choices: [
      { id: 'ts', label: '1' },
      { id: 'go', label: '2' },
    ],
  },
  { id: 'color', type: 'select', label: '4', other: true, choices: [{ id: 'red', label: '1' }] },
  {
    id: 'size',
    type: 'select',
    label: '5',
    choices: [
      { id: 's', label: '1' },
      { id: 'm', label: '2' },
    ],
  },
  { id: 'n', type: 'number', label: '6', min: 1, max: 10 },
];
const GOOD = { name: 'x', ok: false, langs: ['ts'], color: 'teal', size: 'm', n: 10 };
const codes = (values: unknown) => formValuesIssues(FIELDS, values).map((i) => `${i.field}:${i.code}`);

describe('formValuesError', () => {
  it('accepts a complete, well-typed answer (other free text included)', () => {
    expect(formValuesError(FIELDS, GOOD)).toBeNull();
  });

  it('accepts omitted optional fields', () => {
    expect(formValuesError(FIELDS, { name: 'x', langs: ['go'] })).toBeNull();
  });

  it('names a missing required field', () => {
    expect(formValuesError(FIELDS, { ...GOOD, name: undefined })).toBe('field "name": required but not answered');
    expect(codes({ langs: ['ts'] })).toEqual(['name:required']);
  });

  it('treats an empty selection of a required multi select as missing', () => {
    expect(codes({ ...GOOD, langs: [] })).toEqual(['langs:required']);
  });

  it('rejects a non-choice for a closed select, allows it with other: true', () => {
    expect(codes({ ...GOOD, size: 'xl' })).toEqual(['size:choice']);
    expect(codes({ ...GOOD, langs: ['ts', 'rust'] })).toEqual(['langs:choice']);
    expect(codes({ ...GOOD, color: 'anything at all' })).toEqual([]);
  });

  it('checks multi arrays and single-select shape', () => {
    expect(codes({ ...GOOD, langs: 'ts' })).toEqual(['langs:multi']);
    expect(codes({ ...GOOD, langs: ['ts', 'ts'] })).toEqual(['langs:multi']);
    expect(codes({ ...GOOD, size: ['m'] })).toEqual(['size:multi']);
    expect(codes({ ...GOOD, langs: ['ts', 3] })).toEqual(['langs:type']);
  });

  it('checks number, boolean and string types, and number ranges', () => {
    expect(codes({ ...GOOD, n: '3' })).toEqual(['n:type']);
    expect(codes({ ...GOOD, n: Number.NaN })).toEqual(['n:type']);
    expect(codes({ ...GOOD, n: 0 })).toEqual(['n:range']);
    expect(codes({ ...GOOD, n: 11 })).toEqual(['n:range']);
    expect(codes({ ...GOOD, ok: 'true' })).toEqual(['ok:type']);
    expect(codes({ ...GOOD, name: 5 })).toEqual(['name:type']);
    expect(codes({ ...GOOD, name: null })).toEqual(['name:type']);
  });

  it('rejects keys that are not fields of the form', () => {
    expect(codes({ ...GOOD, shoe: 42 })).toEqual(['shoe:unknown']);
    // prototype names are not fields either
    expect(codes({ ...GOOD, constructor: 'x' })).toEqual(['constructor:unknown']);
  });

  it('rejects values that are not an object', () => {
    expect(formValuesError(FIELDS, [] as unknown as Record<string, unknown>)).toMatch(/must be an object/);
  });

  it('reports every issue, the first one as the error', () => {
    const v = { ok: 1, size: 'xl' };
    expect(codes(v)).toEqual(['name:required', 'ok:type', 'langs:required', 'size:choice']);
    expect(formValuesError(FIELDS, v)).toBe('field "name": required but not answered');
  });

  it('an empty form accepts only an empty answer', () => {
    expect(formValuesError([], {})).toBeNull();
    expect(formValuesError([], { a: 1 })).toMatch(/not a field/);
  });
});

describe('isFreeTextValue', () => {
  it('string fields and other free text are user-authored; ids, numbers, booleans are not', () => {
    expect(isFreeTextValue(FIELDS[0], 'x')).toBe(true);
    expect(isFreeTextValue(FIELDS[3], 'teal')).toBe(true);
    expect(isFreeTextValue(FIELDS[3], 'red')).toBe(false);
    expect(isFreeTextValue(FIELDS[2], ['ts', 'go'])).toBe(false);
    expect(isFreeTextValue(FIELDS[5], 3)).toBe(false);
    expect(isFreeTextValue(FIELDS[1], true)).toBe(false);
  });
});
