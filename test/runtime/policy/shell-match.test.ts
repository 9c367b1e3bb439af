// The command matcher's two-step API (engine/runtime/policy/shell/match.ts): a rule
// compiled once, a command read once, then compared; the reasons a refusal
// gives. The corpus (shell-corpus.test.ts) holds the outcomes case by case.
import { describe, expect, it } from 'vitest';
import { compileCommandRule, matchCommand, matchPlainCommand, readPlainCommand } from '../../../engine/runtime/policy/shell/match.ts';

describe('command matcher', () => {
  it('reads a command once and compares it with many compiled rules', () => {
    const read = readPlainCommand("npm 'test' -- --watch");
    expect(read).toEqual({ text: "npm 'test' -- --watch", words: ['npm', 'test', '--', '--watch'], env: [], envRefused: undefined });
    const rules = [{ prefix: 'npm test' }, { exact: 'npm test' }, { prefix: 'npm run' }, { exact: 'npm test -- --watch' }].map(compileCommandRule);
    expect(rules.map((r) => matchPlainCommand(r, read).match)).toEqual([true, false, false, true]);
  });

  it('refuses to compile a rule that could not be one plain command, and says why', () => {
    expect(compileCommandRule({ prefix: 'npm test && x' })).toEqual({
      error: 'the rule cannot be read as one plain command: it is not a plain command (a && or || list)',
    });
    expect(compileCommandRule({ prefix: 'FOO=1 npm test' })).toEqual({
      error: 'the rule cannot be read as one plain command: it sets the environment (say allowEnv instead)',
    });
    expect(compileCommandRule({ exact: 'xargs rm' })).toMatchObject({ error: expect.stringContaining('runs another command through xargs') });
    expect(compileCommandRule({})).toEqual({ error: 'the rule needs exactly one of exact or prefix' });
  });

  it('names what it refuses in a command', () => {
    const why = (command: string, allowEnv = false) => matchCommand({ prefix: 'npm test', allowEnv }, command).why;
    expect(why('npm test; rm -rf ~')).toBe('the command is more than one command (a ; separator)');
    expect(why('npm test | tee f')).toBe('the command is not a plain command (a pipeline)');
    expect(why('npm test > f')).toBe('the command is not a plain command (a redirection)');
    expect(why('npm test $(id)')).toBe('the command has a word the shell would expand ($(id))');
    expect(why('FOO=1 npm test')).toBe('the command sets the environment (FOO=1) and the rule does not allow that');
    expect(why('FOO=$(id) npm test', true)).toBe('the command sets the environment from an expansion (FOO=$(id))');
    expect(why('npm t\u0435st')).toBe('the command has a non-ASCII character (U+0435) the rule does not');
    expect(why('npm test\nx')).toBe('the command has a line break (a second command)');
    expect(why('npm test &&')).toBe('the command cannot be parsed');
    expect(why('npm test -- -w')).toBe('prefix match on "npm test"');
  });
});
