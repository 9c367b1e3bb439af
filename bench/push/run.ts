// How long a held request takes to reach a phone (issue 23): a whole
// `hookmap up` in process (Claude Code's descriptor, Web Push with
// push.delay_ms 0, one device registered), the loopback push service of the
// tests (it verifies VAPID and decrypts with http_ece, as a browser would).
// Timed per round, interleaved:
//   hook      a PreToolUse hook's own reply (POST until the reply bytes): the baseline
//   push      a PermissionRequest's arrival until the push request reached the push
//             service (decrypted there); each request is then answered with the
//             action credential the push carried
//   watch     a Notification permission_prompt no card asks (issue 43, docs/watch.md): from
//             the hook's arrival (its x.hookmap.watch.waiting sign goes on the stream) until
//             the watch's attention reached the push service; cleared by the next prompt
//   ladder    a PermissionRequest in a project whose escalation ladder (docs/escalation.md) pushes
//             after LADDER_MS: from the step's due time (the request's time + LADDER_MS) until the
//             push reached the push service
// Median and p99 of each, and the push's ratio to the hook's reply in the same run.
//   npx tsx bench/push/run.ts [--n 200]
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureOwnerToken } from '../../engine/runtime/auth/tokens.ts';
import { startUp } from '../../engine/app/up.ts';
import { startPushService } from '../../test/helpers/push-service.ts';
import { r1, ratio, writeResult } from '../results.ts';
import { hookKeyHeaders } from '../../engine/runtime/auth/hook-key.mjs';
import { pushConfigOf } from '../../engine/person/push/escalation.ts';
import { watchAll } from '../../test/helpers/up-stack.ts';

const args = process.argv.slice(2);
const N = Number(args[args.indexOf('--n') + 1]) || 200;
const home = mkdtempSync(join(tmpdir(), 'hookmap-bench-push-'));
process.on('exit', () => rmSync(home, { recursive: true, force: true }));

const owner = ensureOwnerToken(home);
const LADDER_MS = 200;
const laddered = join(home, 'laddered');
mkdirSync(laddered);
const ps = await startPushService();
const up = await startUp({
  port: 0,
  home,
  logDir: join(home, 'logs'),
  stateDir: join(home, 'state'),
  tokenFile: owner.path,
  agents: [{ descriptor: 'claude-code', attentionTimeoutMs: 30_000 }],
  push: pushConfigOf({ delay_ms: 0, ladder: { projects: { laddered: { permission: [{ to: 'inbox' }, { to: 'push', after_ms: LADDER_MS }] } } } }),
});
const auth = { authorization: `Bearer ${owner.token}`, 'content-type': 'application/json' };
await fetch(`${up.url}/push/devices`, {
  method: 'POST',
  headers: auth,
  body: JSON.stringify({ subscription: ps.device('phone').subscription, name: 'phone' }),
});
while (!(await (await fetch(`${up.url}/healthz`, { headers: auth })).json()).relay) await new Promise((r) => setTimeout(r, 50));
const stream = await watchAll(up.url, owner.token);

const post = (body: object) =>
  fetch(`${up.url}/hooks/claude-code`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...hookKeyHeaders(home) },
    body: JSON.stringify(body),
  });

async function hookOnce(i: number): Promise<number> {
  const t0 = performance.now();
  const r = await post({
    hook_event_name: 'PreToolUse',
    session_id: `bench-hook-${i}`,
    cwd: '/tmp',
    tool_name: 'Read',
    tool_input: { file_path: '/tmp/x' },
    tool_use_id: `t${i}`,
  });
  await r.text();
  return performance.now() - t0;
}

async function pushOnce(i: number): Promise<number> {
  const seen = ps.received.length;
  const wall0 = Date.now();
  const held = post({
    hook_event_name: 'PermissionRequest',
    session_id: `bench-push-${i}`,
    cwd: '/tmp',
    permission_mode: 'default',
    tool_name: 'Bash',
    tool_input: { command: `ls ${i}` },
    permission_suggestions: [],
  });
  let got;
  while (!(got = ps.received.slice(seen).find((r) => r.message.type === 'request'))) await new Promise((r) => setImmediate(r));
  // the push service stamps the arrival (ms, the same clock): measured to that, not to this loop noticing it
  const arrived = got.at - wall0;
  await fetch(`${up.url}/push/action`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ credential: got.message.credential, action: 'allow' }),
  });
  await (await held).text();
  return Math.max(arrived, 0);
}

async function ladderOnce(i: number): Promise<number> {
  const seen = ps.received.length;
  const session = `bench-ladder-${i}`;
  const held = post({
    hook_event_name: 'PermissionRequest',
    session_id: session,
    cwd: laddered,
    permission_mode: 'default',
    tool_name: 'Bash',
    tool_input: { command: `ls ${i}` },
    permission_suggestions: [],
  });
  let got;
  while (!(got = ps.received.slice(seen).find((r) => r.message.type === 'request' && r.message.session === session)))
    await new Promise((r) => setTimeout(r, 1));
  const req = stream.stream.find((e) => e.type === 'attention.requested' && e.id === got.message.request);
  const late = got.at - (Date.parse(req.time) + LADDER_MS);
  await fetch(`${up.url}/push/action`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ credential: got.message.credential, action: 'allow' }),
  });
  await (await held).text();
  return Math.max(late, 0);
}

async function watchOnce(i: number): Promise<number> {
  const seen = ps.received.length;
  const session = `bench-watch-${i}`;
  const wall0 = Date.now();
  await (await post({ hook_event_name: 'Notification', session_id: session, cwd: '/tmp', notification_type: 'permission_prompt', message: 'm' })).text();
  let got;
  while (!(got = ps.received.slice(seen).find((r) => r.message.type === 'request' && r.message.session === session))) await new Promise((r) => setImmediate(r));
  const arrived = got.at - wall0;
  // the agent moves on (a new prompt): the watch resolves it
  await (await post({ hook_event_name: 'UserPromptSubmit', session_id: session, cwd: '/tmp', prompt: 'go on' })).text();
  return Math.max(arrived, 0);
}

const q = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))];
const hook: number[] = [];
const push: number[] = [];
const watch: number[] = [];
const ladder: number[] = [];
for (let i = 0; i < 10; i++) {
  await hookOnce(-i - 1);
  await pushOnce(-i - 1);
  await watchOnce(-i - 1);
  await ladderOnce(-i - 1);
}
for (let i = 0; i < N; i++) {
  hook.push(await hookOnce(i));
  push.push(await pushOnce(i));
  watch.push(await watchOnce(i));
  ladder.push(await ladderOnce(i));
}
const row = (name: string, xs: number[]) =>
  `| ${name} | ${q(xs, 0.5).toFixed(1)} ms | ${q(xs, 0.99).toFixed(1)} ms | ${(q(xs, 0.5) / q(hook, 0.5)).toFixed(2)} |`;
console.log(
  `bench/push: ${N} rounds, interleaved; load average ${(await import('node:os'))
    .loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')}`,
);
console.log('| what | median | p99 | ratio to the hook reply |');
console.log('|---|---:|---:|---:|');
console.log(row("a PreToolUse hook's own reply (baseline)", hook));
console.log(row('PermissionRequest arrival to the push at the push service', push));
console.log(row("a waiting sign (Notification permission_prompt) to the watch's push", watch));
console.log(row(`a ladder step's due time (request + ${LADDER_MS} ms) to the push at the push service`, ladder));
if (ps.errors.length) console.log(`push service refused ${ps.errors.length}: ${ps.errors[0]}`);
if (ps.errors.length) throw new Error(`the push service refused ${ps.errors.length} requests; no results written`);
writeResult({
  bench: 'push',
  title: 'Web Push',
  command: `npx tsx bench/push/run.ts --n ${N}`,
  about:
    'a whole `hookmap up` in process (Claude Code, Web Push with `push.delay_ms` 0, one device registered) and the ' +
    "tests' loopback push service, which verifies VAPID and decrypts each message as a browser would; from a " +
    "PermissionRequest's arrival until its push reached the push service, against a PreToolUse hook's own reply in the same " +
    `run, ${N} rounds interleaved; each request is then answered with the action credential its push carried. The watch: ` +
    "a Notification permission_prompt no card asks, from the hook's arrival (its waiting sign goes on the stream) until the " +
    "watch's attention (answered at the agent) reached the push service; the next prompt clears it. The ladder: a " +
    `PermissionRequest in a project whose escalation ladder pushes after ${LADDER_MS} ms, from the step's due time (the ` +
    "request's time on the stream + the step's after_ms) until the push reached the push service.",
  tables: [
    {
      caption: `${N} rounds.`,
      label: 'what',
      columns: [
        { name: 'median', unit: 'ms' },
        { name: 'p99', unit: 'ms' },
      ],
      ratio: 'vs the hook reply',
      rows: [
        { name: "a PreToolUse hook's own reply", values: [r1(q(hook, 0.5)), r1(q(hook, 0.99))], ratio: 1, baseline: true },
        {
          name: 'PermissionRequest arrival to the push at the push service',
          values: [r1(q(push, 0.5)), r1(q(push, 0.99))],
          ratio: ratio(q(push, 0.5), q(hook, 0.5)),
        },
        {
          name: "a waiting sign to the watch's push at the push service",
          values: [r1(q(watch, 0.5)), r1(q(watch, 0.99))],
          ratio: ratio(q(watch, 0.5), q(hook, 0.5)),
        },
        {
          name: "a ladder step's due time to the push at the push service",
          values: [r1(q(ladder, 0.5)), r1(q(ladder, 0.99))],
          ratio: ratio(q(ladder, 0.5), q(hook, 0.5)),
        },
      ],
    },
  ],
});
stream.close();
await up.close();
await ps.close();
