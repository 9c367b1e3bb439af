// A `kind: "form"` request rendered from its field specs (AEP-0006): text,
// number, yes/no, single select (radios) and multi select (checkboxes),
// each select optionally with "Other" free text; every field labelled,
// required ones marked, its error inline and tied to it for screen readers.
import { OTHER, emptyInput, type FieldInput, type FieldSpec } from '../model/forms.ts';

interface Props {
  cardId: string;
  fields: FieldSpec[];
  inputs: Record<string, FieldInput>;
  errors: Map<string, string>;
  disabled: boolean;
  onChange: (id: string, next: FieldInput) => void;
}

export function FormFields({ cardId, fields, inputs, errors, disabled, onChange }: Props) {
  return (
    <div class="form-fields">
      {fields.map((f, i) => {
        const inp = inputs[f.id] ?? emptyInput();
        const set = (patch: Partial<FieldInput>) => onChange(f.id, { ...inp, ...patch });
        const base = `${cardId}-f${i}`;
        const err = errors.get(f.id);
        const errId = `${base}-err`;
        const label = (
          <>
            {f.label || f.id}
            {f.required ? (
              <>
                <span class="req" aria-hidden="true">
                  {' '}
                  *
                </span>
                <span class="sr-only"> (required)</span>
              </>
            ) : null}
          </>
        );
        const error = err ? (
          <p class="field-error" id={errId}>
            {err}
          </p>
        ) : null;
        if (f.type === 'string' || f.type === 'number') {
          const hint =
            f.type === 'number' && (typeof f.min === 'number' || typeof f.max === 'number')
              ? ` (${typeof f.min === 'number' ? `from ${f.min}` : ''}${typeof f.min === 'number' && typeof f.max === 'number' ? ' ' : ''}` +
                `${typeof f.max === 'number' ? `to ${f.max}` : ''})`
              : '';
          return (
            <div class={`field${err ? ' invalid' : ''}`} key={f.id} data-field={f.id}>
              <label for={`${base}-in`}>
                {label}
                {hint ? <span class="hint">{hint}</span> : null}
              </label>
              <input
                id={`${base}-in`}
                type="text"
                inputMode={f.type === 'number' ? 'decimal' : 'text'}
                autocomplete="off"
                value={inp.text}
                disabled={disabled}
                aria-invalid={err ? 'true' : undefined}
                aria-describedby={err ? errId : undefined}
                aria-required={f.required ? 'true' : undefined}
                onInput={(e) => set({ text: (e.target as HTMLInputElement).value })}
              />
              {error}
            </div>
          );
        }
        if (f.type === 'boolean') {
          return (
            <fieldset
              class={`field${err ? ' invalid' : ''}`}
              key={f.id}
              data-field={f.id}
              aria-describedby={err ? errId : undefined}
              aria-invalid={err ? 'true' : undefined}
            >
              <legend>{label}</legend>
              <div class="choices choices-inline">
                {(['yes', 'no'] as const).map((v) => (
                  <label class="choice" key={v}>
                    <input type="radio" name={`${base}-b`} value={v} checked={inp.flag === v} disabled={disabled} onChange={() => set({ flag: v })} />
                    <span>{v === 'yes' ? 'Yes' : 'No'}</span>
                  </label>
                ))}
              </div>
              {error}
            </fieldset>
          );
        }
        if (f.type === 'select') {
          const multi = !!f.multi;
          const toggle = (id: string, on: boolean) => {
            if (!multi) return set({ chosen: on ? [id] : [] });
            const next = inp.chosen.filter((c) => c !== id);
            if (on) next.push(id);
            set({ chosen: next });
          };
          const otherOn = inp.chosen.includes(OTHER);
          return (
            <fieldset
              class={`field${err ? ' invalid' : ''}`}
              key={f.id}
              data-field={f.id}
              aria-describedby={err ? errId : undefined}
              aria-invalid={err ? 'true' : undefined}
            >
              <legend>
                {label}
                {multi ? <span class="hint"> (choose any)</span> : null}
              </legend>
              <div class="choices">
                {(f.choices ?? []).map((c) => (
                  <label class="choice" key={c.id}>
                    <input
                      type={multi ? 'checkbox' : 'radio'}
                      name={`${base}-s`}
                      value={c.id}
                      checked={inp.chosen.includes(c.id)}
                      disabled={disabled}
                      onChange={(e) => toggle(c.id, (e.target as HTMLInputElement).checked)}
                    />
                    <span>{c.label || c.id}</span>
                  </label>
                ))}
                {f.other ? (
                  <div class="choice choice-other">
                    <label>
                      <input
                        type={multi ? 'checkbox' : 'radio'}
                        name={`${base}-s`}
                        value={OTHER}
                        checked={otherOn}
                        disabled={disabled}
                        onChange={(e) => toggle(OTHER, (e.target as HTMLInputElement).checked)}
                      />
                      <span>Other</span>
                    </label>
                    <input
                      type="text"
                      class="other-text"
                      aria-label={`${f.label || f.id}: other answer`}
                      autocomplete="off"
                      value={inp.other}
                      disabled={disabled}
                      onInput={(e) => {
                        const v = (e.target as HTMLInputElement).value;
                        const chosen = otherOn || v === '' ? inp.chosen : multi ? [...inp.chosen, OTHER] : [OTHER];
                        onChange(f.id, { ...inp, other: v, chosen });
                      }}
                    />
                  </div>
                ) : null}
              </div>
              {error}
            </fieldset>
          );
        }
        return (
          <p class="field" key={f.id}>
            {f.label || f.id}: this field type ({String(f.type)}) cannot be answered here.
          </p>
        );
      })}
    </div>
  );
}
