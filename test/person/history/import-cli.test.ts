// `hookmap history import`, the real CLI spawned on a home and a user folder
// holding the transcripts the live suite recorded (fixtures/<agent>/transcripts/),
// the agents' folders where their options point (HOOKMAP_<AGENT>_<KEY>):
// the summary line, then `sessions` and `usage` list them with tokens and
// cost; a second import adds nothing.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../../../engine/core/descriptor/registry.ts';
import { BIN } from '../../runtime/shim/helpers.ts';
import { tempDir } from '../../runtime/daemon/helpers.ts';

let dir: string;
let done: () => void;

function hookmap(args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    env: {
      ...process.env,
      HOOKMAP_HOME: join(dir, 'home'),
      HOOKMAP_CLAUDE_CODE_CONFIG_DIR: join(dir, 'claude'),
      HOOKMAP_CODEX_CODEX_HOME: join(dir, 'codex'),
    },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

beforeAll(() => {
  ({ dir, done } = tempDir('hookmap-import-cli-'));
  const cc = join(dir, 'claude', 'projects', '-tmp-hookmap-live-scratch-project');
  const codex = join(dir, 'codex', 'sessions', '2026', '12', '01');
  mkdirSync(cc, { recursive: true });
  mkdirSync(codex, { recursive: true });
  copyFileSync(join(ROOT, 'fixtures/claude-code/transcripts/live-2.1.328.jsonl'), join(cc, '7e67d4f7-391d-4e4f-9b9a-808fa319a1c8.jsonl'));
  copyFileSync(join(ROOT, 'fixtures/codex/transcripts/live-0.169.0.jsonl'), join(codex, 'rollout-2026-12-01T18-15-11-01a232d1.jsonl'));
});
afterAll(() => done());

describe('hookmap history import (the CLI)', () => {
  it('imports Claude Code and Codex, lists them with tokens and cost, and adds nothing the second time', () => {
    const first = hookmap(['history', 'import', 'claude-code', 'codex']);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/^claude-code: 1 file\(s\) read, 1 session\(s\) imported \(\d+ events\)/m);
    expect(first.stdout).toMatch(/^codex: 1 file\(s\) read, 1 session\(s\) imported \(\d+ events\)/m);

    const claudesOwnCost = readFileSync(join(ROOT, 'fixtures/claude-code/transcripts/live-2.1.328.jsonl'), 'utf8')
      .split('\n')
      .filter((l) => l.includes('"cost-state"'))
      .map((l) => JSON.parse(l).totalCostUSD as number)
      .at(-1)!;
    const rows = JSON.parse(hookmap(['sessions', '--state', 'imported', '--json']).stdout) as Record<string, any>[];
    expect(rows.map((r) => [r.agent, r.session]).sort()).toEqual([
      ['claude-code', '7e67d4f7-391d-4e4f-9b9a-808fa319a1c8'],
      ['codex', '01a232d1-5b9b-7a40-8e23-205f481c5ce1'],
    ]);
    const cc = rows.find((r) => r.agent === 'claude-code')!;
    expect(cc.output_tokens).toBe(102);
    expect(cc.cost_usd).toBeCloseTo(claudesOwnCost, 6);
    expect(rows.find((r) => r.agent === 'codex')).toMatchObject({ input_tokens: 6006, output_tokens: 135, reasoning_tokens: 36 });

    const table = hookmap(['usage', '--by', 'session']).stdout;
    expect(table).toMatch(/claude-code 7e67d4f7-391d-4e4f-9b9a-808fa319a1c8\s+1\s+3615\s+102\s+1500\s+210\s+\$0\.0110/);
    expect(table).toMatch(/codex 01a232d1-5b9b-7a40-8e23-205f481c5ce1\s+1\s+6006\s+135\s+2400\s+0\s+-/);

    const status = () => JSON.parse(hookmap(['history', 'status', '--json']).stdout) as { events: number; usage: number };
    const before = status();
    const second = hookmap(['history', 'import', '--json']);
    expect(second.code).toBe(0);
    const reports = JSON.parse(second.stdout) as { agent: string; events: number; sessions: number }[];
    expect(reports.map((r) => r.agent).sort()).toEqual(['claude-code', 'codex']);
    expect(reports.every((r) => r.events === 0 && r.sessions === 0)).toBe(true);
    expect(status()).toEqual(before);
  });

  it('refuses an agent it does not know, and --max-seconds outside import (exit 2)', () => {
    const r = hookmap(['history', 'import', 'no-such-agent']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/unknown agent 'no-such-agent'/);
    expect(hookmap(['history', 'status', '--max-seconds', '3']).code).toBe(2);
    expect(hookmap(['history', 'import', '--max-seconds', 'soon']).code).toBe(2);
  });
});
