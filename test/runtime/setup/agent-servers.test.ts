// `hookmap setup acp --wrap "<agent command>"`: Zed's settings.json (JSON
// with comments) gains an agent_servers entry running `hookmap tee acp --
// <command>`; only hookmap's entries are written: the user's own entries,
// comments and the rest keep their bytes; wrapping another command adds an entry, re-wrapping replaces
// it; uninstall restores the user's exact bytes (engine/runtime/setup/formats/agent-servers.ts).
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadVendor } from '../../../engine/core/descriptor/registry.ts';
import { commitSetup, planSetup, SetupError, type SetupOptions } from '../../../engine/runtime/setup/apply.ts';
import { agentServersFormat, parseJsonc } from '../../../engine/runtime/setup/formats/agent-servers.ts';
import { FormatError } from '../../../engine/runtime/setup/formats/types.ts';
import { splitCommand } from '../../../engine/runtime/setup/registrations.ts';
import { BIN } from '../shim/helpers.ts';
import { resolveTarget } from '../../../engine/cli/config.ts';

const root = mkdtempSync(join(tmpdir(), 'hookmap-zed-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;

function sandbox() {
  const dir = join(root, String(n++));
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: join(dir, 'home'), HOOKMAP_HOME: join(dir, 'hm') };
  mkdirSync(join(env.HOME!, '.config', 'zed'), { recursive: true });
  return { env, file: join(env.HOME!, '.config', 'zed', 'settings.json') };
}

const setup = (env: NodeJS.ProcessEnv, o: Partial<SetupOptions>) => {
  const d = loadVendor('acp');
  const plan = planSetup(d, { scope: 'user', dir: env.HOME!, uninstall: false, shim: 'sh', target: resolveTarget(env), ...o });
  commitSetup(d, plan, resolveTarget(env));
  return plan;
};

const ZED = `// Zed settings
//
// For information on how to configure Zed, see the Zed
// documentation: https://zed.dev/docs/configuring-zed
{
  "ui_font_size": 16, /* big */
  "agent_servers": {
    // the user's own
    "My Agent": { "type": "custom", "command": "my-agent", "args": ["--acp"] },
  },
  "theme": "One Dark",
}
`;

describe('setup acp: Zed agent_servers', () => {
  it("adds the wrapped agent beside the user's own, keeps every other byte, is idempotent, and uninstall restores the exact bytes", () => {
    const { env, file } = sandbox();
    writeFileSync(file, ZED);
    const p1 = setup(env, { wrap: ['gemini --acp'], name: 'Gemini CLI (hookmap)' });
    expect(p1.createsBackup).toBe(true);
    const text = readFileSync(file, 'utf8');
    expect(text.startsWith('// Zed settings\n//\n// For information')).toBe(true);
    expect(text).toContain('"ui_font_size": 16, /* big */');
    expect(text).toContain('"theme": "One Dark",\n}');
    const doc = parseJsonc(text) as any;
    expect(doc.agent_servers['My Agent']).toEqual({ type: 'custom', command: 'my-agent', args: ['--acp'] });
    expect(doc.agent_servers['Gemini CLI (hookmap)']).toEqual({
      type: 'custom',
      command: join(env.HOOKMAP_HOME!, 'bin', 'hookmap'),
      args: ['tee', 'acp', '--', 'gemini', '--acp'],
      env: {},
    });
    expect(setup(env, { wrap: ['gemini --acp'], name: 'Gemini CLI (hookmap)' }).changed).toBe(false);
    // a second agent is added; the user's env on ours survives a re-wrap
    setup(env, { wrap: ["npx -y '@zed-industries/claude-code-acp'"] });
    const withEnv = readFileSync(file, 'utf8').replace('"env": {}', '"env": { "GEMINI_API_KEY": "k" }');
    writeFileSync(file, withEnv);
    setup(env, { wrap: ['gemini --acp --debug'], name: 'Gemini CLI (hookmap)' });
    const doc2 = parseJsonc(readFileSync(file, 'utf8')) as any;
    expect(Object.keys(doc2.agent_servers)).toEqual(['My Agent', 'Gemini CLI (hookmap)', 'npx (hookmap)']);
    expect(doc2.agent_servers['npx (hookmap)'].args).toEqual(['tee', 'acp', '--', 'npx', '-y', '@zed-industries/claude-code-acp']);
    // the launcher the entries name is written, and runs this hookmap
    expect(readFileSync(join(env.HOOKMAP_HOME!, 'bin', 'hookmap'), 'utf8')).toContain(`bin='${BIN}'`);
    expect(doc2.agent_servers['Gemini CLI (hookmap)']).toMatchObject({
      args: ['tee', 'acp', '--', 'gemini', '--acp', '--debug'],
      env: { GEMINI_API_KEY: 'k' },
    });
    const un = setup(env, { uninstall: true });
    expect(un.restoresBackup).toBe(true);
    expect(readFileSync(file, 'utf8')).toBe(ZED);
  });

  it("the user's entries inside agent_servers keep their bytes and comments, whatever hookmap adds, replaces or removes", () => {
    const USER = `{
  "agent_servers": {
    // my goose, do not touch
    "Goose": { "command": "goose", "args": ["acp"] }, // trailing note
    /* and a block */ "Other": {"command":"other"}
  }
}
`;
    const reg = (hook: string, ...argv: string[]) => ({
      hook,
      kind: 'command' as const,
      target: argv.join(' '),
      argv: ['node', 'hookmap.mjs', 'tee', 'acp', '--', ...argv],
    });
    const opts = { agent: 'acp' } as any;
    const ours = () => true;
    const a = agentServersFormat.install(USER, [reg('G (hookmap)', 'gemini', '--acp')], ours, opts);
    expect(a).toContain(
      '    // my goose, do not touch\n    "Goose": { "command": "goose", "args": ["acp"] }, // ' +
        'trailing note\n    /* and a block */ "Other": {"command":"other"},\n    "G (hookmap)": {',
    );
    const b = agentServersFormat.install(a, [reg('C (hookmap)', 'claude-acp')], ours, opts);
    const c = agentServersFormat.install(b, [reg('G (hookmap)', 'gemini', '--acp', '--debug')], ours, opts);
    expect(Object.keys((parseJsonc(c) as any).agent_servers)).toEqual(['Goose', 'Other', 'G (hookmap)', 'C (hookmap)']);
    expect((parseJsonc(c) as any).agent_servers['G (hookmap)'].args.at(-1)).toBe('--debug');
    // removal, with no backup to fall back on: exactly the user's bytes again
    expect(agentServersFormat.remove(c, ours, opts)).toBe(USER);
    // one entry that is the last, without a trailing comma, and one that shares a line
    const oneLine = '{ "agent_servers": { "Goose": {"command":"goose"} } }';
    expect(agentServersFormat.remove(agentServersFormat.install(oneLine, [reg('G', 'gemini')], ours, opts), ours, opts)).toBe(oneLine);
    const empty = '{\n  "agent_servers": {}\n}\n';
    const e1 = agentServersFormat.install(empty, [reg('G', 'gemini')], ours, opts);
    expect((parseJsonc(e1) as any).agent_servers.G.command).toBe('node');
    expect(agentServersFormat.remove(e1, ours, opts)).toBe('{\n  "agent_servers": {\n  }\n}\n');
  });

  it('creates the file when Zed has none, and uninstall deletes it again', () => {
    const { env, file } = sandbox();
    setup(env, { wrap: ['gemini --acp'] });
    expect(parseJsonc(readFileSync(file, 'utf8'))).toEqual({
      agent_servers: {
        'gemini (hookmap)': { type: 'custom', command: join(env.HOOKMAP_HOME!, 'bin', 'hookmap'), args: ['tee', 'acp', '--', 'gemini', '--acp'], env: {} },
      },
    });
    setup(env, { uninstall: true });
    expect(existsSync(file)).toBe(false);
  });

  it('refuses what it must not touch, with the reason', () => {
    const { env, file } = sandbox();
    expect(() => setup(env, {})).toThrow(SetupError);
    expect(() => setup(env, {})).toThrow(/--wrap "<agent command>"/);
    writeFileSync(file, '{ "agent_servers": { "Gemini": { "command": "gemini" } } }');
    expect(() => setup(env, { wrap: ['gemini --acp'], name: 'Gemini' })).toThrow(/already has an entry named "Gemini" that is not hookmap's/);
    writeFileSync(file, '{ "agent_servers": [] }');
    expect(() => setup(env, { wrap: ['gemini --acp'] })).toThrow(FormatError);
    writeFileSync(file, '{ "a": 1 /* unterminated');
    expect(() => setup(env, { wrap: ['gemini --acp'] })).toThrow(/unterminated/);
    expect(() => setup(env, { wrap: ['gemini "--acp'] })).toThrow(/unbalanced/);
  });

  it('splits an agent command as a shell would', () => {
    expect(splitCommand(`npx -y "@scope/agent acp" --dir 'a b' c\\ d ""`)).toEqual(['npx', '-y', '@scope/agent acp', '--dir', 'a b', 'c d', '']);
  });
});
