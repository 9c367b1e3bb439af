// `hookmap check` runs every shim fixture case it counts (issue 28): the
// generated shims as processes against a daemon up, down, hung and erroring.
// A case edited to a wrong expected reply fails check; a pass that does not
// run them (docs, capabilities) reports them as not run, never as passing;
// shim.failOpen's evidence names fail-open cases (down, hung, error).
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { checkAgent, summaryLine } from '../../../engine/tools/check/check-agent.ts';
import { checkTarget } from '../../../engine/tools/check/targets.ts';
import { FIXTURES_DIR, VENDORS_DIR } from '../../../engine/core/descriptor/registry.ts';
import { runCli } from '../../helpers/cli.ts';

const tmp = mkdtempSync(join(tmpdir(), 'hookmap-check-shims-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** codex's descriptor and fixtures copied beside each other (a draft's layout), shim.yaml edited by `edit`. */
function draft(name: string, edit?: (c: Record<string, unknown>) => void): string {
  const dir = join(tmp, name);
  cpSync(join(FIXTURES_DIR, 'codex'), join(dir, 'codex'), { recursive: true });
  cpSync(join(VENDORS_DIR, 'codex.yaml'), join(dir, 'codex.yaml'));
  if (edit) {
    const file = join(dir, 'codex', 'shim.yaml');
    const doc = parseDocument(readFileSync(file, 'utf8'));
    const cases = doc.toJS().cases as Record<string, unknown>[];
    cases.forEach(edit);
    doc.set('cases', cases);
    writeFileSync(file, doc.toString());
  }
  return join(dir, 'codex.yaml');
}

describe('hookmap check runs the shim cases', () => {
  it('every expected stdout and exit code changed to wrong values: check fails, naming each case', async () => {
    const path = draft('wrong', (c) => {
      c.stdout = 'WRONG';
      c.exit = 7;
    });
    const r = await runCli(['check', path], { PATH: process.env.PATH, HOME: tmp, HOOKMAP_HOME: tmp }, 120_000);
    expect(r.code).toBe(1);
    const shimCases = (parseDocument(readFileSync(join(FIXTURES_DIR, 'codex', 'shim.yaml'), 'utf8')).toJS().cases as unknown[]).length;
    const mismatches = r.stdout
      .split('\n')
      .filter((l) =>
        /shim\.yaml:\d+:\d+ fixture-mismatch: cases\[\d+\]: .*: (sh|node) shim, daemon (up|down|hung|error): stdout ".*", expected "WRONG"/.test(l),
      );
    expect(mismatches).toHaveLength(shimCases);
    const total = (await checkAgent(checkTarget(path))).cases.length;
    expect(r.stdout).toContain(`codex: 11/11 pin cases, ${total - shimCases}/${total} fixture cases`);
  });

  it('one wrong exit code alone fails check', async () => {
    let first = true;
    const path = draft('one', (c) => {
      if (first && c.daemon === 'down') {
        c.exit = 3;
        first = false;
      }
    });
    const r = await runCli(['check', path], { PATH: process.env.PATH, HOME: tmp, HOOKMAP_HOME: tmp }, 120_000);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/fixture-mismatch: .*daemon down: exit 0, expected 3/);
    expect(r.stdout).toMatch(/hookmap check: 1 agent, 1 error/);
  });

  it('a pass that does not run them says so, and counts none of them as passing', async () => {
    const report = await checkAgent(checkTarget(draft('docs')));
    const shim = report.cases.filter((c) => c.kind === 'shim');
    expect(shim.length).toBeGreaterThan(0);
    expect(shim.every((c) => !c.passed && c.notRun === 'shim cases run under `hookmap check`')).toBe(true);
    const total = report.cases.length;
    expect(summaryLine(report)).toContain(`${total - shim.length}/${total} fixture cases (${shim.length} not run: shim cases run under \`hookmap check\`)`);
  });

  it("shim.failOpen's evidence is a fail-open case of each mood, not a pass-through case", async () => {
    const report = await checkAgent(checkTarget(draft('evidence')), { shims: { path: process.env.PATH } });
    expect(report.errors).toEqual([]);
    const row = report.capabilities.find((c) => c.id === 'shim.failOpen')!;
    expect(row.proven).toBe(true);
    expect(row.evidence.map((r) => r.replace(/^.*#/, ''))).toEqual([
      expect.stringMatching(/down/),
      expect.stringMatching(/hung/),
      expect.stringMatching(/error|500/),
    ]);
  });
});
