// The CLI edge as a shell user meets it: a reader that stops early
// (`hookmap capabilities --json | head -c 10`) ends hookmap quietly, exit 0,
// no stack trace; argv parsed by node:util.parseArgs with one-line errors.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ArgError, parseArgs } from '../../engine/cli/args.ts';
import { ROOT } from '../../engine/core/descriptor/registry.ts';

describe('a closed stdout (EPIPE)', () => {
  it('ends hookmap quietly, exit 0', async () => {
    const p = spawn(process.execPath, [join(ROOT, 'bin/hookmap.mjs'), 'capabilities', '--json'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    p.stderr.on('data', (c) => (err += c));
    // read the first chunk, then close the pipe as `head` does (the output is far bigger than a pipe buffer)
    await new Promise<void>((resolve) => p.stdout.once('data', () => resolve()));
    p.stdout.destroy();
    const code = await new Promise<number | null>((resolve) => p.on('close', resolve));
    expect(err).toBe('');
    expect(code).toBe(0);
  }, 60_000);
});

describe('argv', () => {
  const spec = { port: { type: 'string' }, bridge: { type: 'string', multiple: true }, 'dry-run': { type: 'boolean', short: 'n' } } as const;
  it('parses values, repeats, shorts, and keeps what follows -- as positionals', () => {
    expect(parseArgs(['a', '--port=1', '-n', '--bridge', 'x', '--bridge', 'y', '--', '--port', 'z'], spec)).toEqual({
      flags: { port: '1', 'dry-run': true, bridge: ['x', 'y'] },
      positionals: ['a', '--port', 'z'],
    });
  });
  it.each([
    [['--prot', '1'], "unknown option '--prot'"],
    [['-z'], "unknown option '-z'"],
    [['--port'], "option '--port' needs a value"],
    [['--dry-run=yes'], "option '--dry-run' takes no value"],
    [['--port', '-1'], "option '--port' needs a value (a value starting with '-' is written --port=-value)"],
  ])('%j: %s', (argv, message) => {
    expect(() => parseArgs(argv, spec)).toThrow(new ArgError(message));
  });
});
