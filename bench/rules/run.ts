// What answer rules cost a held request (issue 22): one daemon in process
// (Claude Code's descriptor, control on over an in-memory link), a
// PermissionRequest for a Bash command, timed from handle() until the card
// is held (the hold registered: what a human would be shown), with
//   none      no rules at all (the baseline)
//   1000      1,000 learned rules, none matching (every one is evaluated)
// and, for the automatic answer itself,
//   allow     the same 1,000 rules plus the one that allows it, timed until
//             the agent has its reply (attention.answered by the rule)
// Rounds interleave the variants so machine noise hits all alike; median and
// p99 per variant, and the ratios against `none` in the same run.
//   npx tsx bench/rules/run.ts [--n 2000]
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Daemon } from '../../engine/runtime/daemon/daemon.ts';
import type { EventLink } from '../../engine/runtime/daemon/relay-link-types.ts';
import { loadVendor } from '../../engine/core/descriptor/registry.ts';
import { RuleBook } from '../../engine/runtime/policy/rulebook.ts';
import { ratio, writeResult } from '../results.ts';

const args = process.argv.slice(2);
const N = Number(args[args.indexOf('--n') + 1]) || 2000;
const base = mkdtempSync(join(tmpdir(), 'hookmap-bench-rules-'));
process.on('exit', () => rmSync(base, { recursive: true, force: true }));

const link: EventLink = { ready: true, deliver() {}, resend() {}, async close() {} };

function rulesFile(home: string, n: number, matching: boolean): void {
  const lines = ['rules:'];
  for (let i = 0; i < n; i++) lines.push(`  - { id: r${i}, decide: allow, tool: Bash, command: { prefix: "tool-${i} run" }, project: /srv/p${i % 50} }`);
  if (matching) lines.push('  - { id: allow-ls, decide: allow, tool: Bash, command: { prefix: ls } }');
  writeFileSync(join(home, 'rules.yaml'), `${lines.join('\n')}\n`, { mode: 0o600 });
}

interface Variant {
  name: string;
  daemon: Daemon;
  /** Resolves when the request is held (a card) or answered (the reply). */
  once(i: number): Promise<void>;
  times: number[];
}

const descriptor = loadVendor('claude-code');

function variant(name: string, rules: number | undefined, matching: boolean): Variant {
  const dir = mkdtempSync(join(base, `${name}-`));
  let book: RuleBook | undefined;
  if (rules !== undefined) {
    rulesFile(dir, rules, matching);
    book = new RuleBook({ home: dir });
  }
  let held: (() => void) | undefined;
  const daemon = Daemon.open({ descriptor, logDir: join(dir, 'logs'), rules: book, attentionTimeoutMs: 60_000, onHold: () => held?.() });
  daemon.attach(link, true);
  const v: Variant = {
    name,
    daemon,
    times: [],
    async once(i) {
      const payload = {
        hook_event_name: 'PermissionRequest',
        session_id: `bench-${name}-${i}`,
        cwd: '/work/app',
        permission_mode: 'default',
        tool_name: 'Bash',
        tool_input: { command: `ls -la src/${i}` },
        permission_suggestions: [],
      };
      const t0 = process.hrtime.bigint();
      if (matching) {
        await daemon.handle({ hook: 'PermissionRequest', payload });
      } else {
        const isHeld = new Promise<void>((r) => (held = r));
        const reply = daemon.handle({ hook: 'PermissionRequest', payload });
        await isHeld;
        v.times.push(Number(process.hrtime.bigint() - t0) / 1e6);
        // let the card go: a session end dismisses it
        await daemon.handle({ hook: 'SessionEnd', payload: { hook_event_name: 'SessionEnd', session_id: payload.session_id, reason: 'other' } });
        await reply;
        return;
      }
      v.times.push(Number(process.hrtime.bigint() - t0) / 1e6);
    },
  };
  return v;
}

const variants = [variant('none', undefined, false), variant('1000', 1000, false), variant('allow', 1000, true)];
const WARM = Math.min(200, N / 10);
for (let i = 0; i < N + WARM; i++) for (const v of variants) await v.once(i);
for (const v of variants) v.times.splice(0, WARM);

const q = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))];
};
const none = q(variants[0].times, 0.5);
console.log(`held PermissionRequest, ${N} rounds (Node ${process.version}):`);
for (const v of variants) {
  const med = q(v.times, 0.5);
  console.log(`  ${v.name.padEnd(6)} median ${med.toFixed(3)} ms  p99 ${q(v.times, 0.99).toFixed(3)} ms  ratio ${(med / none).toFixed(2)}x`);
}
for (const v of variants) await v.daemon.close();
const LABEL: Record<string, string> = {
  none: 'none',
  '1000': '1,000 learned rules, none matching (every one evaluated)',
  allow: '1,000 + the one that allows it: the automatic answer, until the agent has its reply',
};
const r3 = (x: number) => Math.round(x * 1000) / 1000;
writeResult({
  bench: 'rules',
  title: 'Rules that answer',
  command: `npx tsx bench/rules/run.ts --n ${N}`,
  about:
    `a held Claude Code PermissionRequest through one in-process daemon, timed from the hook until the card is held; ${N} rounds, ` +
    'variants interleaved, no rules as the baseline in the same run.',
  tables: [
    {
      caption: 'From the hook until the card is held (or the rule has answered).',
      label: 'rules loaded',
      columns: [
        { name: 'median', unit: 'ms' },
        { name: 'p99', unit: 'ms' },
      ],
      ratio: 'vs no rules',
      rows: variants.map((v, i) => ({
        name: LABEL[v.name],
        values: [r3(q(v.times, 0.5)), r3(q(v.times, 0.99))],
        ratio: ratio(q(v.times, 0.5), none),
        ...(i === 0 ? { baseline: true } : {}),
      })),
    },
  ],
  notes: [
    'The automatic answer costs more than holding a card because it does what a human answer does (the decision bytes, ' +
      'attention.answered and resolved) and also counts the use and appends the audit line.',
  ],
});
