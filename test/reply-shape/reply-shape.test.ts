// Reply shapes as data (issue 41): a held decision's exit code and stream, a
// hook's own fail-open reply, each honored by the sh and Node shims against a
// daemon up, down, hung and erroring; `hookmap check` proves them from the
// descriptor alone; a daemon that answers a junk exit code or stream is a
// broken daemon (the hook's fail-open reply, never its bytes); a hook with no
// shape of its own still fails open with its neutral bytes and exit 0.
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkAgent } from '../../engine/tools/check/check-agent.ts';
import { shapeCases } from '../../engine/tools/check/shape-cases.ts';
import { checkTarget } from '../../engine/tools/check/targets.ts';
import { loadDescriptorFile } from '../../engine/core/descriptor/compile.ts';
import { formatError } from '../../engine/core/descriptor/errors.ts';
import { ShimRun, type ShimCase } from '../../engine/tools/cases/run-shim.ts';
import { renderShShim } from '../../engine/runtime/shim/sh.ts';
import { planFor } from '../../engine/runtime/shim/generate.ts';
import { DEFAULT_URL, failOpenFor } from '../../engine/runtime/shim/plan.mjs';

const PATH = join(import.meta.dirname, 'exit-code-agent.yaml');
const d = loadDescriptorFile(PATH).descriptor!;
const env = { path: process.env.PATH };
const run = new ShimRun(d, env);
afterAll(() => run.close());

const perm = '{"event":"PermissionRequest","working_directory":"/w","tool_name":"Bash"}';

describe('reply shapes', () => {
  it('compile: the hook shape, its fail-open reply and each decision shape', () => {
    const h = d.hooks.get('PermissionRequest')!;
    expect(h.shape).toEqual({ exit: 1 });
    expect(h.failOpen).toEqual({ exit: 1 });
    expect(Object.fromEntries(h.holds[0].shapes!)).toEqual({
      allow: { exit: 0 },
      deny: { exit: 2, stream: 'stderr' },
      text: { exit: 2, stream: 'stderr' },
      timeout: { exit: 1 },
    });
    expect(d.hooks.get('SessionStart')!.shape).toBeUndefined();
  });

  it('the plan carries the fail-open exit code; the sh shim exits with it', () => {
    const plan = planFor(d, { home: '/nowhere', url: DEFAULT_URL });
    expect(failOpenFor(plan, 'PermissionRequest')).toEqual({ bytes: '', exit: 1, stream: 'stdout' });
    expect(failOpenFor(plan, 'SessionStart')).toEqual({ bytes: '', exit: 0, stream: 'stdout' });
    const bytes = "hookmap: not answering (it's 100% $HOME `x`)\n";
    expect(failOpenFor(plan, 'UserPromptSubmit')).toEqual({ bytes, exit: 1, stream: 'stderr' });
    expect(renderShShim(plan)).toContain(`'UserPromptSubmit') printf '%s' 'hookmap: not answering (it'\\''s 100% $HOME \`x\`)\n' >&2; exit 1 ;;`);
    expect(renderShShim(plan)).toContain(`'PermissionRequest') printf '%s' ''; exit 1 ;;`);
  });

  it('hookmap check proves every shape and fail-open path through both shims (up, down, hung, error)', async () => {
    const report = await checkAgent(checkTarget(PATH), { shims: env });
    expect(report.errors.map(formatError)).toEqual([]);
    const derived = report.cases.filter((c) => c.name.startsWith('reply shape, '));
    // 2 shims x PermissionRequest (neutral, allow, deny, text, timed out + down, hung, error), UserPromptSubmit (neutral, block + 3)
    expect(derived).toHaveLength(16 + 10);
    expect(derived.every((c) => c.passed)).toBe(true);
    for (const mood of ['up', 'down', 'hung', 'error'])
      for (const shim of ['sh', 'node'])
        expect(
          derived.some((c) => c.name.includes(`${shim} shim, daemon ${mood}`)),
          `${shim} ${mood}`,
        ).toBe(true);
  }, 60_000);

  it('a derived case with a wrong expectation fails (the cases are real)', async () => {
    const c = shapeCases(d, d.hooks.get('PermissionRequest')!).find((x) => x.name.includes('sh shim, daemon up, decision deny'))!;
    expect(c).toMatchObject({ reply: { exit: 2, stream: 'stderr' }, stdout: '', exit: 2 });
    const out = await run.run({ ...c, stderr: 'WRONG' } as ShimCase);
    expect(out.failures.join('\n')).toMatch(/stderr .*expected "WRONG"/);
  });

  // a daemon whose reply shape is junk is a broken daemon: the hook's fail-open reply (exit 1 here), never its bytes
  const junk: [string, Record<string, unknown>][] = [
    ['exit code out of range', { body: 'ALLOWED', exit: 256 }],
    ['exit code not a number', { body: 'ALLOWED', exit: '0 x' }],
    ['stream neither stdout nor stderr', { body: 'ALLOWED', exit: 0, stream: 'stdin' }],
    ['stream with a second word', { body: 'ALLOWED', exit: 0, stream: 'stderr x' }],
  ];
  for (const shim of ['sh', 'node'] as const) {
    for (const [what, reply] of junk) {
      it(`${shim} shim: ${what} -> the hook's fail-open reply`, async () => {
        const c: ShimCase = { name: what, shim, hook: 'PermissionRequest', stdin: perm, daemon: 'up', reply, stdout: '', stderr: '', exit: 1 };
        expect((await run.run(c)).failures).toEqual([]);
      });
    }
    it(`${shim} shim: stdout named explicitly is stdout`, async () => {
      const c: ShimCase = {
        name: 'stdout',
        shim,
        hook: 'PermissionRequest',
        stdin: perm,
        daemon: 'up',
        reply: { body: 'x\n', exit: 0, stream: 'stdout' },
        stdout: 'x\n',
        stderr: '',
        exit: 0,
      };
      expect((await run.run(c)).failures).toEqual([]);
    });
    for (const daemon of ['down', 'hung', 'error'] as const) {
      it(`${shim} shim: a hook with no fail-open of its own, daemon ${daemon} -> neutral bytes, exit 0 (as before)`, async () => {
        const c: ShimCase = { name: daemon, shim, hook: 'SessionStart', stdin: '{"event":"SessionStart"}', daemon, stdout: '', stderr: '', exit: 0 };
        expect((await run.run(c)).failures).toEqual([]);
      });
    }
  }
});
