// Form answers against their request (AEP-0006): an attention.answered whose
// answer.values answers an attention.requested{kind:"form"} in the same
// session is checked with the shared engine/core/aep/form-values.ts, plus the
// type-dependent capture gating of values (free text needs `redacted`).
// An answer to a request outside the capture is not checked (nothing to
// check against).
import { formValuesIssues, isFreeTextValue, type FieldSpec, type FormIssueCode } from '../aep/form-values.ts';
import { captureRank } from '../aep/schemas.ts';
import type { RuleId } from './rules.ts';
import type { Finding } from './envelope-rules.ts';
import { declaredCapture } from './capture-rules.ts';
import { sessionKey, subKey } from './keys.ts';
import { TYPE } from '../kernel/lifecycle.ts';

const RULE_OF: Record<FormIssueCode, RuleId> = {
  required: 'form/required-missing',
  choice: 'form/invalid-choice',
  multi: 'form/multi-shape',
  type: 'form/value-type',
  range: 'form/out-of-range',
  unknown: 'form/unknown-field',
};

interface Request {
  kind: unknown;
  fields: FieldSpec[] | undefined;
  line: number;
}

export class FormRules {
  private requests = new Map<string, Request>();

  observe(ev: Record<string, unknown>, line: number): Finding[] {
    const sk = sessionKey(ev);
    const data = ev.data as Record<string, any> | undefined;
    if (!sk || !data || typeof data !== 'object') return [];
    if (ev.type === TYPE.attentionRequested && typeof ev.id === 'string') {
      const fields = Array.isArray(data.fields)
        ? data.fields.filter((f: unknown) => f && typeof f === 'object' && typeof (f as FieldSpec).id === 'string')
        : undefined;
      if (!this.requests.has(subKey(sk, ev.id))) this.requests.set(subKey(sk, ev.id), { kind: data.kind, fields, line });
      return [];
    }
    if (ev.type !== TYPE.attentionAnswered || typeof ev.subject !== 'string') return [];
    const values = data.answer?.values;
    if (values === undefined) return [];
    const req = this.requests.get(subKey(sk, ev.subject));
    if (!req) return [];
    if (req.kind !== 'form' || !req.fields) {
      return [
        {
          rule: 'form/not-a-form',
          message: `answer.values answers ${ev.subject} (line ${req.line}), a kind ${JSON.stringify(req.kind)} request; values answer only kind "form"`,
        },
      ];
    }
    const out: Finding[] = formValuesIssues(req.fields, values).map((i) => ({
      rule: RULE_OF[i.code],
      message: `${i.message} (form ${ev.subject}, line ${req.line})`,
    }));
    const level = declaredCapture(ev);
    if (level && captureRank(level) < captureRank('redacted') && values && typeof values === 'object') {
      const byId = new Map(req.fields.map((f) => [f.id, f]));
      const text = Object.entries(values as Record<string, unknown>)
        .filter(([k, v]) => byId.has(k) && isFreeTextValue(byId.get(k)!, v))
        .map(([k]) => k);
      if (text.length) {
        out.push({ rule: 'capture/above-level', message: `capture ${level} but answer.values carries free text for ${text.join(', ')} (needs redacted)` });
      }
    }
    return out;
  }
}
