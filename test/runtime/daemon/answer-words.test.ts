// `allow` and `deny`, the AEP convention option words (`hookmap answer
// --allow|--deny`), answer a card whose options carry the vendor's own ids
// (Kilo Code's once / always / reject): allow is the allow-once option, never
// an "always" one; deny the refusing option; an id the card offers is taken as
// it is; a card with no allow-once option refuses `allow`. What the vendor's
// ids mean is what the card declares (Kilo Code's descriptor: option_effects,
// carried as the hookmapeffects attribute), never guessed from the id.
import { describe, expect, it } from 'vitest';
import { interpretAnswer, type RequestView } from '../../../engine/runtime/daemon/answer.ts';

const kilo: RequestView = {
  kind: 'permission',
  options: [
    { id: 'once', label: 'Allow once' },
    { id: 'always', label: 'Always allow' },
    { id: 'reject', label: 'Reject' },
  ],
  labelsReal: true,
  decisions: new Set(['once', 'always', 'reject', 'allow', 'deny', 'text']),
  effects: { once: 'allow', reject: 'deny' },
};

describe('the convention words allow and deny', () => {
  it('allow is the allow-once option, deny the refusing one', () => {
    expect(interpretAnswer({ option: 'allow' }, kilo)).toEqual({ ok: true, decision: 'once', applied: { option: 'once' } });
    expect(interpretAnswer({ option: 'deny' }, kilo)).toEqual({ ok: true, decision: 'reject', applied: { option: 'reject' } });
    // with a reason: the deny-with-guidance path, as for the card's own refusing id
    expect(interpretAnswer({ option: 'deny', text: 'not on main' }, kilo)).toEqual({
      ok: true,
      decision: 'text',
      applied: { option: 'reject', text: 'not on main' },
    });
  });

  it('never reads allow as "always", and refuses it where no allow-once option is offered', () => {
    const onlyAlways: RequestView = { ...kilo, options: [{ id: 'always' }, { id: 'reject' }] };
    const r = interpretAnswer({ option: 'allow' }, onlyAlways);
    expect(r.ok).toBe(false);
    expect(r.ok === false && r.detail).toMatch(/option "allow" is not offered \(always, reject\)/);
  });

  it('an offered id is taken as it is, and other unknown words are still refused', () => {
    const plain: RequestView = { ...kilo, options: [{ id: 'allow' }, { id: 'deny' }], decisions: new Set(['allow', 'deny']) };
    expect(interpretAnswer({ option: 'allow' }, plain)).toEqual({ ok: true, decision: 'allow', applied: { option: 'allow' } });
    expect(interpretAnswer({ option: 'yes' }, kilo).ok).toBe(false);
  });
});
