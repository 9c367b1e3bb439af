// A resumed session and its `~N` parts are one story in `hookmap usage --by
// session` (issue 44 "the whole bill"): one row keyed by the line (the
// kernel's lineOf), the tokens and cost of every part summed, the parts
// named; other groupings and other sessions are untouched. Through the real
// indexer over a session log as a daemon writes it.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openCaughtUp } from '../../../engine/person/history/history.ts';
import { sessions, usage } from '../../../engine/person/history/query.ts';
import type { Db } from '../../../engine/person/history/store.ts';
import { tempDir } from '../../runtime/daemon/helpers.ts';
import { runCli } from '../../helpers/cli.ts';

let home: string;
let done: () => void;
let db: Db;

const reported = (session: string, n: number, input: number, output: number, cost: number) => ({
  aep: '0.1',
  id: `01J${session.replace(/\W/g, 'X').toUpperCase().padEnd(12, '0')}${String(n).padStart(11, '0')}`.slice(0, 26),
  type: 'x.hookmap.usage.reported',
  time: `2026-11-0${n}T10:00:00.000Z`,
  source: 'aep://t/agent/claude-code',
  agent: 'claude-code',
  session,
  data: {
    'gen_ai.request.model': 'claude-sonnet-4-5',
    'gen_ai.usage.input_tokens': input,
    'gen_ai.usage.output_tokens': output,
    cost: { currency: 'USD', total: cost },
  },
});

beforeAll(() => {
  ({ dir: home, done } = tempDir('hookmap-lineage-'));
  const logs = join(home, 'logs', 'claude-code');
  mkdirSync(logs, { recursive: true });
  const write = (session: string, events: object[]) => writeFileSync(join(logs, `${session}.jsonl`), events.map((e) => `${JSON.stringify(e)}\n`).join(''));
  write('s-1', [reported('s-1', 1, 1000, 100, 0.01), reported('s-1', 2, 2000, 200, 0.02)]);
  write('s-1~2', [reported('s-1~2', 3, 500, 50, 0.005)]);
  write('s-1~10', [reported('s-1~10', 4, 10, 1, 0.0001)]);
  write('other', [reported('other', 5, 7, 3, 0.0002)]);
  db = openCaughtUp(home).db;
});

afterAll(() => {
  db?.close();
  done();
});

describe('usage by session: a resumed session is one story', () => {
  it('sums every part under the line and names the parts', () => {
    const groups = usage(db, { by: 'session' });
    expect(groups.map((g) => [g.key, g.sessions, g.input_tokens, g.output_tokens, g.parts])).toEqual([
      ['claude-code other', 1, 7, 3, ['other']],
      ['claude-code s-1', 3, 3510, 351, ['s-1', 's-1~2', 's-1~10']],
    ]);
    expect(groups[1].cost_usd).toBeCloseTo(0.0351, 9);
  });

  it('other groupings count each part once and carry no parts', () => {
    const [agent] = usage(db, { by: 'agent' });
    expect(agent).toMatchObject({ key: 'claude-code', sessions: 4, input_tokens: 3517, output_tokens: 354 });
    expect(agent.parts).toBeUndefined();
  });

  it('`hookmap usage --by session` prints one row per line with its parts', async () => {
    const out = await runCli(['usage', '--by', 'session'], { ...process.env, HOOKMAP_HOME: home });
    expect(out.code).toBe(0);
    const row = out.stdout.split('\n').find((l) => l.startsWith('claude-code s-1 '))!;
    expect(row).toMatch(/^claude-code s-1\s+3\s+3510\s+351\s+0\s+0\s+\$0\.0351\s+s-1 s-1~2 s-1~10$/);
  });

  it("`sessions` gives each part of a line the line's totals and parts; a session alone in its line gets none", async () => {
    const rows = sessions(db);
    const of = (id: string) => rows.find((r) => r.session === id)!;
    expect(of('s-1~2')).toMatchObject({ input_tokens: 500, output_tokens: 50 }); // its own figures stay its own
    for (const id of ['s-1', 's-1~2', 's-1~10'])
      expect(of(id).line).toEqual({ id: 's-1', parts: ['s-1', 's-1~2', 's-1~10'], input_tokens: 3510, output_tokens: 351, cost_usd: 0.0351 });
    expect(of('other').line).toBeUndefined();
    const out = await runCli(['sessions'], { ...process.env, HOOKMAP_HOME: home });
    expect(out.code).toBe(0);
    expect(out.stdout.split('\n')[0]).toMatch(/\bsession\s+line$/);
    expect(out.stdout.split('\n').find((l) => /\ss-1~2\s/.test(l))).toMatch(/\s550\s+\$0\.0050\s+s-1~2\s+3 parts: 3861 tokens \$0\.0351$/);
    expect(out.stdout.split('\n').find((l) => /\sother/.test(l))).toMatch(/\sother\s+-$/);
    const json = JSON.parse((await runCli(['sessions', '--json'], { ...process.env, HOOKMAP_HOME: home })).stdout);
    expect(json.find((r: any) => r.session === 's-1').line.parts).toEqual(['s-1', 's-1~2', 's-1~10']);
  });
});
