// Issue 25: the Node shim (`--shim node`) is registered as the launcher in
// $HOOKMAP_HOME/bin/hookmap, which follows upgrades and moves. `hookmap
// doctor` is quiet about a registration setup writes today, warns about one
// an older setup wrote naming this Node and a checkout's (or package's)
// bin/hookmap.mjs, and calls one whose launcher is gone a problem.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runDoctor } from '../../../engine/tools/doctor/index.ts';
import { launcherArgv } from '../../../engine/runtime/setup/apply.ts';
import { BIN } from '../../runtime/shim/helpers.ts';
import { sandboxes, setup } from './helpers.ts';
import { resolveTarget } from '../../../engine/cli/config.ts';

const fresh = sandboxes('hookmap-doctor-launcher-');
const launcherFindings = async (env: NodeJS.ProcessEnv, dir: string) =>
  (await runDoctor({ target: resolveTarget(env), dir, url: 'http://127.0.0.1:9', agents: ['claude-code'] })).findings.filter((f) =>
    /the Node shim/.test(f.message),
  );

describe('hookmap doctor: what a Node shim registration runs', () => {
  it('a registration as setup writes it today (the launcher) says nothing more', async () => {
    const { env, dir } = fresh();
    setup('claude-code', env, { shim: 'node' });
    expect(await launcherFindings(env, dir)).toEqual([]);
  });

  it("an older setup's registration naming node + a checkout's bin/hookmap.mjs is a warning with the fix", async () => {
    const { env, dir } = fresh();
    const p = setup('claude-code', env, { shim: 'node' });
    const launcher = launcherArgv(resolveTarget(env))[0];
    writeFileSync(p.configPath, readFileSync(p.configPath, 'utf8').replaceAll(`${launcher} hook`, `${process.execPath} ${BIN} hook`));
    const f = await launcherFindings(env, dir);
    expect(f).toEqual([
      expect.objectContaining({
        status: 'warn',
        message: expect.stringMatching(
          /the Node shim runs .*bin\/hookmap\.mjs \(a path into a checkout or package, which an upgrade or a move breaks\); setup now writes the launcher .*\/bin\/hookmap$/,
        ),
        fix: 'hookmap setup claude-code --user --shim node',
      }),
    ]);
  });

  it('a launcher that is gone is a problem (every firing fails)', async () => {
    const { env, dir } = fresh();
    setup('claude-code', env, { shim: 'node' });
    rmSync(launcherArgv(resolveTarget(env))[0]);
    const f = await launcherFindings(env, dir);
    expect(f).toEqual([
      expect.objectContaining({
        status: 'problem',
        message: expect.stringMatching(/bin\/hookmap, which does not exist: the agent's hook fails on every firing/),
      }),
    ]);
  });
});
