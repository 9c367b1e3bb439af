// The AEP kernel (engine/core/kernel/): what an answer option means and so whether
// an answer is a refusal (read from the request, never guessed from an id),
// positions and their order, the lifecycle vocabulary generated from the AEP
// registry, and the command builder. The views that read it (the inbox's call
// outcome, the timeline's) agree, ACP's `never` (reject always) included.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateLifecycle, LIFECYCLE_FILE } from '../../../codegen/lifecycle.ts';
import { isDenial } from '../../../engine/person/bridge/call-outcome.ts';
import { loadVendor, ROOT } from '../../../engine/core/descriptor/registry.ts';
import { makeCommand } from '../../../engine/core/kernel/command.ts';
import { isCommand } from '../../../engine/core/kernel/event.ts';
import { closes, fateOf, isRunTerminal, isTerminal, mayFollowEnd, opens, RUN_TERMINALS, TYPE_SCOPE } from '../../../engine/core/kernel/lifecycle.ts';
import {
  answeredRefuses,
  declaredEffects,
  EFFECTS_ATTR,
  effectOf,
  formatEffects,
  isRefusal,
  parseEffects,
  permissiveOption,
  refusingOption,
  type OptionEffect,
} from '../../../engine/core/kernel/option-effects.ts';
import { comparePositions, insertSorted, positionOf, wellFormedPosition } from '../../../engine/core/kernel/position.ts';
import type { Ev } from '../../../web/src/model/aep.ts';
import { callOutcome } from '../../../web/src/model/calls.ts';
import { buildTimeline, type ToolRow } from '../../../web/src/model/timeline.ts';

describe('option effects', () => {
  it('a refusal is an option whose effect is deny or never, per effect', () => {
    const want: Record<OptionEffect, boolean> = { allow: false, deny: true, always: false, never: true };
    for (const [effect, refuses] of Object.entries(want)) {
      // the convention id means its own name
      expect(isRefusal({ option: effect }), effect).toBe(refuses);
      // a vendor id means what the request declares
      expect(isRefusal({ option: 'v1' }, { effects: { v1: effect as OptionEffect } }), `v1=${effect}`).toBe(refuses);
    }
  });

  it("ACP's reject-always is a refusal: `never` under control, the declared kind where the vendor's ids stay", () => {
    expect(isRefusal({ option: 'never' }, { kind: 'permission' })).toBe(true);
    expect(isRefusal({ option: 'reject_always' }, { kind: 'permission', effects: { reject_always: 'never' } })).toBe(true);
  });

  it('never guesses from an id: an undeclared vendor id is neither a refusal nor an allow', () => {
    for (const id of ['reject', 'no', 'cancel', 'deny_once', 'block']) {
      expect(isRefusal({ option: id }, { kind: 'permission' }), id).toBe(false);
      expect(effectOf(id)).toBeUndefined();
    }
    expect(permissiveOption([{ id: 'once' }, { id: 'reject' }])).toBeUndefined();
    expect(refusingOption([{ id: 'once' }, { id: 'reject' }])).toBeUndefined();
  });

  it('guidance text with no option refuses a permission (AEP-0008); a form answer never refuses', () => {
    expect(isRefusal({ text: 'use the test database' }, { kind: 'permission' })).toBe(true);
    expect(isRefusal({ text: 'blue' }, { kind: 'input' })).toBe(false);
    expect(isRefusal({ values: { a: 1 } }, { kind: 'permission' })).toBe(false);
    expect(isRefusal(undefined)).toBe(false);
  });

  it('the refusing option is the deny one, else the never one; the allowing one never an always one', () => {
    const acp = [{ id: 'allow' }, { id: 'always' }, { id: 'deny' }, { id: 'never' }];
    expect(refusingOption(acp)).toBe('deny');
    expect(refusingOption([{ id: 'always' }, { id: 'never' }])).toBe('never');
    expect(permissiveOption(acp)).toBe('allow');
    expect(permissiveOption([{ id: 'always' }, { id: 'never' }])).toBeUndefined();
  });

  it('the hookmapeffects attribute round-trips and marks only the vendor ids an event carries', () => {
    expect(parseEffects(formatEffects({ once: 'allow', reject: 'deny' }))).toEqual({ once: 'allow', reject: 'deny' });
    expect(parseEffects('once=allow bogus=maybe =deny x')).toEqual({ once: 'allow' });
    const kilo = loadVendor('kilocode').optionEffects;
    expect(kilo).toEqual({ once: 'allow', reject: 'deny' });
    const options = [{ id: 'once' }, { id: 'always' }, { id: 'reject' }];
    expect(declaredEffects('attention.requested', { options }, kilo)).toEqual({ [EFFECTS_ATTR]: 'once=allow reject=deny' });
    expect(declaredEffects('attention.answered', { answer: { option: 'reject' } }, kilo)).toEqual({ [EFFECTS_ATTR]: 'reject=deny' });
    expect(declaredEffects('attention.requested', { options: [{ id: 'allow' }, { id: 'deny' }] }, kilo)).toEqual({});
    const req = { [EFFECTS_ATTR]: 'once=allow reject=deny', data: { kind: 'permission' } };
    expect(answeredRefuses({ data: { answer: { option: 'reject' } } }, req)).toBe(true);
    expect(answeredRefuses({ data: { answer: { option: 'once' } } }, req)).toBe(false);
  });
});

describe('the views read one refusal', () => {
  const base = { aep: '0.1' as const, source: 'aep://h/agent/acp/session/s1', agent: 'acp', session: 's1', epoch: 0 };
  let n = 0;
  const ev = (type: string, seq: number, extra: Partial<Ev> & Record<string, unknown> = {}): Ev =>
    ({ ...base, id: `e${++n}`, type, time: `2026-12-02T08:00:0${seq}.000Z`, seq, ...extra }) as Ev;

  it('an ACP call answered "never" with no tool outcome is denied, in the inbox model and the timeline alike', () => {
    const call = ev('tool.requested', 2, { run: 'r1', subject: 'c1', data: { tool: { name: 'execute', call_id: 'c1' } } });
    const ask = ev('attention.requested', 3, { run: 'r1', subject: 'c1', cause: call.id, data: { kind: 'permission', prompt: 'Permission requested' } });
    const never = ev('attention.answered', 4, { subject: ask.id, data: { answer: { option: 'never' }, via: 'control', by: 'alex' } });
    const fin = ev('run.finished', 5, { run: 'r1' });
    const rows = buildTimeline([ev('run.started', 1, { run: 'r1' }), call, ask, never, fin]).rows;
    const o = callOutcome(rows.find((r) => r.id === call.id) as ToolRow);
    expect(o.status).toBe('denied');
    expect(o.text).toMatch(/^denied by alex/);
    expect(isDenial({ kind: 'permission', option: 'never' })).toBe(true);
    // observed (no opt-in): the editor's optionId verbatim, its meaning declared by the descriptor on the answer
    const observed = ev('attention.answered', 4, {
      subject: ask.id,
      hookmapeffects: 'reject_always=never',
      data: { answer: { option: 'reject_always' }, via: 'oob' },
    });
    const o2 = callOutcome(buildTimeline([ev('run.started', 1, { run: 'r1' }), call, ask, observed, fin]).rows.find((r) => r.id === call.id) as ToolRow);
    expect(o2).toEqual({ status: 'denied', text: "denied in the agent's own dialog" });
    // joined by the call id alone (ACP's subject), no cause
    const bySubject = { ...ask, id: 'ask-2', cause: undefined };
    const never2 = ev('attention.answered', 4, { subject: 'ask-2', data: { answer: { option: 'never' }, via: 'control', by: 'alex' } });
    const o4 = callOutcome(buildTimeline([ev('run.started', 1, { run: 'r1' }), call, bySubject, never2, fin]).rows.find((r) => r.id === call.id) as ToolRow);
    expect(o4.status).toBe('denied');
    // an option nothing declares is named as it is, never called an allow
    const unknown = ev('attention.answered', 4, { subject: ask.id, data: { answer: { option: 'proceed_sometimes' }, via: 'oob' } });
    const o3 = callOutcome(buildTimeline([ev('run.started', 1, { run: 'r1' }), call, ask, unknown, fin]).rows.find((r) => r.id === call.id) as ToolRow);
    expect(o3.text).toBe("answered “proceed_sometimes” in the agent's own dialog; no outcome reported");
    expect(loadVendor('acp').optionEffects.reject_always).toBe('never');
    expect(isDenial({ kind: 'permission', option: 'reject', effects: {} })).toBe(false);
  });
});

describe('positions', () => {
  it('order by epoch, then seq', () => {
    expect(comparePositions({ epoch: 0, seq: 9 }, { epoch: 1, seq: 0 })).toBeLessThan(0);
    expect(comparePositions({ epoch: 1, seq: 2 }, { epoch: 1, seq: 1 })).toBeGreaterThan(0);
    expect(comparePositions({ epoch: 2, seq: 3 }, { epoch: 2, seq: 3 })).toBe(0);
    expect(positionOf({ seq: 4 })).toEqual({ epoch: 0, seq: 4 });
    expect(wellFormedPosition({ seq: -1 })).toBeUndefined();
    expect(wellFormedPosition({ seq: 1.5 })).toBeUndefined();
    expect(wellFormedPosition({ seq: 3, epoch: 1 })).toEqual({ epoch: 1, seq: 3 });
  });

  it('insertSorted keeps position order whatever the arrival order', () => {
    const list: { epoch: number; seq: number }[] = [];
    for (const p of [
      { epoch: 0, seq: 2 },
      { epoch: 1, seq: 0 },
      { epoch: 0, seq: 0 },
      { epoch: 0, seq: 5 },
    ])
      insertSorted(list, p);
    expect(list.map((p) => `${p.epoch}.${p.seq}`)).toEqual(['0.0', '0.2', '0.5', '1.0']);
  });
});

describe('the lifecycle vocabulary', () => {
  const registry = JSON.parse(readFileSync(join(ROOT, 'schemas/aep/registry/types.json'), 'utf8')).types as { type: string; scope: string; status: string }[];

  it('is generated from the registry, and the committed file is what the generator writes (hookmap codegen --check)', () => {
    expect(readFileSync(join(ROOT, LIFECYCLE_FILE), 'utf8')).toBe(generateLifecycle().get(LIFECYCLE_FILE));
    for (const t of registry.filter((r) => r.status !== 'reserved')) expect(TYPE_SCOPE[t.type as keyof typeof TYPE_SCOPE], t.type).toBe(t.scope);
  });

  it("a run's terminals are the registry's run.* outcomes (AEP-0002 §2.2)", () => {
    expect([...RUN_TERMINALS].sort()).toEqual(['run.cancelled', 'run.failed', 'run.finished']);
    for (const t of RUN_TERMINALS) expect(registry.some((r) => r.type === t)).toBe(true);
    expect(isRunTerminal('run.started')).toBe(false);
    expect(isTerminal('session.ended')).toBe(true);
    expect(isTerminal('tool.completed')).toBe(false);
  });

  it('says which type opens and closes what, and what may follow an end', () => {
    expect(closes('attention.timeout')).toBe('attention');
    expect(closes('tool.denied')).toBe('tool');
    expect(closes('attention.answered')).toBeUndefined();
    expect(opens('attention.requested')).toBe('attention');
    expect(fateOf('run.failed')).toEqual({ unit: 'run', fate: 'failed' });
    expect(mayFollowEnd('tool.completed')).toBe(true);
    expect(mayFollowEnd('attention.answered')).toBe(true);
    expect(mayFollowEnd('x.hookmap.usage.reported')).toBe(true);
    expect(mayFollowEnd('tool.requested')).toBe(false);
    expect(mayFollowEnd('run.started')).toBe(false);
  });
});

describe('the command builder', () => {
  it('builds a command envelope with no seq, a fresh ULID and the sender named', () => {
    const c = makeCommand(
      'control.attention.respond',
      { session: 's1', subject: 'q1', data: { answer: { option: 'deny' } } },
      { source: 'aep://h/agent/t', agent: 't' },
    );
    expect(c).toMatchObject({ aep: '0.1', type: 'control.attention.respond', session: 's1', subject: 'q1', agent: 't', source: 'aep://h/agent/t' });
    expect(c.id).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(c.seq).toBeUndefined();
    expect(isCommand(c.type)).toBe(true);
    expect(isCommand('control.accepted')).toBe(false);
    expect(isCommand('x.acme.control.say')).toBe(true);
  });
});
