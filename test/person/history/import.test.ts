// hookmap history import over the real transcripts the live suite recorded
// (fixtures/<agent>/transcripts/, see their provenance.md), into a real
// SQLite history in a temporary home: the sessions, runs, tool calls, tokens
// and cost come out as the agents' own files say; a second import adds
// nothing; a reindex from the logs brings them back; what was logged live is
// left alone.
import { copyFileSync, mkdirSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadVendor, ROOT } from '../../../engine/core/descriptor/registry.ts';
import { compileDescriptor } from '../../../engine/core/descriptor/compile.ts';
import { importHistory } from '../../../engine/person/history/import.ts';
import { HistoryService, historyFile, historyRoots, openCaughtUp, reindex } from '../../../engine/person/history/history.ts';
import { sessions, usage } from '../../../engine/person/history/query.ts';
import type { Db } from '../../../engine/person/history/store.ts';
import { PriceBook } from '../../../engine/runtime/usage/prices.ts';
import { tempDir } from '../../runtime/daemon/helpers.ts';

const CC = join(ROOT, 'fixtures/claude-code/transcripts/live-2.1.328.jsonl');
const CODEX = join(ROOT, 'fixtures/codex/transcripts/live-0.169.0.jsonl');
const CC_SESSION = '7e67d4f7-391d-4e4f-9b9a-808fa319a1c8';
const CODEX_SESSION = '01a232d1-5b9b-7a40-8e23-205f481c5ce1';

const cleanups: (() => void)[] = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()!();
});

function home(): { home: string; user: string } {
  const t = tempDir('hookmap-import-');
  cleanups.push(t.done);
  return { home: join(t.dir, 'home'), user: join(t.dir, 'user') };
}

const lines = (f: string) =>
  readFileSync(f, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, any>);

let progress: [number, number][] = [];
async function run(h: { home: string; user: string }, agent: string, db?: Db) {
  const own = db ?? openCaughtUp(h.home).db;
  progress = [];
  try {
    return await importHistory({
      home: h.home,
      userHome: h.user,
      descriptor: loadVendor(agent),
      db: own,
      prices: new PriceBook(),
      progress: (done, total) => progress.push([done, total]),
    });
  } finally {
    if (!db) own.close();
  }
}

function placeClaude(user: string, name = `${CC_SESSION}.jsonl`): string {
  const dir = join(user, '.claude', 'projects', '-tmp-hookmap-live-scratch-project');
  mkdirSync(dir, { recursive: true });
  copyFileSync(CC, join(dir, name));
  return join(dir, name);
}

describe('history import: Claude Code 2.1.328 (recorded transcript)', () => {
  it('lists the session with its runs, tool calls, tokens and the cost Claude Code itself reported; a second import adds nothing', async () => {
    const h = home();
    placeClaude(h.user);
    const first = await run(h, 'claude-code');
    expect(first).toMatchObject({ files: 1, sessions: 1, unchanged: 0, skipped: [] });
    expect(progress).toEqual([
      [0, 1],
      [1, 1],
    ]);
    expect(first.events).toBeGreaterThan(0);

    // what the file says, counted independently: each response once (its message.id), input with the cache
    const all = lines(CC);
    const byId = new Map<string, any>();
    for (const l of all) if (l.type === 'assistant' && l.message?.usage) byId.set(l.message.id, l.message.usage);
    const sum = (k: string) => [...byId.values()].reduce((n, u) => n + (u[k] ?? 0), 0);
    const prompts = all.filter((l) => l.type === 'user' && typeof l.message?.content === 'string').length;
    const toolUses = all.flatMap((l) => (l.type === 'assistant' ? l.message.content.filter((c: any) => c.type === 'tool_use') : [])).length;
    const claudesOwnCost = all.filter((l) => l.type === 'cost-state').at(-1)!.totalCostUSD as number;

    const { db } = openCaughtUp(h.home);
    try {
      const [s] = sessions(db, { agent: 'claude-code' });
      expect(s).toMatchObject({
        session: CC_SESSION,
        state: 'imported',
        project: 'project',
        runs: prompts,
        tools: toolUses,
        input_tokens: sum('input_tokens') + sum('cache_read_input_tokens') + sum('cache_creation_input_tokens'),
        output_tokens: sum('output_tokens'),
        cache_read_tokens: sum('cache_read_input_tokens'),
        cache_write_tokens: sum('cache_creation_input_tokens'),
        models: ['claude-opus-5-5'],
      });
      expect(s.cost_usd).toBeCloseTo(claudesOwnCost, 6);
      // each call's outcome, from its tool_result
      const results = all.flatMap((l) =>
        l.type === 'user' && Array.isArray(l.message?.content) ? l.message.content.filter((c: any) => c.type === 'tool_result') : [],
      );
      const ends = db.prepare("SELECT type, line FROM events WHERE type IN ('tool.completed', 'tool.failed')").all() as { type: string; line: string }[];
      expect(ends.map((e) => [e.type, JSON.parse(e.line).data.tool.call_id])).toEqual(
        results.map((r: any) => [r.is_error ? 'tool.failed' : 'tool.completed', r.tool_use_id]),
      );
      expect(usage(db, { by: 'agent' })).toEqual([expect.objectContaining({ key: 'claude-code', sessions: 1, output_tokens: sum('output_tokens') })]);
      const before = (db.prepare('SELECT COUNT(*) AS n FROM events').get() as { n: number }).n;

      const second = await run(h, 'claude-code', db);
      expect(second).toMatchObject({ files: 0, unchangedFiles: 1, sessions: 0, events: 0 });
      expect((db.prepare('SELECT COUNT(*) AS n FROM events').get() as { n: number }).n).toBe(before);
      expect(sessions(db, {})[0].output_tokens).toBe(sum('output_tokens'));
    } finally {
      db.close();
    }

    // a rebuilt database has forgotten which files were read: each is read again, and its events are already in the log
    const fresh = reindex(h.home);
    try {
      expect(await run(h, 'claude-code', fresh.db)).toMatchObject({ files: 1, sessions: 0, events: 0, unchanged: 1 });
    } finally {
      fresh.db.close();
    }

    // the imported log is the record: a rebuilt database holds the same session
    const again = reindex(h.home);
    try {
      expect(sessions(again.db, {})).toEqual([expect.objectContaining({ session: CC_SESSION, state: 'imported', output_tokens: sum('output_tokens') })]);
    } finally {
      again.db.close();
    }
  });

  it("is indexed by up's history service too (what the inbox's History routes read), in the state imported", async () => {
    const h = home();
    placeClaude(h.user);
    await run(h, 'claude-code');
    // a fresh database, as `up` opens it: the imported logs are one of its roots
    const svc = new HistoryService(join(h.home, 'up-history.db'), historyRoots(h.home));
    try {
      expect(historyFile(h.home)).not.toBe(join(h.home, 'up-history.db'));
      await svc.start().caughtUp();
      expect(sessions(svc.db, { state: 'imported' })).toEqual([expect.objectContaining({ session: CC_SESSION, agent: 'claude-code', runs: 2 })]);
    } finally {
      await svc.close();
    }
  });

  it('keeps to the capture ceiling: metadata only, no prompt, command, reply or path in what it writes', async () => {
    const h = home();
    placeClaude(h.user);
    await run(h, 'claude-code');
    const dir = join(h.home, 'imported', 'claude-code');
    const text = readdirSync(dir)
      .map((f) => readFileSync(join(dir, f), 'utf8'))
      .join('');
    for (const secret of ['Say hello through the shell', 'echo hello-from-live', 'The shell said hello', '/tmp/hookmap-live-scratch'])
      expect(text).not.toContain(secret);
    for (const l of text.trim().split('\n')) expect(JSON.parse(l)).toMatchObject({ capture: 'metadata', hookmapimported: true, agent: 'claude-code' });
  });

  it('leaves alone a session hookmap logged itself (its usage is counted there)', async () => {
    const h = home();
    const file = placeClaude(h.user);
    const logs = join(h.home, 'logs', 'claude-code');
    mkdirSync(logs, { recursive: true });
    copyFileSync(join(ROOT, 'fixtures/claude-code/transcripts/live-2.1.328.jsonl'), file);
    const { Daemon } = await import('../../../engine/runtime/daemon/daemon.ts');
    const d = Daemon.open({ descriptor: loadVendor('claude-code'), logDir: logs, userHome: h.user });
    await d.handle({
      hook: 'SessionStart',
      payload: { session_id: CC_SESSION, hook_event_name: 'SessionStart', source: 'startup', transcript_path: file, cwd: '/p' },
    });
    await d.close();
    const r = await run(h, 'claude-code');
    expect(r.skipped).toEqual([expect.objectContaining({ code: 'import-logged-live' })]);
    expect(r.events).toBe(0);
  });
});

describe('history import: the descriptor', () => {
  it('validates transcript.import: file names only, the session expression required, no key of its own', () => {
    const base = readFileSync(join(ROOT, 'vendors/claude-code.yaml'), 'utf8');
    const good = compileDescriptor('claude-code.yaml', base);
    expect(good.errors).toEqual([]);
    for (const [from, to] of [
      ["files: '*.jsonl'", "files: '../*.jsonl'"],
      ['    session: =sessionId\n', ''],
      ['    cwd: =cwd\n', '    cwd: =cwd\n    prompt: =message.content\n'],
    ]) {
      expect(base).toContain(from);
      expect(compileDescriptor('claude-code.yaml', base.replace(from, to)).errors.length, to || from).toBeGreaterThan(0);
    }
  });
});

describe('history import: Codex 0.169.0 (recorded rollout)', () => {
  it("lists the thread with its turns, tool call and tokens (the rollout's own running total); a second import adds nothing", async () => {
    const h = home();
    const dir = join(h.user, '.codex', 'sessions', '2026', '12', '01');
    mkdirSync(dir, { recursive: true });
    copyFileSync(CODEX, join(dir, `rollout-2026-12-01T18-15-11-${CODEX_SESSION}.jsonl`));
    // a file the descriptor does not name is not read
    copyFileSync(CODEX, join(dir, 'notes.jsonl'));
    const first = await run(h, 'codex');
    expect(first).toMatchObject({ files: 1, sessions: 1, skipped: [] });

    const all = lines(CODEX);
    const total = all.filter((l) => l.type === 'event_msg' && l.payload.type === 'token_count').at(-1)!.payload.info.total_token_usage;
    const turns = new Set(all.filter((l) => l.type === 'turn_context').map((l) => l.payload.turn_id)).size;
    const calls = all.filter((l) => l.type === 'response_item' && l.payload.type === 'function_call').length;
    const { db } = openCaughtUp(h.home);
    try {
      expect(sessions(db, { agent: 'codex' })).toEqual([
        expect.objectContaining({
          session: CODEX_SESSION,
          state: 'imported',
          project: 'project',
          runs: turns,
          tools: calls,
          input_tokens: total.input_tokens,
          output_tokens: total.output_tokens,
          cache_read_tokens: total.cached_input_tokens,
          reasoning_tokens: total.reasoning_output_tokens,
          models: ['scripted'],
          // the scripted model has no price: no cost, never a guess
          cost_usd: null,
        }),
      ]);
      const second = await run(h, 'codex', db);
      expect(second).toMatchObject({ files: 0, unchangedFiles: 1, sessions: 0, events: 0 });
    } finally {
      db.close();
    }
  });
});
