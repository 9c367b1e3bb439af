// The budgets' config (hostile files refused, located and coded, nothing of
// them in force) and the book that reads spend off the stream
// (engine/runtime/usage/budgets.ts): a replayed stream counted but never announced
// again, another machine's crossing never announced twice, hook-carried
// usage priced by the price book, bad events skipped, every map bounded,
// the hook path's verdict a lookup.
import { BUDGET_FINISHING } from '../../../engine/runtime/usage/budget-finish.ts';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadUpConfig } from '../../../engine/app/up-config.ts';
import { budgetsOf } from '../../../engine/runtime/usage/budget-schema.ts';
import { BUDGET_LIMITS, BUDGET_RAISED, BUDGET_REACHED, BUDGET_WARNED, BudgetBook, VIEW_MAX, type StreamEvent } from '../../../engine/runtime/usage/budgets.ts';
import { PriceBook } from '../../../engine/runtime/usage/prices.ts';
import { tempDir } from '../daemon/helpers.ts';

const cleanups: (() => void)[] = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()!();
});

function load(text: string): string | ReturnType<typeof loadUpConfig> {
  const t = tempDir('hookmap-budget-config-');
  cleanups.push(t.done);
  const file = join(t.dir, 'up.yaml');
  writeFileSync(file, text);
  try {
    return loadUpConfig(file, {});
  } catch (e) {
    return (e as Error).message.replaceAll(file, 'up.yaml');
  }
}

describe('the budgets: config', () => {
  it('loads a budget with its defaults (day window, warning at 80%)', () => {
    const c = load('budgets:\n  - { id: shop-api, scope: project, only: shop-api, usd: 10, at_cap: block }\n');
    expect(typeof c === 'string' ? c : c.budgets).toEqual([
      { id: 'shop-api', scope: 'project', only: 'shop-api', window: 'day', unit: 'usd', cap: 10, warnAt: 0.8, atCap: 'block', raiseBy: 5, reason: undefined },
    ]);
  });

  it.each([
    ['a negative cap', '{ id: a, scope: session, usd: -1, at_cap: block }', 'up.yaml:2:35 invalid-value: budgets[0].usd must be more than 0 (got -1)'],
    ['a zero cap', '{ id: a, scope: session, tokens: 0, at_cap: block }', 'budgets[0].tokens must be more than 0'],
    ['an unknown scope', '{ id: a, scope: team, usd: 1, at_cap: block }', 'budgets[0].scope must be one of session, project, agent, all (got "team")'],
    ['a huge cap', '{ id: a, scope: all, usd: 1e300, at_cap: block }', 'budgets[0].usd must be at most 1000000 (got 1e+300)'],
    ['a huge token cap', '{ id: a, scope: all, tokens: 1e20, at_cap: block }', 'budgets[0].tokens must be at most 1000000000000'],
    ['fractional tokens', '{ id: a, scope: all, tokens: 1.5, at_cap: block }', 'budgets[0].tokens'],
    ['both units', '{ id: a, scope: session, usd: 1, tokens: 5, at_cap: block }', 'budgets[0]: a budget has exactly one of usd or tokens'],
    ['no unit', '{ id: a, scope: session, at_cap: block }', 'budgets[0]: a budget has exactly one of usd or tokens'],
    ['a window on a session', '{ id: a, scope: session, usd: 1, window: day, at_cap: block }', 'budgets[0].window: a session budget runs for the session'],
    ['a week window', '{ id: a, scope: all, usd: 1, window: week, at_cap: block }', 'budgets[0].window must be one of day, month'],
    ['only on all', '{ id: a, scope: all, only: x, usd: 1, at_cap: block }', 'budgets[0].only: only narrows a project or agent budget'],
    ['a warning share of 1.5', '{ id: a, scope: all, usd: 1, warn_at: 1.5, at_cap: block }', 'budgets[0].warn_at'],
    ['an unknown action', '{ id: a, scope: all, usd: 1, at_cap: explode }', 'budgets[0].at_cap must be one of block, ask, notify'],
    ['raise_by on a block budget', '{ id: a, scope: all, usd: 1, at_cap: block, raise_by: 1 }', 'budgets[0].raise_by: raise_by is for at_cap: ask'],
    ['a negative raise_by', '{ id: a, scope: all, usd: 1, at_cap: ask, raise_by: -1 }', 'budgets[0].raise_by must be more than 0'],
    ['a huge raise_by', '{ id: a, scope: all, tokens: 10, at_cap: ask, raise_by: 1e13 }', 'budgets[0].raise_by: raise_by is at most the largest cap'],
    ['no action', '{ id: a, scope: all, usd: 1 }', 'budgets[0].at_cap'],
    ['an unknown key', '{ id: a, scope: all, usd: 1, at_cap: block, per: day }', 'per'],
    ['an id with a newline', '{ id: "a\\nb", scope: all, usd: 1, at_cap: block }', 'budgets[0].id'],
    ['a cap as a string', '{ id: a, scope: all, usd: "10", at_cap: block }', 'budgets[0].usd'],
  ])('refuses %s, saying where', (_what, entry, message) => {
    const c = load(`budgets:\n  - ${entry}\n`);
    expect(typeof c).toBe('string');
    expect(c).toMatch(/^up\.yaml:\d+:\d+ [a-z-]+: /);
    expect(c).toContain(message);
  });

  it('refuses a duplicate id and more than 64 budgets', () => {
    expect(load('budgets:\n  - { id: a, scope: all, usd: 1, at_cap: block }\n  - { id: a, scope: all, usd: 2, at_cap: notify }\n')).toContain(
      'up.yaml:3:11 invalid-value: budgets[1].id: budget id a is used twice',
    );
    const many = Array.from({ length: 65 }, (_, i) => `  - { id: b${i}, scope: all, usd: 1, at_cap: notify }`).join('\n');
    expect(load(`budgets:\n${many}\n`)).toMatch(/budgets.*(64|too big)/i);
  });
});

const T0 = Date.parse('2026-12-02T12:00:00Z');
let n = 0;
const ev = (o: Partial<StreamEvent> & { type: string }): StreamEvent => ({ id: `e${++n}`, time: new Date(T0).toISOString(), agent: 'a1', session: 's1', ...o });
const started = (session: string, project: string, agent = 'a1') => ev({ type: 'session.started', session, agent, hookmapproject: project, data: {} });
const used = (o: { input: number; output?: number; usd?: number; model?: string; time?: number; session?: string; agent?: string; source?: string }) =>
  ev({
    type: 'x.hookmap.usage.reported',
    session: o.session ?? 's1',
    agent: o.agent ?? 'a1',
    source: o.source ?? 'aep://here/agent/a1',
    time: new Date(o.time ?? T0).toISOString(),
    data: {
      'gen_ai.usage.input_tokens': o.input,
      'gen_ai.usage.output_tokens': o.output ?? 0,
      ...(o.model ? { 'gen_ai.response.model': o.model } : {}),
      ...(o.usd !== undefined ? { cost: { currency: 'USD', total: o.usd } } : {}),
    },
  });

function book(list: Parameters<typeof budgetsOf>[0], o: { now?: () => number; mine?: (e: StreamEvent) => boolean; prices?: PriceBook } = {}) {
  const said: { type: string; data: Record<string, unknown> }[] = [];
  const b = new BudgetBook(budgetsOf(list), { now: o.now ?? (() => T0), mine: o.mine, prices: o.prices, announce: (type, data) => said.push({ type, data }) });
  return { b, said };
}

describe('the budget book', () => {
  it("folds a person's raise once, on every machine, and only hookmap's own", () => {
    const list = [{ id: 'ask', scope: 'session' as const, tokens: 100, at_cap: 'ask' as const }];
    const here = book(list);
    const there = book(list);
    for (const x of [here.b, there.b]) x.add(used({ input: 120 }));
    const v = here.b.verdict('a1', 's1')!;
    expect(v.headline).toBe('session s1 has spent 120 tokens of 100 tokens');
    expect(here.b.raise(v, 'alice', 'req1')).toMatchObject({ budget: 'ask', name: 's1', cap: 150, amount: 50, raised: 50, by: 'alice', request: 'req1' });
    const raised = here.said.find((x) => x.type === BUDGET_RAISED)!;
    expect(here.b.verdict('a1', 's1')).toBeUndefined(); // 120 of 150: applied here at once
    expect(there.b.verdict('a1', 's1')).toBeDefined();
    there.b.add(ev({ type: BUDGET_RAISED, agent: 'a1', data: raised.data })); // an agent's forged raise: ignored
    expect(there.b.verdict('a1', 's1')).toBeDefined();
    const onStream = ev({ type: BUDGET_RAISED, agent: 'hookmap', data: raised.data });
    for (const x of [here.b, there.b]) x.add(onStream); // the stream brings it back here: not counted twice
    expect(there.b.verdict('a1', 's1')).toBeUndefined();
    for (const x of [here.b, there.b]) x.add(used({ input: 31 }));
    expect(here.b.verdict('a1', 's1')?.data).toMatchObject({ cap: 150, spent: 151 });
    expect(there.b.verdict('a1', 's1')?.data).toMatchObject({ cap: 150, spent: 151 });
    expect(there.b.view()[0].spends[0]).toMatchObject({ spent: 151, raised: 150, state: 'reached', next: 'the next tool call is held with a card (ask)' });
    expect(there.b.verdict('a1', 's1', (b) => b.atCap === 'ask')).toBeUndefined(); // a run a person let finish
  });

  it('"let this run finish" is said on the stream and folded from it: a restarted book (the replay) still lets that run pass', () => {
    const list = [{ id: 'ask', scope: 'session' as const, tokens: 100, at_cap: 'ask' as const }];
    const here = book(list);
    here.b.finishing.let('ask', 's1', 'r1', 'alice', 'req1');
    expect(here.said).toEqual([{ type: BUDGET_FINISHING, data: { budget: 'ask', session: 's1', run: 'r1', by: 'alice', request: 'req1' } }]);
    expect(here.b.finishing.passes('s1', 'r1')).toBe(true);
    expect(here.b.finishing.passes('s1', 'r2')).toBe(false); // the next run is asked again
    // after a restart: a new book reads the stream back
    const after = book(list);
    after.b.add(ev({ type: BUDGET_FINISHING, agent: 'a1', data: { session: 's2', run: 'r9' } })); // an agent's forged record: ignored
    expect(after.b.finishing.passes('s2', 'r9')).toBe(false);
    after.b.add(ev({ type: BUDGET_FINISHING, agent: 'hookmap', data: here.said[0].data }));
    expect(after.b.finishing.passes('s1', 'r1')).toBe(true);
    expect(after.b.finishing.passes('s1~2', 'r1')).toBe(true); // one line
    after.b.add(ev({ type: BUDGET_FINISHING, agent: 'hookmap', data: { session: 's1', run: 42 } })); // unreadable: skipped
    expect(after.b.finishing.passes('s1', 'r1')).toBe(true);
  });

  it('counts a stream read back after a restart without announcing it again, and still blocks', () => {
    const { b, said } = book([{ id: 's', scope: 'session', usd: 1, at_cap: 'block' }], { now: () => T0 + 60_000 });
    b.add(used({ input: 10, usd: 0.9 })); // a minute before the book started: read back
    b.add(used({ input: 10, usd: 0.2 }));
    expect(said).toEqual([]);
    expect(b.verdict('a1', 's1')?.data).toMatchObject({ budget: 's', spent: 1.1 });
  });

  it("announces only its own machine's crossings, and never one another machine announced", () => {
    const mine = (e: StreamEvent) => String(e.source).startsWith('aep://here/');
    const { b, said } = book([{ id: 'all', scope: 'all', tokens: 100, at_cap: 'notify' }], { mine });
    b.add(used({ input: 85, source: 'aep://there/agent/a1' }));
    expect(said).toEqual([]); // there warns
    b.add(ev({ type: BUDGET_REACHED, agent: 'a1', data: { budget: 'all', name: '*', window: '2026-12-02' } })); // not hookmap's: ignored
    b.add(ev({ type: BUDGET_WARNED, agent: 'hookmap', data: { budget: 'all', name: '*', window: '2026-12-02' } }));
    b.add(used({ input: 10 }));
    expect(said).toEqual([]); // warned already, by there
    b.add(used({ input: 10 }));
    expect(said.map((s) => s.type)).toEqual([BUDGET_REACHED]);
    expect(said[0].data).toMatchObject({ budget: 'all', name: '*', window: '2026-12-02', spent: 105, cap: 100, at_cap: 'notify' });
  });

  it('prices hook-carried usage (no cost on the event) by the price book, and counts unpriced usage in tokens only', () => {
    const { b } = book(
      [
        { id: 'usd', scope: 'agent', usd: 1, at_cap: 'block' },
        { id: 'tok', scope: 'agent', tokens: 1000, at_cap: 'block' },
      ],
      { prices: new PriceBook(new Map([['own-model', { input: 1_000_000, output: 0 }]])) },
    );
    b.add(used({ input: 1, model: 'own-model' })); // $1 per token
    b.add(used({ input: 2000, model: 'nobody-prices-this' }));
    const v = b.view();
    expect(v[0].spends).toMatchObject([{ name: 'a1', spent: 1, unpriced: 1, state: 'reached' }]);
    expect(v[1].spends).toMatchObject([{ name: 'a1', spent: 2001, state: 'reached' }]);
  });

  it('counts a project by the label its session started with, and a resumed session (~2) in its line', () => {
    const { b } = book([
      { id: 'p', scope: 'project', tokens: 100, at_cap: 'block' },
      { id: 's', scope: 'session', tokens: 100, at_cap: 'block' },
    ]);
    b.add(started('s1', 'shop-api'));
    b.add(used({ input: 60 }));
    b.add(used({ input: 60, session: 's1~2' }));
    expect(b.verdict('a1', 's1~2')?.budget.id).toBe('p');
    expect(b.view()[1].spends).toMatchObject([{ name: 's1', spent: 120 }]);
    expect(b.verdict('a1', 'other')).toBeUndefined(); // no project known, its own session under the cap
  });

  it('skips bad events (no id, no time, negative or string counts, a duplicate) and never throws', () => {
    const { b } = book([{ id: 'all', scope: 'all', tokens: 100, at_cap: 'block' }]);
    const bad: StreamEvent[] = [
      { type: 'x.hookmap.usage.reported', data: { 'gen_ai.usage.input_tokens': 500 } },
      { ...used({ input: 500 }), time: 'yesterday' },
      used({ input: -500 }),
      { ...used({ input: 0 }), data: { 'gen_ai.usage.input_tokens': '500' } },
      { ...used({ input: 0 }), data: null },
      { ...used({ input: 0 }), data: [1, 2] },
      { ...used({ input: 0 }), type: 42 },
    ];
    for (const e of bad) expect(() => b.add(e)).not.toThrow();
    expect(b.verdict('a1', 's1')).toBeUndefined();
    const once = used({ input: 60 });
    b.add(once);
    b.add(once); // the same event twice (a replay overlapping live): counted once
    expect(b.view()[0].spends).toMatchObject([{ spent: 60 }]);
  });

  it('holds at most its bounds of keys (the least recently spent go first) and lists at most VIEW_MAX a budget', () => {
    const { b } = book([{ id: 's', scope: 'session', tokens: 100, at_cap: 'block' }]);
    b.add(used({ input: 100, session: 'x0' }));
    expect(b.verdict('a1', 'x0')).toBeDefined();
    for (let i = 1; i <= BUDGET_LIMITS.keys; i++) b.add(used({ input: 1, session: `x${i}` }));
    const v = b.view()[0];
    expect(v.scopes).toBe(BUDGET_LIMITS.keys);
    expect(v.spends).toHaveLength(VIEW_MAX);
    expect(b.verdict('a1', 'x0')).toBeUndefined(); // forgotten: a hundred thousand sessions spent since
  });

  it('answers the hook path in well under a microsecond a budget', () => {
    const { b } = book(Array.from({ length: 8 }, (_, i) => ({ id: `b${i}`, scope: 'session' as const, tokens: 1000, at_cap: 'block' as const })));
    for (let i = 0; i < 10_000; i++) b.add(used({ input: 1, session: `s${i}` }));
    const t = performance.now();
    for (let i = 0; i < 100_000; i++) b.verdict('a1', `s${i % 10_000}`);
    const perCall = ((performance.now() - t) / 100_000) * 1000;
    expect(perCall).toBeLessThan(50); // µs per verdict over 8 budgets (measured well below; bounded loosely for a loaded CI)
  });
});
