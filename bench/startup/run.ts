// Start-up budgets (issue 25): how long a command takes from spawn to done,
// as a ratio to a bare `node -e 0` measured in the same run, interleaved
// round by round so machine load falls on every variant alike:
//   hookmap --version, hookmap answer --help    (budget: 2x)
//   hookmap tail ready: `tail --json --from all --count 1` against a running
//     up holding one event (start, connect, first event, exit; budget 2x)
//   hookmap capabilities claude-code --json     (budget: 3x)
//   hookmap up: spawn until /healthz says every daemon's relay link is ready
//     (budget: 0.5 s on a quiet machine; printed in ms and as a ratio), in
//     the home it ran in before (its caches warm: how a user's up starts)
//     and in a new home (nothing cached: the first start after install)
// By default the clone (this checkout's bin/hookmap.mjs, its bundle fresh
// from npm ci) and the installed package (this checkout packed and installed
// into a temp prefix, test/helpers/package-install.ts) side by side in one
// run; --clone-only skips the package. --bin points at other hookmaps
// (another checkout, an older package) to compare them instead.
//   npx tsx bench/startup/run.ts [--rounds 7] [--clone-only] [--bin path/to/bin/hookmap.mjs ...]
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ratio, writeResult } from '../results.ts';
import { packAndInstall } from '../../test/helpers/package-install.ts';
import { hookKeyHeaders } from '../../engine/runtime/auth/hook-key.mjs';

const args = process.argv.slice(2);
const ROUNDS = args.includes('--rounds') ? Number(args[args.indexOf('--rounds') + 1]) : 7;
const bins = args.flatMap((a, i) => (a === '--bin' ? [args[i + 1]] : []));
const home = mkdtempSync(join(tmpdir(), 'hookmap-bench-startup-'));
if (!bins.length) {
  bins.push(fileURLToPath(new URL('../../bin/hookmap.mjs', import.meta.url)));
  if (!args.includes('--clone-only')) {
    process.stderr.write('bench/startup: packing this checkout and installing the package (the clone and the package side by side)\n');
    bins.push(await packAndInstall(join(home, 'package')));
  }
}
const env = { ...process.env, HOME: home, HOOKMAP_HOME: home, HOOKMAP_AUTOSTART: '0' };

function timed(argv: string[], extraEnv: NodeJS.ProcessEnv = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const p = spawn(process.execPath, argv, { env: { ...env, ...extraEnv }, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    p.stderr.on('data', (c) => (err += c));
    p.on('exit', (code) => (code === 0 ? resolve(Number(process.hrtime.bigint() - t0) / 1e6) : reject(new Error(`${argv.join(' ')}: exit ${code}: ${err}`))));
  });
}

/** `up --port 0` from spawn until /healthz (with the owner token) says relay: true; returns ms and the running child. */
function upReady(bin: string, upHome: string): Promise<{ ms: number; url: string; stop: () => Promise<void> }> {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const p = spawn(process.execPath, [bin, 'up', '--port', '0'], { env: { ...env, HOOKMAP_HOME: upHome }, stdio: ['ignore', 'pipe', 'ignore'] });
    const stop = () => new Promise<void>((r) => (p.exitCode !== null ? r() : (p.once('exit', () => r()), p.kill('SIGTERM'))));
    let buf = '';
    const giveUp = setTimeout(() => void stop().then(() => reject(new Error('up: not ready within 60 s'))), 60_000);
    p.stdout!.on('data', async (c) => {
      buf += c;
      if (!buf.includes('\n') || buf.includes('\u0000')) return;
      buf += '\u0000'; // once
      const url = buf.split('\n')[0].trim();
      const token = readFileSync(join(upHome, 'token'), 'utf8').trim();
      for (;;) {
        try {
          const h = await (await fetch(`${url}/healthz`, { headers: { authorization: `Bearer ${token}` } })).json();
          if (h.relay === true) break;
        } catch {
          // not yet
        }
        await new Promise((r) => setTimeout(r, 5));
      }
      clearTimeout(giveUp);
      resolve({ ms: Number(process.hrtime.bigint() - t0) / 1e6, url, stop });
    });
  });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main(): Promise<void> {
  const samples = new Map<string, number[]>();
  const add = (k: string, v: number) => samples.set(k, [...(samples.get(k) ?? []), v]);
  // one running up per bin, holding one event, for `tail`
  const running = new Map<string, { url: string; home: string; stop: () => Promise<void> }>();
  // per bin, the home its `up` rounds start in again and again (warmed by one start before the rounds)
  const upHomes = new Map<string, string>();
  for (const bin of bins) {
    const h = mkdtempSync(join(home, 'up-same-'));
    await (await upReady(bin, h)).stop();
    upHomes.set(bin, h);
  }
  for (const bin of bins) {
    const upHome = mkdtempSync(join(home, 'tail-'));
    const up = await upReady(bin, upHome);
    const hook = await fetch(`${up.url}/hooks/claude-code`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...hookKeyHeaders(upHome) },
      body: JSON.stringify({ hook_event_name: 'SessionStart', session_id: 'bench', cwd: home, transcript_path: '/dev/null', source: 'startup' }),
    });
    // a refused hook would leave `tail` waiting for an event forever
    if (hook.status !== 200) throw new Error(`the bench's hook was refused (${hook.status} ${hook.headers.get('x-hookmap-error')})`);
    running.set(bin, { url: up.url, home: upHome, stop: up.stop });
  }
  try {
    for (let r = 0; r < ROUNDS; r++) {
      add('node -e 0', await timed(['-e', '0']));
      for (const [i, bin] of bins.entries()) {
        const tag = bins.length > 1 ? ` [${i + 1}]` : '';
        add(`hookmap --version${tag}`, await timed([bin, '--version']));
        add(`hookmap answer --help${tag}`, await timed([bin, 'answer', '--help']));
        const run = running.get(bin)!;
        add(
          `hookmap tail (first event, exit)${tag}`,
          await timed([bin, 'tail', '--json', '--from', 'all', '--count', '1', '--url', run.url], { HOOKMAP_HOME: run.home }),
        );
        add(`hookmap capabilities claude-code --json${tag}`, await timed([bin, 'capabilities', 'claude-code', '--json']));
        const warm = await upReady(bin, upHomes.get(bin)!);
        add(`hookmap up until /healthz ready (same home)${tag}`, warm.ms);
        await warm.stop();
        const cold = await upReady(bin, mkdtempSync(join(home, 'up-')));
        add(`hookmap up until /healthz ready (new home)${tag}`, cold.ms);
        await cold.stop();
      }
    }
  } finally {
    for (const u of running.values()) await u.stop();
  }
  const base = median(samples.get('node -e 0')!);
  console.log(`start-up, ${ROUNDS} rounds interleaved, medians${bins.length > 1 ? `; ${bins.map((b, i) => `[${i + 1}] ${b}`).join(', ')}` : ''}`);
  console.log('| command | median | vs `node -e 0` |');
  console.log('|---|---:|---:|');
  for (const [k, xs] of samples) console.log(`| ${k} | ${median(xs).toFixed(0)} ms | ${(median(xs) / base).toFixed(2)} |`);
  const rel = (b: string) => (b.startsWith(home) ? 'the installed package' : b.replace(fileURLToPath(new URL('../../', import.meta.url)), ''));
  const variants = args.includes('--bin') ? bins.map((b) => ` --bin ${rel(b)}`).join('') : args.includes('--clone-only') ? ' --clone-only' : '';
  writeResult({
    bench: 'startup',
    title: 'Start-up',
    command: `npx tsx bench/startup/run.ts --rounds ${ROUNDS}${variants}`,
    about:
      'from spawn to done, as a ratio to a bare `node -e 0` in the same run, rounds interleaved so load falls on every ' +
      'variant alike. Budgets (issue 25): `--version` and `answer --help` 2x, `tail` (start, connect, first event, exit) ' +
      '2x, `capabilities --json` 3x, `up` until `/healthz` says every relay link is ready 0.5 s on a quiet machine, ' +
      'in the home it ran in before (caches warm) and in a new one (the first start after install).' +
      (bins.length > 1 ? ` Variants: ${bins.map((b, i) => `[${i + 1}] ${rel(b)}`).join(', ')}.` : ''),
    tables: [
      {
        caption: `Medians of ${ROUNDS} rounds.`,
        label: 'command',
        columns: [{ name: 'median', unit: 'ms' }],
        ratio: 'vs `node -e 0`',
        rows: [...samples].map(([k, xs]) => ({
          name: k
            .replace(/^hookmap /, '`hookmap ')
            .replace(/^(`hookmap [^([]*?)( \(|$| \[)/, '$1`$2')
            .replace(/^node -e 0$/, '`node -e 0`'),
          values: [Math.round(median(xs))],
          ratio: ratio(median(xs), base),
          ...(k === 'node -e 0' ? { baseline: true } : {}),
        })),
      },
    ],
  });
}

try {
  await main();
} finally {
  rmSync(home, { recursive: true, force: true });
}
