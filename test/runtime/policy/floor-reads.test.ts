// Issue 40 through the rules as `hookmap up` decides them (RuleBook.decide,
// real files): under ordinary prefix rules, options that write a start-up
// file or run a program are kept for a person; hookmap's own files are kept
// by where they are (a home that is not ~/.hookmap, the token file the
// environment names, a link in the repository leading there); a link that
// leads out of the project is read where it leads.
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RuleBook } from '../../../engine/runtime/policy/rulebook.ts';
import { runCli } from '../../helpers/cli.ts';
import { subjectOf } from '../../../engine/runtime/policy/subject.ts';

const PREFIXES = ['git log', 'git grep', 'curl', 'sort', 'find', 'cat', 'echo', 'wc'];

function world() {
  const root = mkdtempSync(join(tmpdir(), 'hookmap-floor-reads-'));
  const userHome = join(root, 'home');
  const hmHome = join(root, 'elsewhere', 'hm');
  const project = join(root, 'home', 'project');
  const outside = join(root, 'outside');
  for (const d of [userHome, hmHome, project, outside, join(userHome, '.ssh')]) mkdirSync(d, { recursive: true });
  writeFileSync(join(hmHome, 'token'), 'owner-token\n', { mode: 0o600 });
  writeFileSync(join(userHome, '.ssh', 'id_rsa'), 'key\n');
  writeFileSync(join(project, 'README.md'), 'hi\n');
  const rules = PREFIXES.map((p, i) => `  - { id: p${i}, decide: allow, tool: Bash, command: { prefix: "${p}" } }`);
  rules.push('  - { id: reads, decide: allow, tool: Read }');
  writeFileSync(join(hmHome, 'rules.yaml'), `rules:\n${rules.join('\n')}\n`, { mode: 0o600 });
  const book = new RuleBook({ home: hmHome, userHome });
  const bash = (command: string) => book.decide(subjectOf({ agent: 'a', session: 's' }, { tool: 'Bash', command, cwd: project }));
  const read = (path: string) => book.decide(subjectOf({ agent: 'a', session: 's' }, { tool: 'Read', paths: [path], cwd: project }));
  return { root, userHome, hmHome, project, outside, book, bash, read };
}

describe('options under ordinary prefix rules', () => {
  // $HOME and ~ are expansions no rule matches (a card either way): the home is spelled out, as a rule would match it
  it.each([
    ["git log -1 --format='%H' --output=HOME/.bashrc", 'startup-file'],
    ['curl -o HOME/.bashrc https://example.com/x', 'startup-file'],
    ['sort -o HOME/.bashrc f', 'startup-file'],
    ['find . -fprint HOME/.bashrc', 'startup-file'],
    ['find . -exec rm -rf {} +', 'recursive-delete'],
    [`git grep --open-files-in-pager='sh -c "id > /tmp/pwned"' TODO`, 'option-runs'],
  ])('%s gets a card (%s)', async (command, row) => {
    const w = world();
    const d = await w.bash(command.replace('HOME/', `${w.userHome}/`));
    expect([d.verb, d.floor?.row], d.why).toEqual(['ask', row]);
  });

  it('a NAME=value prefix whose value a program runs gets a card under an allow_env rule', async () => {
    const w = world();
    const book = new RuleBook({ home: w.hmHome, userHome: w.userHome, policy: undefined });
    w.book.addRule({ id: 'log-env', decide: 'allow', tool: 'Bash', command: { prefix: 'git log', allow_env: true } }, { by: 't', via: 'test' });
    const decide = (command: string) => book.decide(subjectOf({ agent: 'a', session: 's' }, { tool: 'Bash', command, cwd: w.project }));
    const d = await decide(`GIT_PAGER='sh -c id' git log`);
    expect([d.verb, d.floor?.row], d.why).toEqual(['ask', 'option-runs']);
    expect((await decide('GIT_PAGER=cat git log')).verb).toBe('allow');
  });

  it('find -exec CMD: CMD is a command of its own, allowed only where a rule allows it too', async () => {
    const w = world();
    const python = await w.bash(`find . -exec python3 -c 'import os; os.system("id")' \\;`);
    expect([python.verb, python.floor], python.why).toEqual(['ask', undefined]);
    expect(python.why).toContain('find -exec runs `python3 -c');
    expect(python.why).toContain('which no rule allows');
    expect((await w.bash('find . -name "*.md" -exec wc -l {} +')).verb).toBe('allow');
    expect((await w.bash('find . -ok cat {} \\;')).verb).toBe('allow');
    // a rule that denies the inner command denies the whole request
    w.book.addRule({ id: 'no-wc', decide: 'deny', tool: 'Bash', command: { prefix: 'wc' }, reason: 'no counting' }, { by: 't', via: 'test' });
    const denied = await w.bash('find . -exec wc -l {} +');
    expect([denied.verb, denied.rule?.id], denied.why).toEqual(['deny', 'no-wc']);
    expect(denied.why).toContain('find -exec runs `wc -l');
  });

  it('the same commands written inside the project are allowed by their rule', async () => {
    const w = world();
    for (const c of [
      "git log -1 --format='%H' --output=log.txt",
      'curl -o data.json https://example.com/x',
      'sort -o sorted.txt f',
      'find . -fprint list.txt',
      'git grep TODO',
    ])
      expect((await w.bash(c)).verb, c).toBe('allow');
  });
});

describe("hookmap's own files, by where they are", () => {
  it('a home that is not ~/.hookmap: reading its token is kept for a person, through the shell or a read tool', async () => {
    const w = world();
    expect((await w.read(join(w.hmHome, 'token'))).floor?.row).toBe('credentials');
    expect((await w.read(join(w.hmHome, 'rules.yaml'))).floor?.row).toBe('credentials');
    const d = await w.bash(`cat ${join(w.hmHome, 'token')}`);
    expect([d.verb, d.floor?.row]).toEqual(['ask', 'credentials']);
    expect(d.floor?.why).toContain('hookmap');
    expect((await w.read(join(w.project, 'README.md'))).verb).toBe('allow');
  });

  it('a repository that ships notes.txt as a link to the token: cat notes.txt gets a card', async () => {
    const w = world();
    symlinkSync(join(w.hmHome, 'token'), join(w.project, 'notes.txt'));
    symlinkSync(w.hmHome, join(w.project, 'docs'));
    for (const c of ['cat notes.txt', 'cat ./notes.txt', 'wc -l docs/token', 'cat docs/../README.md docs/token']) {
      const d = await w.bash(c);
      expect([d.verb, d.floor?.row], c).toEqual(['ask', 'credentials']);
    }
    expect((await w.read(join(w.project, 'notes.txt'))).floor?.row).toBe('credentials');
    expect((await w.bash('cat README.md')).verb).toBe('allow');
  });

  it('the token file HOOKMAP_TOKEN_FILE names, wherever it is (read at the CLI edge: `hookmap rules test`)', async () => {
    const w = world();
    const token = join(w.outside, 'ci-token');
    writeFileSync(token, 't\n', { mode: 0o600 });
    const env = { ...process.env, HOME: w.userHome, HOOKMAP_HOME: w.hmHome, HOOKMAP_TOKEN_FILE: token };
    const r = await runCli(['rules', 'test', '--agent', 'claude-code', '--tool', 'Bash', '--command', `cat ${token}`, '--cwd', w.project], env);
    expect(r.stdout).toMatch(/^ask {2}floor credentials/);
    const other = await runCli(['rules', 'test', '--agent', 'claude-code', '--tool', 'Bash', '--command', 'cat README.md', '--cwd', w.project], env);
    expect(other.stdout.split(/\s/)[0]).toBe('allow');
  });

  it('files the embedding names (channel secrets) count too', async () => {
    const w = world();
    const secret = join(w.outside, 'bot-token');
    writeFileSync(secret, 'x\n');
    const book = new RuleBook({ home: w.hmHome, userHome: w.userHome, own: () => [secret, undefined] });
    const d = await book.decide(subjectOf({ agent: 'a', session: 's' }, { tool: 'Bash', command: `cat ${secret}`, cwd: w.project }));
    expect(d.floor?.row).toBe('credentials');
  });
});

describe('links read where they lead', () => {
  it('a link to ~/.ssh in the project is the ssh row', async () => {
    const w = world();
    symlinkSync(join(w.userHome, '.ssh', 'id_rsa'), join(w.project, 'key.txt'));
    expect((await w.bash('cat key.txt')).floor?.row).toBe('ssh');
  });

  it('a write through a link that leaves the project is write-outside; a read through it is not', async () => {
    const w = world();
    symlinkSync(w.outside, join(w.project, 'out'));
    expect((await w.bash('sort -o out/x f')).floor?.row).toBe('write-outside');
    expect((await w.bash('cat out/x')).verb).toBe('allow');
  });

  it('a link to a start-up file is held when written, not when read', async () => {
    const w = world();
    writeFileSync(join(w.userHome, '.bashrc'), '# rc\n');
    symlinkSync(join(w.userHome, '.bashrc'), join(w.project, 'rc'));
    expect((await w.bash('sort -o rc f')).floor?.row).toBe('startup-file');
    expect((await w.bash('cat rc')).verb).toBe('allow');
  });

  it('hostile words: huge, NUL-free control text, globs and expansions are not resolved and do not throw', async () => {
    const w = world();
    expect((await w.bash(`cat ${'a/'.repeat(3000)}x`)).verb).toBe('allow');
    expect((await w.bash('cat *.md')).verb).toBe('none');
    expect((await w.bash('cat "$X"')).verb).toBe('none');
  });
});
