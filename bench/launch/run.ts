// Starting a session from anywhere (issue 42), against starting it by hand,
// in one run: the real Claude Code from the live cache, its hooks wired by
// `hookmap setup`, the scripted Messages API on loopback (test/live). Via
// the inbox: POST /launch as the New session form sends it (the same route,
// an owner token instead of the sign-in cookie) until the new session's
// first event is on the stream. By hand: `claude -p --output-format json
// --session-id <uuid> PROMPT` spawned in the same project with the same
// environment up gives its runs, until its first event is on the stream.
// Rounds interleaved, each run finished before the next starts.
//   npx tsx bench/launch/run.ts [--rounds 5]
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Live } from '../../test/live/live.ts';
import { r1, ratio, writeResult } from '../results.ts';

const args = process.argv.slice(2);
const ROUNDS = args.includes('--rounds') ? Number(args[args.indexOf('--rounds') + 1]) : 5;
const ID = 'claude-code';
const skip = Live.skipReason(ID);
if (skip) {
  console.error(`bench/launch: ${skip} (npm run test:live installs the agent cache)`);
  process.exit(2);
}

const live = new Live(ID, (cmd) => ({ tool: 'Bash', args: { command: cmd } }));
await live.start(30_000);
await live.setup(['--project', '--dir', live.s.project]);
const env = {
  ...live.agentEnv,
  PATH: `${dirname(live.bin)}:${process.env.PATH}`,
  ANTHROPIC_BASE_URL: live.model.url,
  ANTHROPIC_API_KEY: 'sk-ant-live-test-not-a-key',
  DISABLE_TELEMETRY: '1',
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
  DISABLE_AUTOUPDATER: '1',
};
// the runs are children of up: up's environment is theirs, and the hand-started claude gets the same
await live.restartUp(30_000, { env });
const token = readFileSync(join(live.s.hookmapHome, 'token'), 'utf8').trim();

const seen = new Set<string>();
// the agent's sessions (hookmap's own session carries the launch's audit events)
const sessions = () =>
  live.stream.events
    .filter((e) => e.agent === ID)
    .map((e) => e.session)
    .filter((s): s is string => typeof s === 'string');
/** Resolves when an event of a session not seen before is on the stream: its session and the time it was seen. */
async function firstNewEvent(deadlineMs = 60_000): Promise<{ session: string; at: number }> {
  const end = performance.now() + deadlineMs;
  for (;;) {
    const fresh = sessions().find((s) => !seen.has(s));
    if (fresh) return { session: fresh, at: performance.now() };
    if (performance.now() > end) throw new Error('no new session on the stream within 60 s');
    await new Promise((r) => setTimeout(r, 2));
  }
}
async function ended(session: string): Promise<void> {
  const end = performance.now() + 90_000;
  while (!live.stream.events.some((e) => e.session === session && e.type === 'session.ended')) {
    if (performance.now() > end) throw new Error(`session ${session} did not end within 90 s`);
    await new Promise((r) => setTimeout(r, 20));
  }
  for (const s of sessions()) seen.add(s);
}
const turn = (n: number) => {
  const prompt = `Say hello (round ${n}).`;
  const sc = { name: `hello-${n}`, prompt, steps: [{ say: 'Hello.' }] };
  live.model.play(sc);
  return prompt;
};

async function viaInbox(n: number): Promise<number> {
  const prompt = turn(n);
  const t0 = performance.now();
  const res = await fetch(`${live.up.url}/launch`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ agent: ID, project: live.s.project, prompt }),
  });
  if (res.status !== 201) throw new Error(`POST /launch: ${res.status} ${await res.text()}`);
  const first = await firstNewEvent();
  await ended(first.session);
  return first.at - t0;
}

async function byHand(n: number): Promise<number> {
  const prompt = turn(n);
  const t0 = performance.now();
  const child = spawn(live.bin, ['-p', '--output-format', 'json', '--session-id', randomUUID(), prompt], {
    cwd: live.s.project,
    env,
    stdio: ['ignore', 'ignore', 'ignore'],
  });
  const exited = new Promise((r) => child.once('exit', r));
  const first = await firstNewEvent();
  await ended(first.session);
  await exited;
  return first.at - t0;
}

const inbox: number[] = [];
const hand: number[] = [];
try {
  // one of each first, not counted: the agent's own caches warm
  await byHand(0);
  await viaInbox(0);
  for (let i = 1; i <= ROUNDS; i++) {
    hand.push(await byHand(i));
    inbox.push(await viaInbox(i));
  }
} finally {
  await live.close();
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log(`bench/launch: ${ROUNDS} rounds interleaved`);
console.log(`| start | median | max |`);
console.log(`| by hand (claude -p) | ${r1(median(hand))} ms | ${r1(Math.max(...hand))} ms |`);
console.log(`| inbox Start (POST /launch) | ${r1(median(inbox))} ms | ${r1(Math.max(...inbox))} ms | ratio ${ratio(median(inbox), median(hand))}`);
writeResult({
  bench: 'launch',
  title: 'Starting a session from anywhere',
  command: `npx tsx bench/launch/run.ts --rounds ${ROUNDS}`,
  about:
    "the real Claude Code from the live cache, its hooks wired by `hookmap setup`, against the tests' scripted Messages " +
    "API on loopback: the inbox's Start (POST /launch, what the New session form sends) until the new session's first " +
    'event is on the stream, against `claude -p --session-id <uuid> PROMPT` spawned by hand in the same project with ' +
    `the environment up gives its runs, until its first event is on the stream; ${ROUNDS} rounds interleaved after one ` +
    'of each not counted, each run finished before the next.',
  tables: [
    {
      caption: `${ROUNDS} rounds.`,
      label: 'start',
      columns: [
        { name: 'median', unit: 'ms' },
        { name: 'max', unit: 'ms' },
      ],
      ratio: 'vs by hand',
      rows: [
        { name: 'by hand: claude -p in the project', values: [r1(median(hand)), r1(Math.max(...hand))], ratio: 1, baseline: true },
        { name: 'the inbox Start: POST /launch', values: [r1(median(inbox)), r1(Math.max(...inbox))], ratio: ratio(median(inbox), median(hand)) },
      ],
    },
  ],
});
