// Exact means exact (issue 40): an "Allow always" of this exact command keeps
// the parsed words, quoting and all, and matches word for word. Approving
// `kubectl "delete ns prod"` (two words) must never allow `kubectl delete ns
// prod` (four), which no card showed; rules files written before keep loading.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { quoteArgv, RuleBook } from '../../../engine/runtime/policy/rulebook.ts';
import { compileCommandRule } from '../../../engine/runtime/policy/shell/match.ts';
import { subjectOf } from '../../../engine/runtime/policy/subject.ts';
import { alwaysShown } from '../../../engine/person/push/payload.ts';

const who = { by: 'alex', via: 'test' };
const fresh = () => {
  const home = mkdtempSync(join(tmpdir(), 'hookmap-exact-'));
  const project = mkdtempSync(join(tmpdir(), 'hookmap-exact-project-'));
  return { home, project, book: new RuleBook({ home, userHome: '/home/nobody' }) };
};
const subject = (command: string, cwd: string) => subjectOf({ agent: 'claude-code', session: 's1' }, { tool: 'Bash', command, cwd });

describe('an exact rule', () => {
  it('made from kubectl "delete ns prod" allows that argv and not kubectl delete ns prod', async () => {
    const { home, project, book } = fresh();
    const made = book.learn(subject('kubectl "delete ns prod"', project), { match: 'exact', scope: 'user' }, who);
    expect(made.rule.command).toMatchObject({ kind: 'exact', words: ['kubectl', 'delete ns prod'] });
    expect(readFileSync(join(home, 'rules.yaml'), 'utf8')).toContain(`exact: kubectl 'delete ns prod'`);
    expect((await book.decide(subject('kubectl delete ns prod', project))).verb).toBe('none');
    expect((await book.decide(subject('kubectl delete "ns prod"', project))).verb).toBe('none');
    expect((await book.decide(subject(`kubectl 'delete ns prod'`, project))).verb).toBe('allow');
    expect((await book.decide(subject('kubectl "delete ns prod"', project))).verb).toBe('allow');
  });

  it('keeps quotes, backslashes, tildes and dollars in a word as that word', async () => {
    const { project, book } = fresh();
    const command = `printf '%s\\n' "it's" '~/x' '$HOME' "a'b\\"c"`;
    const made = book.learn(subject(command, project), { match: 'exact', scope: 'user' }, who);
    expect(made.rule.command?.words).toEqual(['printf', '%s\\n', "it's", '~/x', '$HOME', `a'b"c`]);
    expect((await book.decide(subject(command, project))).verb).toBe('allow');
    expect((await book.decide(subject(`printf '%s\\n' its '~/x' '$HOME' "a'b\\"c"`, project))).verb).toBe('none');
  });

  it('learning the same argv again adds nothing; an old rule with the words joined is another rule', async () => {
    const { home, project } = fresh();
    writeFileSync(
      join(home, 'rules.yaml'),
      'rules:\n  - { id: old-kubectl, decide: allow, command: { exact: "kubectl delete ns prod" }, added: { by: alex, via: inbox, at: "2026-01-01T00:00:00Z" } }\n',
      { mode: 0o600 },
    );
    const book = new RuleBook({ home, userHome: '/home/nobody' });
    // the rules file written before still loads, and still means what it says
    expect(book.list().map((r) => r.id)).toEqual(['old-kubectl']);
    expect((await book.decide(subject('kubectl delete ns prod', project))).verb).toBe('allow');
    expect((await book.decide(subject('kubectl "delete ns prod"', project))).verb).toBe('none');
    const a = book.learn(subject('kubectl "delete ns prod"', project), { match: 'exact', scope: 'user' }, who);
    expect(a.existed).toBe(false);
    const b = book.learn(subject(`kubectl 'delete ns prod'`, project), { match: 'exact', scope: 'user' }, who);
    expect([b.existed, b.rule.id]).toEqual([true, a.rule.id]);
  });

  it('quoteArgv writes words that read back as the same words', () => {
    const argvs = [
      ['git', 'status'],
      ['a b', 'c'],
      ["it's", '"q"', '\\', '~', '#x', '!', '*', '$(id)', '', 'é'],
    ];
    for (const argv of argvs) {
      const c = compileCommandRule({ exact: quoteArgv(argv) });
      expect('error' in c ? c.error : c.words, quoteArgv(argv)).toEqual(argv);
    }
  });
});

describe('where "Allow always" can save a rule (alwaysShown)', () => {
  const same = (t: string) => t;
  it('only a surface that shows the whole command, as it is', () => {
    expect(alwaysShown({ text: 'kubectl "delete ns prod"', paths: 0 }, 'metadata', same)).toBe(false);
    expect(alwaysShown({ text: 'kubectl "delete ns prod"', paths: 0 }, 'redacted', same)).toBe(true);
    expect(alwaysShown({ text: 'kubectl "delete ns prod"', paths: 0 }, 'full', same)).toBe(true);
    // redacted on the way: the card shows something else than the rule would allow
    expect(alwaysShown({ text: 'curl -H "token: sk-1"', paths: 0 }, 'redacted', (t) => t.replace('sk-1', '[REDACTED]'))).toBe(false);
    // cut, or its spacing changed on the card
    expect(alwaysShown({ text: `echo ${'x'.repeat(500)}`, paths: 0 }, 'full', same)).toBe(false);
    expect(alwaysShown({ text: 'echo  "a"', paths: 0 }, 'full', same)).toBe(false);
    // paths are never on a card; a tool-only rule is (the tool is in the title)
    expect(alwaysShown({ paths: 1 }, 'full', same)).toBe(false);
    expect(alwaysShown({ paths: 0 }, 'metadata', same)).toBe(true);
  });
});
