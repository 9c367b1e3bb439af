// The history database against the real logs real daemons write: 200
// sessions / 100,000 events, a restart, a deleted database rebuilt, search
// equal to a brute-force scan of the logs, and the capture ceiling.
import { readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Daemon } from '../../../engine/runtime/daemon/daemon.ts';
import { loadVendor } from '../../../engine/core/descriptor/registry.ts';
import { historyFile, openCaughtUp, reindex } from '../../../engine/person/history/history.ts';
import { Indexer } from '../../../engine/person/history/indexer.ts';
import { sessions, usage } from '../../../engine/person/history/query.ts';
import { search } from '../../../engine/person/history/search.ts';
import { prune } from '../../../engine/person/history/retention.ts';
import { openHistory } from '../../../engine/person/history/store.ts';
import { tempDir } from '../../runtime/daemon/helpers.ts';

const WORDS = ['migrations', 'schema', 'deploy', 'lint', 'refactor', 'cache', 'router', 'billing', 'flaky', 'docker'];
const SESSIONS = 200;
const TURNS = 125; // 4 events a turn: 500 events a session, 100,000 in all

let home: string;
let done: () => void;

/** Every event in every log under the home, parsed. */
function allLogged(): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  const root = join(home, 'logs');
  for (const agent of readdirSync(root))
    for (const f of readdirSync(join(root, agent)).filter((n) => n.endsWith('.jsonl') && !n.startsWith('_')))
      for (const l of readFileSync(join(root, agent, f), 'utf8').split('\n')) if (l) out.push(JSON.parse(l));
  return out;
}

/** The brute-force answer: events whose data strings (digests and ids aside) and subject hold every word. */
function scan(words: string[]): Set<string> {
  const hits = new Set<string>();
  const texts = (v: unknown, key: string, out: string[]) => {
    if (typeof v === 'string') {
      if (!key.endsWith('_digest') && key !== 'call_id' && key !== 'id') out.push(v);
    } else if (Array.isArray(v)) v.forEach((x) => texts(x, key, out));
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) texts(x, k, out);
  };
  for (const ev of allLogged()) {
    const out: string[] = typeof ev.subject === 'string' ? [ev.subject] : [];
    texts(ev.data, '', out);
    const tokens = new Set(
      out
        .join('\n')
        .toLowerCase()
        .split(/[^\p{L}\p{N}_]+/u),
    );
    if (words.every((w) => tokens.has(w.toLowerCase()))) hits.add(ev.id as string);
  }
  return hits;
}

beforeAll(async () => {
  ({ dir: home, done } = tempDir('hookmap-history-'));
  const open = (vendor: string) => Daemon.open({ descriptor: loadVendor(vendor), logDir: join(home, 'logs', vendor), capture: 'full' });
  const daemons = { 'claude-code': open('claude-code'), codex: open('codex') };
  for (let s = 0; s < SESSIONS; s++) {
    const vendor = s % 2 ? 'codex' : 'claude-code';
    const d = daemons[vendor];
    const session = `sess-${String(s).padStart(3, '0')}`;
    const base = { session_id: session, cwd: `/work/project-${s % 5}` };
    await d.handle({ hook: 'SessionStart', payload: { ...base, hook_event_name: 'SessionStart', source: 'startup', model: 'm' } });
    for (let t = 0; t < TURNS; t++) {
      const w = WORDS[(s * 7 + t) % WORDS.length];
      const turn = { ...base, turn_id: `${session}-t${t}` };
      await d.handle({
        hook: 'UserPromptSubmit',
        payload: { ...turn, hook_event_name: 'UserPromptSubmit', prompt: `please look at the ${w} again (${s}/${t})` },
      });
      await d.handle({
        hook: 'PreToolUse',
        payload: {
          ...turn,
          hook_event_name: 'PreToolUse',
          tool_name: 'Bash',
          tool_use_id: `c${t}`,
          tool_input: { command: `grep -r ${WORDS[(t + s) % WORDS.length]} src` },
        },
      });
      await d.handle({
        hook: 'PostToolUse',
        payload: { ...turn, hook_event_name: 'PostToolUse', tool_name: 'Bash', tool_use_id: `c${t}`, tool_input: { command: 'x' }, tool_response: 'ok' },
      });
      await d.handle({ hook: 'Stop', payload: { ...turn, hook_event_name: 'Stop', stop_hook_active: false } });
    }
  }
  for (const d of Object.values(daemons)) await d.close();
}, 600_000);

afterAll(() => done());

describe('history', () => {
  it('indexes every logged event of 200 sessions, goes on incrementally after a restart, and is rebuilt when deleted', () => {
    const logged = allLogged();
    expect(logged.length).toBeGreaterThanOrEqual(100_000);
    const first = openCaughtUp(home);
    expect(first.indexed.events).toBe(logged.length);
    expect(sessions(first.db, { limit: 1000 })).toHaveLength(SESSIONS);
    first.db.close();
    // a restart: nothing new, nothing indexed twice
    const again = openCaughtUp(home);
    expect(again.indexed.events).toBe(0);
    expect((again.db.prepare('SELECT COUNT(*) AS n FROM events').get() as { n: number }).n).toBe(logged.length);
    again.db.close();
    // deleted: rebuilt from the logs
    rmSync(historyFile(home));
    rmSync(`${historyFile(home)}-wal`, { force: true });
    const rebuilt = openCaughtUp(home);
    expect(rebuilt.indexed.events).toBe(logged.length);
    expect(rebuilt.db.pragma('journal_mode', { simple: true })).toBe('wal');
    rebuilt.db.close();
    const re = reindex(home);
    expect(re.indexed.events).toBe(logged.length);
    re.db.close();
  }, 300_000);

  it('search results equal a brute-force scan of the logs', () => {
    const { db } = openCaughtUp(home);
    for (const q of ['migrations', 'grep billing', 'look flaky', 'Docker SRC', 'nothingmatchesthis', 'please 17']) {
      const want = scan(q.split(' '));
      const got = new Set(search(db, q, { limit: 10_000, perSession: 10_000, maxEvents: 1_000_000 }).flatMap((h) => h.events.map((e) => e.id)));
      expect([...got].sort(), q).toEqual([...want].sort());
      if (q !== 'nothingmatchesthis') expect(want.size, q).toBeGreaterThan(0);
    }
    const hit = search(db, 'migrations')[0];
    expect(hit.session).toMatchObject({ project: expect.stringMatching(/^project-/) });
    db.close();
  });

  it('sessions filter by agent, project, state and time', () => {
    const { db } = openCaughtUp(home);
    expect(sessions(db, { agent: 'codex', limit: 1000 })).toHaveLength(100);
    expect(sessions(db, { project: 'project-3', limit: 1000 })).toHaveLength(40);
    expect(sessions(db, { agent: 'codex', project: 'project-0', limit: 1000 }).every((s) => s.agent === 'codex' && s.project === 'project-0')).toBe(true);
    expect(sessions(db, { since: '2000-01-01', limit: 5 })).toHaveLength(5);
    expect(sessions(db, { until: '2000-01-01' })).toHaveLength(0);
    const page1 = sessions(db, { limit: 150 });
    const page2 = sessions(db, { limit: 150, before: page1.at(-1)!.last });
    expect(page1.length + page2.length).toBe(SESSIONS);
    expect(usage(db)).toEqual([]);
    db.close();
  });

  it('retention prunes by age and keeps it pruned through a reindex of the logs', () => {
    const { db } = openCaughtUp(home);
    const n = prune(db, { maxAgeDays: 0 }, Date.now() + 1000);
    expect(n).toBe(SESSIONS);
    expect(new Indexer(db, [join(home, 'logs')]).catchUp().events).toBe(0);
    db.exec('DELETE FROM files');
    expect(new Indexer(db, [join(home, 'logs')]).catchUp().events).toBe(0);
    db.close();
    expect(statSync(historyFile(home)).size).toBeGreaterThan(0);
    reindex(home).db.close();
  });
});

describe('the capture ceiling', () => {
  it('a query that would match content above the ceiling finds nothing; at a raised ceiling it is found', async () => {
    const t = tempDir('hookmap-history-capture-');
    try {
      for (const [vendor, capture] of [
        ['claude-code', undefined],
        ['codex', 'full'],
      ] as const) {
        const d = Daemon.open({ descriptor: loadVendor(vendor), logDir: join(t.dir, 'logs', vendor), capture });
        const base = { session_id: `s-${vendor}`, turn_id: 't', cwd: '/work/app' };
        await d.handle({ hook: 'UserPromptSubmit', payload: { ...base, hook_event_name: 'UserPromptSubmit', prompt: 'rotate the zanzibar credentials' } });
        await d.handle({
          hook: 'PreToolUse',
          payload: { ...base, hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_use_id: 'c1', tool_input: { command: 'cat quixotic.env' } },
        });
        await d.close();
      }
      const { db } = openCaughtUp(t.dir);
      for (const q of ['zanzibar', 'quixotic'])
        expect(
          search(db, q).map((h) => h.session.agent),
          q,
        ).toEqual(['codex']);
      expect(
        search(db, 'Bash')
          .map((h) => h.session.agent)
          .sort(),
      ).toEqual(['claude-code', 'codex']);
      db.close();
    } finally {
      t.done();
    }
  });

  it('the database is WAL, one file in the home', () => {
    const t = tempDir('hookmap-history-wal-');
    try {
      const db = openHistory(historyFile(t.dir));
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
      db.close();
    } finally {
      t.done();
    }
  });
});
