// `hookmap check` holds an agent's recorded payloads (fixtures/<agent>/recorded/,
// copied in by `hookmap record promote`) to the fixture schema and maps each
// through the descriptor: a payload that no longer maps, a file the schema
// refuses, or a file of another kind in recorded/ fails check at its line.
import { cpSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkAgent, summaryLine } from '../../../engine/tools/check/check-agent.ts';
import { checkTarget } from '../../../engine/tools/check/targets.ts';
import { FIXTURES_DIR, VENDORS_DIR } from '../../../engine/core/descriptor/registry.ts';

const tmp = mkdtempSync(join(tmpdir(), 'hookmap-check-recorded-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** codex's descriptor and fixtures beside each other (a draft's layout), with extra files in recorded/. */
function draft(name: string, extra: Record<string, string> = {}): string {
  const dir = join(tmp, name);
  cpSync(join(FIXTURES_DIR, 'codex'), join(dir, 'codex'), { recursive: true });
  cpSync(join(VENDORS_DIR, 'codex.yaml'), join(dir, 'codex.yaml'));
  for (const [f, text] of Object.entries(extra)) writeFileSync(join(dir, 'codex', 'recorded', f), text);
  return join(dir, 'codex.yaml');
}

const recordedCount = readdirSync(join(FIXTURES_DIR, 'codex', 'recorded')).filter((f) => /\.ya?ml$/.test(f)).length;

describe('hookmap check maps the recorded payloads', () => {
  it('counts every recorded payload of the agent as mapped', async () => {
    const r = await checkAgent(checkTarget(draft('clean')));
    expect(r.errors).toEqual([]);
    expect(r.recorded).toEqual({ passed: recordedCount, total: recordedCount });
    expect(summaryLine(r)).toContain(`, ${recordedCount}/${recordedCount} recorded payloads,`);
  });

  it('a payload the mapping refuses, a file the schema refuses and another kind in recorded/ each fail check where they are', async () => {
    const r = await checkAgent(
      checkTarget(
        draft('broken', {
          'bad-payload.yaml': 'kind: recorded\nagent: codex\nhook: PreToolUse\npayload:\n  hook_event_name: PreToolUse\n  session_id: 42\n',
          'bad-schema.yaml': 'kind: recorded\nagent: codex\nhook: PreToolUse\nsurprise: 1\npayload: {}\n',
          'not-recorded.yaml': 'kind: events\nagent: codex\ncases: []\n',
          'other-agent.yaml': 'kind: recorded\nagent: claude-code\nhook: Stop\npayload: {}\n',
        }),
      ),
    );
    const lines = r.errors.map((e) => `${e.file.replace(/^.*\/codex\//, '')}:${e.line} ${e.code}: ${e.message}`);
    expect(lines.find((l) => l.startsWith('recorded/bad-payload.yaml:5 '))).toMatch(/fixture-mismatch|payload-rejected/);
    expect(lines.find((l) => l.startsWith('recorded/bad-schema.yaml:'))).toMatch(/fixture-invalid: .*surprise/);
    expect(lines.find((l) => l.startsWith('recorded/not-recorded.yaml:1 '))).toMatch(/fixture-invalid: kind 'events' in recorded\//);
    expect(lines.find((l) => l.startsWith('recorded/other-agent.yaml:'))).toMatch(/fixture-invalid: agent 'claude-code' in a fixture of 'codex'/);
    // the others still count, the broken one does not
    expect(r.recorded).toEqual({ passed: recordedCount, total: recordedCount + 1 });
  });
});
