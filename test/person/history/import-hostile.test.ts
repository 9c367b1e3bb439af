// hookmap history import against hostile or broken input, with real files and
// a real SQLite history: a symlink out of the agent's folder, a session id
// that walks out of the imported folder, a huge line, a line that is not
// JSON, a file that grows while it is read, a file over the size limit, more
// files than the limit, and the time limit. Each gets a clear skip (its code)
// and never stops the files after it.
import { appendFileSync, existsSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadVendor } from '../../../engine/core/descriptor/registry.ts';
import type { Descriptor } from '../../../engine/core/descriptor/types.ts';
import { importHistory } from '../../../engine/person/history/import.ts';
import { openCaughtUp } from '../../../engine/person/history/history.ts';
import { sessions } from '../../../engine/person/history/query.ts';
import { PriceBook } from '../../../engine/runtime/usage/prices.ts';
import { tempDir } from '../../runtime/daemon/helpers.ts';

const cleanups: (() => void)[] = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()!();
});

let n = 0;
/** One Claude Code assistant line (a response with its usage), shaped as 2.1.328 writes it. */
const response = (session: string, out: number, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    type: 'assistant',
    sessionId: session,
    timestamp: new Date(Date.UTC(2026, 11, 1, 10, 0, n++)).toISOString(),
    cwd: '/work/shop',
    message: { id: `msg_${n}`, model: 'claude-sonnet-4-5', role: 'assistant', content: [], usage: { input_tokens: 10, output_tokens: out } },
    ...extra,
  }) + '\n';

function setup() {
  const t = tempDir('hookmap-import-hostile-');
  cleanups.push(t.done);
  const user = join(t.dir, 'user');
  const folder = join(user, '.claude', 'projects', '-work-shop');
  mkdirSync(folder, { recursive: true });
  const home = join(t.dir, 'home');
  const { db } = openCaughtUp(home);
  cleanups.unshift(() => db.close());
  const run = (o: { descriptor?: Descriptor; maxMs?: number; now?: () => number } = {}) =>
    importHistory({ home, userHome: user, descriptor: o.descriptor ?? loadVendor('claude-code'), db, prices: new PriceBook(), maxMs: o.maxMs, now: o.now });
  const output = (session: string) => sessions(db, {}).find((s) => s.session === session)?.output_tokens;
  return { dir: t.dir, user, folder, home, db, run, output };
}

describe('history import: hostile input', () => {
  it('refuses a symlink out of the folder (and a symlinked folder), and goes on with the rest', async () => {
    const t = setup();
    const outside = join(t.dir, 'outside');
    mkdirSync(outside);
    writeFileSync(join(outside, 'stolen.jsonl'), response('stolen', 999));
    symlinkSync(join(outside, 'stolen.jsonl'), join(t.folder, 'link.jsonl'));
    symlinkSync(outside, join(t.folder, 'linked-dir'));
    writeFileSync(join(t.folder, 'good.jsonl'), response('good', 7));
    const r = await t.run();
    expect(r.skipped).toEqual([expect.objectContaining({ code: 'transcript-outside-folders', file: join(t.folder, 'link.jsonl') })]);
    expect(t.output('good')).toBe(7);
    expect(t.output('stolen')).toBeUndefined();
  });

  it('refuses a session id that would walk out of the imported folder; nothing is written outside it', async () => {
    const t = setup();
    for (const [i, bad] of ['../../../escaped', 'a/b', '..', '.hidden', 'x\u0000y', 'é'.repeat(100)].entries())
      writeFileSync(join(t.folder, `bad${i}.jsonl`), response(bad, 5));
    writeFileSync(join(t.folder, 'z-good.jsonl'), response('good', 3));
    const r = await t.run();
    expect(r.skipped.map((s) => s.code)).toEqual(Array(6).fill('import-bad-session'));
    expect(t.output('good')).toBe(3);
    expect(readdirSync(join(t.home, 'imported', 'claude-code'))).toEqual(['good.jsonl']);
    expect(existsSync(join(t.dir, 'escaped.jsonl'))).toBe(false);
    expect(readdirSync(t.dir).sort()).toEqual(['home', 'user']);
  });

  it('skips a line over the line limit and a line that is not JSON, and reads the lines after them', async () => {
    const t = setup();
    const huge = JSON.stringify({ type: 'user', sessionId: 's1', pad: 'x'.repeat(3 * 1024 * 1024) }) + '\n';
    writeFileSync(join(t.folder, 's1.jsonl'), response('s1', 1) + huge + '{"not json\n' + '\u0000\u0001garbage\n' + response('s1', 2));
    const r = await t.run();
    expect(r).toMatchObject({ skipped: [], skippedLines: 3, sessions: 1 });
    expect(t.output('s1')).toBe(3);
  });

  it('reads a file that grows during the import up to where it was, and the rest at the next import', async () => {
    const t = setup();
    const file = join(t.folder, 'grow.jsonl');
    writeFileSync(file, response('grow', 1) + response('grow', 2));
    let calls = 0;
    const now = () => {
      // the agent writes while the import reads (the clock's third look: the first line's, after the deadline's and the file's):
      // a whole response and a line still being written
      if (++calls === 3) appendFileSync(file, response('grow', 40) + response('grow', 500).slice(0, 30));
      return Date.now();
    };
    expect(await t.run({ now })).toMatchObject({ sessions: 1, skipped: [] });
    expect(calls).toBeGreaterThan(3);
    expect(t.output('grow')).toBe(3);
    expect(await t.run()).toMatchObject({ files: 1, sessions: 1 });
    expect(t.output('grow')).toBe(43);
    // the line being written is finished: the next import counts it, once
    appendFileSync(file, response('grow', 500).slice(30));
    await t.run();
    expect(t.output('grow')).toBe(543);
    expect(await t.run()).toMatchObject({ files: 0, unchangedFiles: 1, events: 0 });
    expect(t.output('grow')).toBe(543);
  });

  it('skips a file over the size limit, takes at most max_files per import, and stops at the time limit, nothing half-written', async () => {
    const t = setup();
    const d = loadVendor('claude-code');
    d.transcript!.import!.maxFileBytes = 4096;
    d.transcript!.import!.maxFiles = 2;
    writeFileSync(join(t.folder, 'a-big.jsonl'), response('big', 1, { pad: 'x'.repeat(5000) }));
    for (const s of ['b', 'c', 'd']) writeFileSync(join(t.folder, `${s}.jsonl`), response(s, 1));
    const first = await t.run({ descriptor: d });
    expect(first).toMatchObject({ files: 2, stopped: 'count', skipped: [expect.objectContaining({ code: 'import-file-too-large' })] });
    expect(sessions(t.db, {}).map((s) => s.session)).toEqual(['b']);
    // the file over the limit and the one imported are not read again: the next two are
    const second = await t.run({ descriptor: d });
    expect(second).toMatchObject({ files: 2, unchangedFiles: 2 });
    expect(
      sessions(t.db, {})
        .map((s) => s.session)
        .sort(),
    ).toEqual(['b', 'c', 'd']);
    expect(second.stopped).toBeUndefined();

    // a clock that runs out while a file is read: that file is given up whole, and the next import takes it
    writeFileSync(join(t.folder, 'e.jsonl'), response('e', 1) + response('e', 2));
    let clock = 0;
    const slow = await t.run({ descriptor: d, maxMs: 1000, now: () => (clock += 600) });
    expect(slow).toMatchObject({ stopped: 'time', events: 0 });
    expect(t.output('e')).toBeUndefined();
    await t.run({ descriptor: d });
    expect(t.output('e')).toBe(3);
  });

  it('a failed call and a result naming no call seen: tool.failed, and nothing', async () => {
    const t = setup();
    const call = (id: string) =>
      JSON.stringify({ type: 'assistant', sessionId: 'calls', message: { content: [{ type: 'tool_use', id, name: 'Bash' }] } }) + '\n';
    const result = (id: string, isError: boolean) =>
      JSON.stringify({
        type: 'user',
        sessionId: 'calls',
        message: { content: [{ type: 'tool_result', tool_use_id: id, is_error: isError, content: 'secret output' }] },
      }) + '\n';
    writeFileSync(
      join(t.folder, 'calls.jsonl'),
      call('c1') + result('c1', true) + result('c1', false) + result('ghost', false) + call('c2') + result('c2', false),
    );
    await t.run();
    const ends = t.db.prepare("SELECT type, line FROM events WHERE type LIKE 'tool.%' ORDER BY rowid").all() as { type: string; line: string }[];
    // (the lines name no time: the order within one time is not asserted)
    expect(ends.map((e) => [e.type, JSON.parse(e.line).data.tool.call_id]).sort((a, b) => (a[1] + a[0] < b[1] + b[0] ? -1 : 1))).toEqual([
      ['tool.failed', 'c1'],
      ['tool.requested', 'c1'],
      ['tool.completed', 'c2'],
      ['tool.requested', 'c2'],
    ]);
    expect(ends.map((e) => e.line).join('')).not.toContain('secret output');
  });

  it('skips a file that names no session, and tool values of the wrong shape', async () => {
    const t = setup();
    writeFileSync(join(t.folder, 'anon.jsonl'), '{"type":"summary"}\n');
    const odd = {
      type: 'assistant',
      sessionId: 'odd',
      message: { id: 'm', usage: { input_tokens: -5, output_tokens: 'many' }, content: [1, null, { type: 'tool_use' }, { type: 'tool_use', name: 'Bash' }] },
    };
    writeFileSync(join(t.folder, 'odd.jsonl'), JSON.stringify(odd) + '\n');
    const r = await t.run();
    expect(r.skipped).toEqual([expect.objectContaining({ code: 'import-no-session', file: join(t.folder, 'anon.jsonl') })]);
    expect(sessions(t.db, {})).toEqual([expect.objectContaining({ session: 'odd', tools: 1, output_tokens: 0 })]);
  });
});
