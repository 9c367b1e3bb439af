import { describe, expect, it } from 'vitest';
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RuleBook } from '../../engine/policy/rulebook.ts';
import { subjectOf } from '../../engine/policy/subject.ts';
describe('x', () => {
  it('learns', async () => {
    const home = mkdtempSync(join(tmpdir(), 'rb-'));
    const proj = mkdtempSync(join(tmpdir(), 'proj-')); mkdirSync(join(proj, '.git'));
    const rb = new RuleBook({ home, userHome: '/home/nobody' });
    const s = subjectOf({ agent: 'claude-code', session: 's1' }, { tool: 'Bash', command: 'npm test -- --watch', cwd: proj });
    const l = rb.learn(s, { match: 'prefix', scope: 'project' }, { by: 'owner', via: 'cli' });
    console.log(l, require('node:fs').readFileSync(join(home, 'rules.yaml'), 'utf8'));
    const s2 = subjectOf({ agent: 'claude-code', session: 's2' }, { tool: 'Bash', command: 'npm test -- --runInBand', cwd: proj });
    expect((await rb.decide(s2)).verb).toBe('allow');
    expect((await rb.decide({ ...s2, command: 'npm test && touch pwned' })).verb).toBe('none');
    expect((await rb.decide({ ...s2, command: 'npm test > ~/.bashrc' })).verb).toBe('none');
    const other = subjectOf({ agent: 'claude-code', session: 's3' }, { tool: 'Bash', command: 'npm test', cwd: tmpdir() });
    expect((await rb.decide(other)).verb).toBe('none');
    rb.revoke(l.rule.id, { by: 'owner', via: 'cli' });
    expect((await rb.decide(s2)).verb).toBe('none');
    console.log(rb.list());
  });
});
