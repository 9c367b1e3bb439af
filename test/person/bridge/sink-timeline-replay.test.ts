// `hookmap sink` (durable capture: rotation per day and session, resume,
// crash recovery, bounded disk), `hookmap timeline` (tree and --dag, from a
// file and from the relay) and `hookmap replay` (a capture re-emitted as a
// new session with the same shape).
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runSink, SinkStore } from '../../../engine/person/bridge/sink-store.ts';
import { run as timelineCmd } from '../../../engine/cli/commands/timeline.ts';
import { run as replayCmd } from '../../../engine/cli/commands/replay.ts';
import { sessionFileName } from '../../../engine/core/io/paths.ts';
import { validateStream } from '../../../engine/core/validate/index.ts';
import type { Relay } from '../../../engine/runtime/relay/index.ts';
import { post, SseClient, startRelay, until } from '../../runtime/relay/helpers.ts';
import { fixtureEvent, fixtureEvents } from './fixtures.ts';
import { sessionEvents } from './sinks.ts';

const TOKEN = 'stt-token';
let relay: Relay;
let url: string;
let dir: string;

beforeAll(async () => {
  ({ relay, url } = await startRelay({ token: TOKEN }));
  dir = mkdtempSync(join(tmpdir(), 'hookmap-sink-'));
});
afterAll(async () => {
  await relay.close();
  rmSync(dir, { recursive: true, force: true });
});

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  vi.spyOn(process.stdout, 'write').mockImplementation((c: any) => (out.push(...String(c).split('\n').filter(Boolean)), true));
  vi.spyOn(process.stderr, 'write').mockImplementation((c: any) => (err.push(...String(c).split('\n').filter(Boolean)), true));
  return { out, err, done: () => vi.restoreAllMocks() };
}

const lines = (f: string) =>
  readFileSync(f, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));

describe('hookmap sink', () => {
  it('one JSONL file per day and session; a restart resumes without duplicates or gaps', async () => {
    const out = join(dir, 'cap1');
    const day1 = sessionEvents('sk-a', 30).map((e) => ({ ...e, time: `2026-11-29T23:59:${String(Math.min(59, e.seq + 20)).padStart(2, '0')}.000Z` }));
    const day2 = sessionEvents('sk-a', 20, 30).map((e) => ({ ...e, time: `2026-11-30T00:00:${String(e.seq - 30).padStart(2, '0')}.000Z` }));
    const other = sessionEvents('sk-b', 10);
    let sink = await runSink({
      dir: out,
      url,
      token: TOKEN,
      filter: { session: ['sk-a', 'sk-b'] },
      flushMs: 20,
      fsync: true,
      now: () => Date.parse('2026-11-30T12:00:00Z'),
    });
    await post(url, [...day1, ...other], { token: TOKEN });
    await until(() => sink.store.stats.written >= 40, 'first 40 written');
    await sink.stop();
    await post(url, day2, { token: TOKEN }); // while the sink is down
    sink = await runSink({ dir: out, url, token: TOKEN, filter: { session: ['sk-a', 'sk-b'] }, flushMs: 20, now: () => Date.parse('2026-11-30T12:00:00Z') });
    await until(() => sink.store.stats.written >= 20, 'the 20 missed while down');
    await new Promise((r) => setTimeout(r, 100));
    await sink.stop();
    const a1 = join(out, '2026-11-29', 'test-agent', sessionFileName('sk-a'));
    const a2 = join(out, '2026-11-30', 'test-agent', sessionFileName('sk-a'));
    const b = join(out, '2026-11-30', 'test-agent', sessionFileName('sk-b'));
    expect(lines(a1).map((e) => e.seq)).toEqual(day1.map((e) => e.seq));
    expect(lines(a2).map((e) => e.seq)).toEqual(day2.map((e) => e.seq));
    expect(lines(b).map((e) => e.id)).toEqual(other.map((e) => e.id));
    expect(validateStream([...lines(a1), ...lines(a2)])).toEqual([]);
  });

  it('after a crash: a torn last line is cut, the files (ahead of the saved positions) are the authority, the replay refills without duplicates', async () => {
    const out = join(dir, 'cap2');
    const ev = sessionEvents('sk-crash', 40);
    await post(url, ev, { token: TOKEN });
    // a first run that wrote 25 events, saved positions after 10, then died mid-write of the 26th
    const store = new SinkStore({ dir: out });
    for (const e of ev.slice(0, 10)) store.add(e);
    store.flush();
    const saved = readFileSync(join(out, '.sink-state.json'), 'utf8');
    for (const e of ev.slice(10, 25)) store.add(e);
    store.close();
    writeFileSync(join(out, '.sink-state.json'), saved); // positions behind the file
    const file = store.pathOf(ev[0]);
    appendFileSync(file, JSON.stringify(ev[25]).slice(0, 40)); // torn
    const sink = await runSink({ dir: out, url, token: TOKEN, filter: { session: 'sk-crash' }, flushMs: 20 });
    expect(sink.store.stats.tornLines).toBe(1);
    expect(sink.store.stats.recovered).toBe(15);
    await until(() => sink.store.stats.written >= 15, 'the rest');
    await new Promise((r) => setTimeout(r, 100));
    await sink.stop();
    expect(lines(file).map((e) => e.seq)).toEqual(ev.map((e) => e.seq));
  });

  it('bounded disk: day folders past the retention, then over the size budget, are deleted oldest first (never today)', () => {
    const out = join(dir, 'cap3');
    for (const d of ['2026-10-01', '2026-11-20', '2026-11-28', '2026-11-29', '2026-11-30']) {
      mkdirSync(join(out, d, 'a'), { recursive: true });
      writeFileSync(join(out, d, 'a', 'x.jsonl'), `${'x'.repeat(999)}\n`);
    }
    const store = new SinkStore({ dir: out, retainDays: 30, maxBytes: 2500, now: () => Date.parse('2026-11-30T12:00:00Z') });
    expect(
      readdirSync(out)
        .filter((d) => d.startsWith('2026'))
        .sort(),
    ).toEqual(['2026-11-29', '2026-11-30']);
    expect(store.stats.deletedDays).toBe(3);
    expect(existsSync(join(out, '2026-11-30'))).toBe(true);
  });
});

describe('hookmap timeline', () => {
  const file = () => join(dir, 'session.jsonl');
  beforeAll(() => {
    writeFileSync(
      file(),
      Object.values(fixtureEvents())
        .map((e) => JSON.stringify(e))
        .join('\n') + '\n',
    );
  });

  it('a session as a tree: runs, tool calls with outcome and duration, attention under the call it asks about', async () => {
    const c = capture();
    const code = await timelineCmd(['s-cc-7', '--file', file()]);
    c.done();
    expect(code).toBe(0);
    expect(c.out.slice(0, 7)).toEqual([
      'session s-cc-7  claude-code  09:00:00.000 → 09:02:00.000 (2 min)  normal',
      '├─ run r1  09:00:01.000 → 09:00:20.000 (19.0 s)  finished tokens in 5120 out 801',
      '│  ├─ tool Bash toolu_01  09:00:02.500 → 09:00:09.200 (6.7 s)  denied by user_setting',
      '│  │  └─ attention permission (Bash)  09:00:02.600 → 09:00:09.150 (6.5 s)  answered → deny: "never force-push main; open a PR instead"',
      '│  ├─ tool Read toolu_02  09:00:10.000 → 09:00:10.042 (42 ms)  completed',
      '│  ├─ tool Read toolu_03  09:00:11.000 → 09:00:11.000 (0 ms)  completed',
      '│  └─ tool Edit toolu_04  09:00:12.000 → 09:00:12.000 (0 ms)  failed tool_error',
    ]);
    expect(c.out).toContain('├─ attention form (AskUserQuestion)  09:00:21.000 → 09:02:00.000 (1 min 39 s)  no outcome reported');
  });

  it('--dag nests every event under its cause', async () => {
    const c = capture();
    await timelineCmd(['s-cc-7', '--file', file(), '--dag']);
    c.done();
    expect(c.out.slice(0, 5)).toEqual([
      '09:00:00.000 session.started  #0',
      '└─ 09:00:01.000 run.started  run r1  #1',
      '   ├─ 09:00:02.500 tool.requested Bash  run r1  #2',
      '   │  └─ 09:00:02.600 attention.requested Bash  run r1  #3',
      '   └─ 09:00:20.000 run.finished  run r1  #11',
    ]);
  });

  it('from the relay (replay only) gives the same tree as from the file', async () => {
    await post(url, Object.values(fixtureEvents()), { token: TOKEN });
    const a = capture();
    await timelineCmd(['s-cc-7', '--file', file()]);
    a.done();
    const b = capture();
    const code = await timelineCmd(['s-cc-7', '--url', url, '--token', TOKEN]);
    b.done();
    expect(code).toBe(0);
    expect(b.out).toEqual(a.out);
    const c = capture();
    expect(await timelineCmd(['no-such-session', '--url', url, '--token', TOKEN])).toBe(1);
    c.done();
    expect(c.err.join('\n')).toMatch(/no events for session no-such-session/);
  });
});

describe('hookmap replay', () => {
  it('re-emits a capture as a new session: new ids, same shape, causes rewritten, commands skipped; the validator sees the same stream', async () => {
    const src = Object.values(fixtureEvents()).filter((e: any) => e.session === 's-cc-7');
    const cmd = {
      aep: '0.1',
      id: '01JZBR0000000000000000CM01',
      type: 'control.attention.respond',
      subject: '01JZBR0000000000000000AR01',
      time: '2026-11-30T09:00:09.000Z',
      source: 'aep://phone/agent/hookmap-cli',
      agent: 'hookmap-cli',
      session: 's-cc-7',
      data: { answer: { option: 'deny' } },
    };
    const file = join(dir, 'replay-src.jsonl');
    writeFileSync(file, [...src, cmd].map((e) => JSON.stringify(e)).join('\n') + '\n');
    const sub = await SseClient.open(url, {}, { authorization: `Bearer ${TOKEN}` }); // live: the new session is not named yet
    const c = capture();
    const code = await replayCmd([file, '--speed', '0', '--url', url, '--token', TOKEN]);
    c.done();
    expect(code).toBe(0);
    const newSession = c.out[0];
    expect(newSession).toMatch(/^replay-/);
    expect(c.err.join('\n')).toMatch(/skipped: 1 command\(s\)/);
    const got = (await until(() => sub.events.filter((e) => e.session === newSession).length >= src.length).then(() => sub.events)).filter(
      (e) => e.session === newSession,
    );
    sub.close();
    expect(got.map((e) => e.type)).toEqual(src.map((e: any) => e.type)); // same shape
    expect(got.map((e) => e.seq)).toEqual(src.map((_, i) => i)); // contiguous, one epoch
    const oldIds = new Set(src.map((e: any) => e.id));
    expect(got.some((e) => oldIds.has(e.id))).toBe(false); // new ids
    const newIds = new Map(got.map((e) => [e.aepreplayof, e.id]));
    src.forEach((o: any, i) => {
      const n = got[i];
      expect(n.aepreplayof).toBe(o.id);
      expect(n.aepreplaytime).toBe(o.time);
      if (o.cause && newIds.has(o.cause)) expect(n.cause).toBe(newIds.get(o.cause)); // the chain still resolves
      if (o.subject && newIds.has(o.subject)) expect(n.subject).toBe(newIds.get(o.subject));
      expect(n.source).toBe(o.source.replace('/session/s-cc-7', `/session/${newSession}`));
    });
    // the same shape to the validator too: only what the source itself is flagged for (its form has a field it never declared, a wait left open)
    const rules = (evs: any[]) => validateStream(evs).map((v: any) => `${v.line}:${v.rule}`);
    expect(rules(got)).toEqual(rules(src));
    expect(rules(got)).toEqual(['14:form/unknown-field', '19:lifecycle/attention-dangling']);
  });

  it('--dry-run prints the plan and sends nothing; usage errors exit 2', async () => {
    const file = join(dir, 'replay-dry.jsonl');
    writeFileSync(file, [fixtureEvent('session.started'), fixtureEvent('run.started')].map((e) => JSON.stringify(e)).join('\n'));
    const before = (await (await fetch(`${url}/healthz`, { headers: { authorization: `Bearer ${TOKEN}` } })).json()).counters.received;
    const c = capture();
    expect(await replayCmd([file, '--dry-run', '--url', url])).toBe(0);
    expect(await replayCmd([file, '--speed', 'fast'])).toBe(2);
    c.done();
    expect(c.out).toHaveLength(2);
    expect(c.out[1]).toMatch(/^\+1\.000s replay-\S+#1 run\.started$/);
    const after = (await (await fetch(`${url}/healthz`, { headers: { authorization: `Bearer ${TOKEN}` } })).json()).counters.received;
    expect(after).toBe(before);
  });
});
