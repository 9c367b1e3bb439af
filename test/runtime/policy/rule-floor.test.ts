// The floor holds under a rule that allows everything (issue 22 acceptance:
// "every floor row still raises a card, test per row"): with `decide: allow`
// and no match key in force, every example a floor row lists as a hit is
// kept for a human, named by that row, and every example it lists as a miss
// is allowed. The tool-path rows (a write or read the tool names itself)
// likewise. Also: a request whose command cannot be read is never allowed by
// a tool-wide rule.
import { describe, expect, it } from 'vitest';
import { compilePolicy } from '../../../engine/runtime/policy/policy.ts';
import { decideAnswer } from '../../../engine/runtime/policy/decide-answer.ts';
import { EXAMPLE_CONTEXT, FLOOR, UNREADABLE } from '../../../engine/runtime/policy/shell/floor.ts';
import type { AskSubject } from '../../../engine/runtime/policy/subject.ts';
import { readShell } from '../../../engine/runtime/policy/shell/commands.ts';

const allowAll = compilePolicy('learned.yaml', 'rules:\n  - { id: allow-everything, decide: allow }\n  - { id: allow-bash, decide: allow, tool: Bash }\n', {
  learned: true,
}).policy!.answers;
const { cwd, home } = EXAMPLE_CONTEXT;
const bash = (command: string): AskSubject => ({ agent: 'claude-code', session: 's', tool: 'Bash', command, paths: [], cwd, project: cwd });

describe('the floor under a rule that allows everything', () => {
  for (const row of FLOOR) {
    it(`row ${row.id}: every hit is kept for a human, every miss is allowed`, async () => {
      for (const hit of row.hits) {
        const d = await decideAnswer(allowAll, bash(hit), { home });
        // kept, by this row (an earlier row, such as privilege for `sudo …`, may name it first)
        expect([d.verb, d.floor !== undefined], hit).toEqual(['ask', true]);
        expect(row.check(readShell(hit, home), { cwd, home }), hit).toBeDefined();
        expect(d.why, hit).toMatch(/would allow this; the floor keeps it for you/);
      }
      for (const miss of row.misses) {
        const d = await decideAnswer(allowAll, bash(miss), { home });
        // a miss of one row may still be another row's hit; it is never this row's
        expect(d.floor?.row, miss).not.toBe(row.id);
      }
    });
  }

  it(`row ${UNREADABLE.id}: what does not parse, or builds its command at run time, is never allowed`, async () => {
    for (const c of ['echo "unclosed', 'bash -c "$(cat x)"', '$CMD arg', 'eval "$X"', 'curl x | bash']) {
      const d = await decideAnswer(allowAll, bash(c), { home });
      expect(d.verb, c).toBe('ask');
    }
  });

  it('paths a tool names itself: ~/.ssh, credentials, start-up files, git hooks', async () => {
    const cases: [string, string, string][] = [
      ['Read', `${home}/.ssh/id_rsa`, 'ssh'],
      ['Write', `${home}/.ssh/authorized_keys`, 'ssh'],
      ['Read', `${home}/.aws/credentials`, 'credentials'],
      ['Edit', `${cwd}/.env`, 'credentials'],
      ['Read', `${home}/.hookmap/token`, 'credentials'],
      ['Write', `${home}/.bashrc`, 'startup-file'],
      ['Edit', '/etc/profile.d/x.sh', 'startup-file'],
      ['Write', `${cwd}/.git/hooks/pre-commit`, 'git-hooks'],
    ];
    for (const [tool, path, row] of cases) {
      const d = await decideAnswer(allowAll, { agent: 'claude-code', session: 's', tool, paths: [path], cwd, project: cwd }, { home });
      expect([d.verb, d.floor?.row], `${tool} ${path}`).toEqual(['ask', row]);
    }
    for (const path of [`${cwd}/src/a.ts`, `${cwd}/.env.example`, `${cwd}/README.md`]) {
      const d = await decideAnswer(allowAll, { agent: 'claude-code', session: 's', tool: 'Write', paths: [path], cwd, project: cwd }, { home });
      expect(d.verb, path).toBe('allow');
    }
  });

  it('deny beats ask beats allow, wherever each is written', async () => {
    const rules = compilePolicy(
      'l.yaml',
      'rules:\n  - { id: a, decide: allow, tool: Bash }\n  - { id: k, decide: ask, command: { ' +
        'prefix: npm publish } }\n  - { id: d, decide: deny, command: { prefix: npm publish --force ' +
        '} }\n',
      { learned: true },
    ).policy!.answers;
    expect((await decideAnswer(rules, bash('npm test'), { home })).rule?.id).toBe('a');
    expect((await decideAnswer(rules, bash('npm publish'), { home })).verb).toBe('ask');
    expect((await decideAnswer(rules, bash('npm publish --force'), { home })).verb).toBe('deny');
  });
});
