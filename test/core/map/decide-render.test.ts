// The pure reply rendering of engine/core/map/decide.ts, one row per behaviour:
// a held request's decision bytes (a string result is the bytes, anything
// else its JSON, nothing: the neutral bytes), the answer's bindings with the
// descriptor's vars evaluated after them, outcome drafts, a surface
// command's write bytes, and the content type of reply bytes. The daemon and
// the fixture runners (through it) render with these functions only.
import { describe, expect, it } from 'vitest';
import { compileMarked, isFailure, type Expr } from '../../../engine/core/expr/compile.ts';
import {
  answerBindings,
  commandApplies,
  commandBindings,
  contentTypeOf,
  renderCommandWrite,
  renderHoldDecision,
  renderOutcomes,
  templateBytes,
} from '../../../engine/core/map/decide.ts';

const expr = (src: string): Expr => {
  const e = compileMarked(src, ['test']);
  if (isFailure(e)) throw new Error(`bad test expression ${src}: ${e.message}`);
  return e;
};
const hold = (decisions: Record<string, string>) => ({ decisions: new Map(Object.entries(decisions).map(([k, v]) => [k, expr(v)])) });

describe('decision rendering (engine/core/map/decide.ts)', () => {
  const rows: { name: string; template: string; bindings?: Record<string, unknown>; want: string }[] = [
    { name: 'an object result is its JSON', template: '={"decision": {"behavior": "allow"}}', want: '{"decision":{"behavior":"allow"}}' },
    { name: 'a string result is the bytes, unquoted', template: '="allow"', want: 'allow' },
    {
      name: 'the answer text is bound',
      template: '={"message": $text}',
      bindings: { text: 'use the staging registry' },
      want: '{"message":"use the staging registry"}',
    },
    { name: 'nothing produced: the neutral bytes', template: '=$nothing', want: '<neutral>' },
  ];
  for (const r of rows) {
    it(r.name, async () => {
      expect(await renderHoldDecision(hold({ d: r.template }), 'd', {}, r.bindings ?? {}, '<neutral>')).toBe(r.want);
    });
  }

  it('templateBytes: strings as they are, everything else as JSON', () => {
    expect(templateBytes('{"a":1}')).toBe('{"a":1}');
    expect(templateBytes({ a: 1 })).toBe('{"a":1}');
    expect(templateBytes(3)).toBe('3');
  });

  it('answer bindings: the applied answer, then the vars in order (a var sees the ones before it and the payload)', async () => {
    const d = {
      vendor: 'agent-x',
      vars: [
        ['tool', expr('=tool_name')],
        ['label', expr('=$tool & ":" & $option')],
      ] as [string, Expr][],
    };
    const b = await answerBindings(d, {
      hook: 'Ask',
      session: 's1',
      request: { run: 'r1' },
      payload: { tool_name: 'Bash' },
      config: { k: 1 },
      applied: { option: 'allow' },
      answer: { option: 'allow' },
    });
    expect(b).toMatchObject({ hook: 'Ask', agent: 'agent-x', session: 's1', run: 'r1', config: { k: 1 }, option: 'allow', tool: 'Bash', label: 'Bash:allow' });
  });

  it('outcome drafts: typed by the emit (always literal), cause kept as written, none when the template yields nothing', async () => {
    const outcome = [
      { type: 'tool.denied', expr: expr('={"subject": tool_name, "data": {"reason": $text}}'), path: 'o[0]', typeText: 'tool.denied' },
      { type: 'x.agent.noted', expr: expr('=$option = "deny" ? {"cause": "c1"}'), path: 'o[1]', typeText: 'x.agent.noted' },
      { type: 'x.agent.never', expr: expr('=$option = "never" ? {}'), path: 'o[2]', typeText: 'x.agent.never' },
    ];
    const drafts = await renderOutcomes({ outcome }, { tool_name: 'Bash' }, { text: 'no', option: 'deny' }, 's1', 'r1');
    expect(drafts).toEqual([
      { type: 'tool.denied', session: 's1', subject: 'Bash', cause: undefined, run: 'r1', severity: undefined, gates: undefined, data: { reason: 'no' } },
      { type: 'x.agent.noted', session: 's1', subject: undefined, cause: 'c1', run: 'r1', severity: undefined, gates: undefined, data: {} },
    ]);
  });

  it('a surface command: bindings from the command, bytes from `write`, none when it writes nothing', async () => {
    const cmd = { type: 'control.cancel', data: { scope: 'session' } };
    const b = commandBindings({ vendor: 'agent-x' }, cmd, 's1', undefined, { on: true });
    expect(b).toEqual({ session: 's1', run: undefined, run_open: false, command: cmd, data: { scope: 'session' }, config: { on: true }, agent: 'agent-x' });
    expect(await renderCommandWrite({ write: expr('={"method": "session/cancel", "params": {"sessionId": $session}}') }, cmd, b)).toBe(
      '{"method":"session/cancel","params":{"sessionId":"s1"}}',
    );
    expect(await renderCommandWrite({ write: expr('=""') }, cmd, b)).toBeUndefined();
    expect(await renderCommandWrite({ write: expr('=$nothing') }, cmd, b)).toBeUndefined();
    expect(await commandApplies({ when: expr('=$config.on and data.scope = "session"') }, cmd, b)).toBe(true);
    expect(await commandApplies({ when: expr('=$run_open') }, cmd, b)).toBe(false);
    expect(await commandApplies({ when: expr('=$nothing') }, cmd, b)).toBe(false);
  });

  it("content type: the descriptor's, else JSON when the bytes parse, else plain text", () => {
    expect(contentTypeOf({ neutral: '', exitCode: 0, contentType: 'application/x-ndjson' }, '{}')).toBe('application/x-ndjson');
    expect(contentTypeOf({ neutral: '', exitCode: 0 }, '{"a":1}')).toBe('application/json');
    expect(contentTypeOf({ neutral: '', exitCode: 0 }, '   ')).toBe('text/plain; charset=utf-8');
    expect(contentTypeOf({ neutral: '', exitCode: 0 }, 'allow')).toBe('text/plain; charset=utf-8');
  });
});
