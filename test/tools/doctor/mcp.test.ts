// `hookmap doctor` and the MCP server registration (`hookmap setup <agent>
// --mcp`): registered as setup writes it today, not registered while the hooks
// are, registered with another URL, a launcher that vanished, a server of
// hookmap's name that is someone else's. Codex (TOML) and Claude Code (JSON).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runDoctor } from '../../../engine/tools/doctor/index.ts';
import { sandboxes, setup } from './helpers.ts';
import { launcherArgv } from '../../../engine/runtime/setup/apply.ts';
import { BIN } from '../../runtime/shim/helpers.ts';
import { resolveTarget } from '../../../engine/cli/config.ts';

const fresh = sandboxes('hookmap-doctor-mcp-');

/** A sandbox whose Codex runs hooks (the feature flag set), so only MCP findings differ between cases. */
function sandbox() {
  const s = fresh();
  mkdirSync(s.env.CODEX_HOME!, { recursive: true });
  writeFileSync(join(s.env.CODEX_HOME!, 'config.toml'), '[features]\nhooks = true\n');
  return s;
}

async function doctor(agent: string, env: NodeJS.ProcessEnv, dir: string) {
  const r = await runDoctor({ target: resolveTarget(env), dir, url: 'http://127.0.0.1:9', agents: [agent] });
  return { r, mcp: r.findings.filter((f) => /MCP server|mcpServers|hookmap mcp/.test(f.message)) };
}

describe('hookmap doctor: the MCP server registration', () => {
  for (const [agent, file] of [
    ['codex', 'codex/config.toml'],
    ['claude-code', 'home/.claude.json'],
  ] as const) {
    it(`${agent}: hooks wired without --mcp say ask_human is not registered (info), with the command that registers it`, async () => {
      const { env, dir } = sandbox();
      setup(agent, env);
      const { mcp } = await doctor(agent, env, dir);
      expect(mcp).toEqual([
        expect.objectContaining({
          status: 'info',
          message: expect.stringMatching(/MCP server not registered.*ask_human/),
          fix: `hookmap setup ${agent} --user --mcp`,
        }),
      ]); // the scope its hooks were found in
    });

    it(`${agent}: registered by setup --mcp is ok; after --uninstall --mcp it is reported missing again`, async () => {
      const { env, dir } = sandbox();
      setup(agent, env, { mcp: true });
      const { mcp } = await doctor(agent, env, dir);
      expect(mcp).toEqual([
        expect.objectContaining({
          status: 'ok',
          message: expect.stringMatching(new RegExp(`${file.split('/').at(-1)!.replace('.', '\\.')}: MCP server "hookmap" registered`)),
        }),
      ]);
      setup(agent, env, { mcp: true, uninstall: true });
      setup(agent, env);
      expect((await doctor(agent, env, dir)).mcp.map((f) => f.status)).toEqual(['info']);
    });

    it(`${agent}: a registration whose launcher vanished is a problem (the agent cannot start the server)`, async () => {
      const { env, dir } = sandbox();
      setup(agent, env, { mcp: true });
      const path = join(dir, file);
      const launcher = launcherArgv(resolveTarget(env))[0];
      writeFileSync(path, readFileSync(path, 'utf8').replaceAll(launcher, launcher.replace('/bin/hookmap', '/moved-away/hookmap')));
      const { r, mcp } = await doctor(agent, env, dir);
      expect(mcp).toEqual([
        expect.objectContaining({
          status: 'problem',
          message: expect.stringMatching(/moved-away\/hookmap, which does not exist: the agent cannot start it/),
          fix: `hookmap setup ${agent} --mcp --user`,
        }),
      ]);
      expect(r.healthy).toBe(false);
    });

    it(`${agent}: registered by an older setup as node + a checkout's bin/hookmap.mjs is a warning naming the launcher setup writes now`, async () => {
      const { env, dir } = sandbox();
      setup(agent, env, { mcp: true });
      const path = join(dir, file);
      // what setup wrote before issue 25: this Node and this checkout's script (both still there)
      const launcher = launcherArgv(resolveTarget(env))[0];
      const old = readFileSync(path, 'utf8').replace(
        agent === 'codex' ? `command = "${launcher}"\nargs = [` : `"command": "${launcher}",\n      "args": [`,
        agent === 'codex' ? `command = "${process.execPath}"\nargs = ["${BIN}", ` : `"command": "${process.execPath}",\n      "args": [\n        "${BIN}",`,
      );
      expect(old).toContain(BIN);
      writeFileSync(path, old);
      const { mcp } = await doctor(agent, env, dir);
      expect(mcp).toEqual([
        expect.objectContaining({
          status: 'warn',
          message: expect.stringMatching(
            /runs .*hookmap\.mjs directly \(a path into a checkout or package, which an upgrade or a move breaks\); setup now registers the launcher .*bin\/hookmap/,
          ),
          fix: `hookmap setup ${agent} --mcp --user`,
        }),
      ]);
    });

    it(`${agent}: registered for another daemon URL than this environment's is a warning naming what it runs`, async () => {
      const { env, dir } = sandbox();
      setup(agent, { ...env, HOOKMAP_URL: 'http://127.0.0.1:7777' }, { mcp: true });
      const { mcp } = await doctor(agent, env, dir);
      expect(mcp).toEqual([
        expect.objectContaining({
          status: 'warn',
          message: expect.stringMatching(/registered, but not as setup writes it today.*--url http:\/\/127\.0\.0\.1:7777/),
        }),
      ]);
    });
  }

  it("a server of hookmap's name that is not hookmap's is a warning (setup --mcp would refuse to overwrite it)", async () => {
    const { env, dir } = sandbox();
    setup('claude-code', env);
    const path = join(env.HOME!, '.claude.json');
    writeFileSync(path, JSON.stringify({ mcpServers: { hookmap: { command: 'some-other-tool', args: ['serve'] } } }));
    const { mcp } = await doctor('claude-code', env, dir);
    expect(mcp.map((f) => [f.status, f.message])).toEqual([
      [
        'warn',
        expect.stringMatching(/already has a server named "hookmap" that is not hookmap's MCP server for claude-code \(it runs: some-other-tool serve\)/),
      ],
      ['info', expect.stringMatching(/MCP server not registered/)],
    ]);
  });

  it('an agent without setup.mcp gets no MCP finding', async () => {
    const { env, dir } = sandbox();
    setup('kimi-code', env);
    expect((await doctor('kimi-code', env, dir)).mcp).toEqual([]);
  });
});
