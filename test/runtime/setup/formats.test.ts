// `hookmap setup` for every config format, table-driven: an existing config
// with the user's own entries -> the merge keeps them; a second run changes
// nothing; --uninstall gives back exactly what was there; --dry-run writes
// nothing. Temp HOME / HOOKMAP_HOME / XDG / agent homes only.
import { readHookKey } from '../../../engine/runtime/auth/hook-key.mjs';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadVendor } from '../../../engine/core/descriptor/registry.ts';
import { commitSetup, planSetup, type SetupOptions } from '../../../engine/runtime/setup/apply.ts';
import { FormatError } from '../../../engine/runtime/setup/formats/types.ts';
import type { Scope } from '../../../engine/runtime/setup/spec.ts';
import { BIN, runProcess } from '../shim/helpers.ts';
import { resolveTarget } from '../../../engine/cli/config.ts';

const root = mkdtempSync(join(tmpdir(), 'hookmap-formats-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;

interface Box {
  dir: string;
  proj: string;
  env: NodeJS.ProcessEnv;
}

function sandbox(): Box {
  const dir = join(root, String(n++));
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: join(dir, 'home'),
    HOOKMAP_HOME: join(dir, 'hm'),
    KIMI_CODE_HOME: join(dir, 'kimi'),
    HERMES_HOME: join(dir, 'hermes'),
    HOOKMAP_URL: 'http://127.0.0.1:8787',
  };
  mkdirSync(env.HOME!, { recursive: true });
  const proj = join(dir, 'proj');
  mkdirSync(proj, { recursive: true });
  return { dir, proj, env };
}

function setup(agent: string, box: Box, o: Partial<SetupOptions> = {}) {
  const d = loadVendor(agent);
  const plan = planSetup(d, { scope: 'user', dir: box.proj, uninstall: false, shim: 'sh', target: resolveTarget(box.env), ...o });
  commitSetup(d, plan, resolveTarget(box.env));
  return plan;
}

/** Every file under the user's and the project's trees (not hookmap's own shims), path -> bytes. */
function snapshot(box: Box): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (p: string) => {
    if (!existsSync(p)) return;
    for (const e of readdirSync(p)) {
      const q = join(p, e);
      if (statSync(q).isDirectory()) walk(q);
      else out[relative(box.dir, q)] = readFileSync(q, 'utf8');
    }
  };
  for (const top of ['home', 'proj', 'kimi', 'hermes']) walk(join(box.dir, top));
  return out;
}

const put = (p: string, text: string) => {
  mkdirSync(dirname(p), { recursive: true });
  writeFileSync(p, text);
};

interface Case {
  agent: string;
  format: string;
  scope: Scope;
  /** The user's existing config: path (from the sandbox) and bytes. */
  seed: (b: Box) => [string, string][];
  /** After install: the user's entries are still there, ours were added. */
  merged: (b: Box) => void;
}

const read = (p: string) => readFileSync(p, 'utf8');
const shim = (b: Box, agent: string) => join(b.env.HOOKMAP_HOME!, 'shims', `${agent}.sh`);

const CASES: Case[] = [
  {
    agent: 'vscode',
    format: 'hook-lists',
    scope: 'project',
    seed: (b) => [
      [
        join(b.proj, '.github/hooks/hookmap.json'),
        '{\n\t"hooks": {\n\t\t"PreToolUse": [\n\t\t\t{ "type": "command", "command": "lint-guard", "timeout": 5 }\n\t\t]\n\t}\n}\n',
      ],
    ],
    merged: (b) => {
      const doc = JSON.parse(read(join(b.proj, '.github/hooks/hookmap.json')));
      expect(doc.hooks.PreToolUse[0]).toEqual({ type: 'command', command: 'lint-guard', timeout: 5 });
      expect(doc.hooks.PreToolUse[1]).toEqual({ type: 'command', command: `${shim(b, 'vscode')} PreToolUse`, timeout: 30 });
      expect(doc.hooks.Stop).toEqual([{ type: 'command', command: `${shim(b, 'vscode')} Stop`, timeout: 30 }]);
      expect(read(join(b.proj, '.github/hooks/hookmap.json'))).toMatch(/^\{\n\t"hooks"/); // tab indent kept
    },
  },
  {
    agent: 'cursor',
    format: 'hook-lists (+defaults)',
    scope: 'user',
    seed: (b) => [[join(b.env.HOME!, '.cursor/hooks.json'), '{\n  "version": 1,\n  "hooks": {\n    "afterFileEdit": [{ "command": "./fmt.sh" }]\n  }\n}\n']],
    merged: (b) => {
      const doc = JSON.parse(read(join(b.env.HOME!, '.cursor/hooks.json')));
      expect(doc.version).toBe(1);
      expect(doc.hooks.afterFileEdit).toEqual([{ command: './fmt.sh' }, { command: `${shim(b, 'cursor')} afterFileEdit`, timeout: 60 }]);
      expect(doc.hooks.beforeShellExecution).toEqual([{ command: `${shim(b, 'cursor')} beforeShellExecution`, timeout: 60 }]);
      expect(JSON.stringify(doc)).not.toContain('failClosed');
      expect(doc.hooks.afterAgentThought).toBeUndefined(); // register: false
    },
  },
  {
    agent: 'antigravity',
    format: 'named-hook-groups',
    scope: 'project',
    seed: (b) => [
      [
        join(b.proj, '.agents/hooks.json'),
        '{\n  "my-linter": {\n    "PostToolUse": [\n      { "matcher": "run_command", "hooks": [{ ' +
          '"type": "command", "command": "./lint.sh", "timeout": 10 }] }\n    ]\n  }\n}\n',
      ],
    ],
    merged: (b) => {
      const doc = JSON.parse(read(join(b.proj, '.agents/hooks.json')));
      expect(doc['my-linter'].PostToolUse[0].hooks[0].command).toBe('./lint.sh');
      expect(Object.keys(doc)).toEqual(['my-linter', 'hookmap']);
      expect(doc.hookmap.PreToolUse).toEqual([{ hooks: [{ type: 'command', command: `${shim(b, 'antigravity')} PreToolUse`, timeout: 30 }] }]);
      expect(Object.keys(doc.hookmap).sort()).toEqual(['PostInvocation', 'PostToolUse', 'PreInvocation', 'PreToolUse', 'Stop']);
    },
  },
  {
    agent: 'kimi-code',
    format: 'toml-hook-tables',
    scope: 'user',
    seed: (b) => [
      [
        join(b.env.KIMI_CODE_HOME!, 'config.toml'),
        '# my kimi config\ndefault_model = "k2"   # the model\n\n[[hooks]]\nevent = ' +
          '"PreToolUse"\nmatcher = "Bash"\ncommand = "node ~/check-bash.mjs"\ntimeout = 5\n',
      ],
    ],
    merged: (b) => {
      const text = read(join(b.env.KIMI_CODE_HOME!, 'config.toml'));
      expect(
        text.startsWith(
          '# my kimi config\ndefault_model = "k2"   # the model\n\n[[hooks]]\nevent = ' +
            '"PreToolUse"\nmatcher = "Bash"\ncommand = "node ~/check-bash.mjs"\ntimeout = 5\n\n# >>> ' +
            'hookmap kimi-code >>>\n',
        ),
      ).toBe(true);
      expect(text).toContain(`[[hooks]]\nevent = "PreToolUse"\ncommand = "${shim(b, 'kimi-code')} PreToolUse"\ntimeout = 60\n`);
      expect(text.endsWith('# <<< hookmap kimi-code <<<\n')).toBe(true);
    },
  },
  {
    agent: 'hermes',
    format: 'yaml-hook-list',
    scope: 'user',
    seed: (b) => [
      [
        join(b.env.HERMES_HOME!, 'config.yaml'),
        '# my hermes config\nmodel: hermes-4   # the model\n\nhooks:\n  # guard the terminal\n  ' +
          'pre_tool_call:\n    - matcher: terminal\n      command: ~/guard.sh   # mine\n      ' +
          'timeout: 5\n  outbound:\n    - url: https://example.test/hook\nhooks_auto_accept: true\n',
      ],
    ],
    merged: (b) => {
      const text = read(join(b.env.HERMES_HOME!, 'config.yaml'));
      // comments survive (the yaml printer may normalize the spacing before an inline one)
      for (const c of ['# my hermes config', '# the model', '# guard the terminal', '# mine', 'url: https://example.test/hook', 'hooks_auto_accept: true'])
        expect(text).toContain(c);
      expect(text).toMatch(
        /pre_tool_call:\n {4}- matcher: terminal\n {6}command: ~\/guard\.sh +# mine\n {6}timeout: 5\n {4}- command: \S+hermes\.sh pre_tool_call\n {6}timeout: 60\n/,
      );
      expect(text).toContain(`on_session_start:\n    - command: ${shim(b, 'hermes')} on_session_start\n      timeout: 60\n`);
    },
  },
  {
    agent: 'cline',
    format: 'hooks-dir',
    scope: 'project',
    // a file of the user's that is no event's (every event is hookmap's file now: TaskStart, PreToolUse, ...)
    seed: (b) => [[join(b.proj, '.cline/hooks/README'), 'my notes\n']],
    merged: (b) => {
      const dir = join(b.proj, '.cline/hooks');
      expect(read(join(dir, 'README'))).toBe('my notes\n');
      // the file is named by the EVENT (Cline's file names), the shim told the typed hook name
      const s = read(join(dir, 'PreToolUse'));
      expect(s).toContain('# hookmap-hook: agent=cline hook=tool_call');
      expect(s).toContain(`exec ${shim(b, 'cline')} tool_call "$@"`);
      expect(statSync(join(dir, 'PreToolUse')).mode & 0o777).toBe(0o755);
      expect(readdirSync(dir).sort()).toEqual([
        'PostToolUse',
        'PreCompact',
        'PreToolUse',
        'README',
        'SessionShutdown',
        'TaskCancel',
        'TaskComplete',
        'TaskError',
        'TaskResume',
        'TaskStart',
        'UserPromptSubmit',
      ]);
    },
  },
  {
    agent: 'qwen-code',
    format: 'hook-groups (native http)',
    scope: 'user',
    seed: (b) => [
      [
        join(b.env.HOME!, '.qwen/settings.json'),
        '{\n  "model": { "name": "qwen3-coder" },\n  "hooks": { "Stop": [ { "hooks": [ { "type": "command", "command": "notify-me" } ] } ] }\n}\n',
      ],
    ],
    merged: (b) => {
      const doc = JSON.parse(read(join(b.env.HOME!, '.qwen/settings.json')));
      expect(doc.model).toEqual({ name: 'qwen3-coder' });
      expect(doc.hooks.Stop[0].hooks[0].command).toBe('notify-me');
      // the user's own config carries the home's hook key (the agent sends only what its config says)
      const key = readHookKey(b.env.HOOKMAP_HOME!);
      expect(key).toMatch(/^[0-9a-f]{64}$/);
      expect(doc.hooks.Stop[1]).toEqual({
        hooks: [{ type: 'http', url: 'http://127.0.0.1:8787/hooks/qwen-code', headers: { 'x-hookmap-key': key }, timeout: 60, name: 'hookmap' }],
      });
      expect(JSON.stringify(doc)).not.toContain('shims/'); // every hook is native http
    },
  },
  ...(['opencode', 'kilocode', 'pi'] as const).map((agent): Case => {
    const dirs: Record<string, string> = { opencode: '.config/opencode/plugins', kilocode: '.config/kilo/plugin', pi: '.pi/agent/extensions' };
    return {
      agent,
      format: 'plugin-file',
      scope: 'user',
      seed: (b) => [[join(b.env.HOME!, dirs[agent], 'other.js'), 'export default {}\n']],
      merged: (b) => {
        const dir = join(b.env.HOME!, dirs[agent]);
        expect(read(join(dir, 'other.js'))).toBe('export default {}\n');
        const ours = read(join(dir, `hookmap-${agent}.js`));
        expect(ours).toMatch(new RegExp(`^// hookmap-plugin: v1 agent=${agent} descriptor=[0-9a-f]{32}\n// GENERATED by hookmap`));
      },
    };
  }),
];

describe.each(CASES)('setup $agent ($format)', (c) => {
  it("merges into an existing config keeping the user's entries; a second run changes nothing; uninstall restores it exactly", () => {
    const b = sandbox();
    for (const [p, text] of c.seed(b)) put(p, text);
    const original = snapshot(b);
    const p1 = setup(c.agent, b, { scope: c.scope });
    expect(p1.changed).toBe(true);
    c.merged(b);
    const installed = snapshot(b);
    const p2 = setup(c.agent, b, { scope: c.scope });
    expect(p2.changed).toBe(false);
    expect(p2.shimChanges).toEqual([]);
    expect(snapshot(b)).toEqual(installed);
    const p3 = setup(c.agent, b, { scope: c.scope, uninstall: true });
    expect(p3.changed).toBe(true);
    expect(snapshot(b)).toEqual(original); // byte for byte, backup gone
    expect(setup(c.agent, b, { scope: c.scope, uninstall: true }).changed).toBe(false);
  });

  it('on a fresh machine: creates the config, and uninstall leaves nothing behind', () => {
    const b = sandbox();
    setup(c.agent, b, { scope: c.scope });
    expect(Object.keys(snapshot(b)).length).toBeGreaterThan(0);
    setup(c.agent, b, { scope: c.scope, uninstall: true });
    expect(snapshot(b)).toEqual({});
  });

  it('--dry-run prints the change and writes nothing', async () => {
    const b = sandbox();
    for (const [p, text] of c.seed(b)) put(p, text);
    const before = snapshot(b);
    const args = [BIN, 'setup', c.agent, '--dry-run', ...(c.scope === 'project' ? ['--project', '--dir', b.proj] : ['--user'])];
    const r = await runProcess(process.execPath, args, '', b.env);
    expect(r.code).toBe(0);
    const out = r.stdout.toString();
    expect(out).toContain('+++ ');
    expect(out).toContain('dry run: nothing written');
    expect(snapshot(b)).toEqual(before);
    expect(existsSync(join(b.env.HOOKMAP_HOME!, 'shims'))).toBe(false);
  });
});

describe('setup: format specifics', () => {
  it("toml: a file without a trailing newline, and the user's later edits outside the block, survive uninstall", () => {
    const b = sandbox();
    const file = join(b.env.KIMI_CODE_HOME!, 'config.toml');
    put(file, 'default_model = "k2"');
    setup('kimi-code', b);
    expect(read(file)).toMatch(/^default_model = "k2"\n\n# >>> hookmap kimi-code >>>\n/);
    writeFileSync(file, `theme = "dark"\n${read(file)}`);
    const p = setup('kimi-code', b, { uninstall: true });
    expect(p.restoresBackup).toBe(false);
    expect(read(file)).toBe('theme = "dark"\ndefault_model = "k2"\n');
  });

  it('toml: a duplicated block collapses to one, rewritten in place', () => {
    const b = sandbox();
    const file = join(b.env.KIMI_CODE_HOME!, 'config.toml');
    setup('kimi-code', b);
    const once = read(file);
    writeFileSync(file, `${once}\n${once.replace('timeout = 60', 'timeout = 5')}`);
    setup('kimi-code', b);
    expect(read(file)).toBe(`${once}\n`);
  });

  it("yaml: the user's later comment and keys survive uninstall; only hookmap's entries go", () => {
    const b = sandbox();
    const file = join(b.env.HERMES_HOME!, 'config.yaml');
    put(file, '# mine\nmodel: a\n');
    setup('hermes', b);
    writeFileSync(file, `${read(file)}# added later\ntheme: dark\n`);
    setup('hermes', b, { uninstall: true });
    expect(read(file)).toBe('# mine\nmodel: a\n# added later\ntheme: dark\n');
  });

  it('yaml: refuses what it cannot parse, writing nothing', () => {
    const b = sandbox();
    const file = join(b.env.HERMES_HOME!, 'config.yaml');
    put(file, 'hooks: [unclosed\n');
    expect(() => setup('hermes', b)).toThrow(FormatError);
    expect(read(file)).toBe('hooks: [unclosed\n');
  });

  it("hooks-dir and plugin-file refuse to overwrite a file that is not hookmap's", () => {
    const b = sandbox();
    put(join(b.proj, '.cline/hooks/PreToolUse'), '#!/bin/sh\necho mine\n');
    expect(() => setup('cline', b, { scope: 'project' })).toThrow(/not hookmap's.*PreToolUse/);
    expect(readdirSync(join(b.proj, '.cline/hooks'))).toEqual(['PreToolUse']);
    put(join(b.env.HOME!, '.config/opencode/plugins/hookmap-opencode.js'), 'export default {}\n');
    expect(() => setup('opencode', b)).toThrow(FormatError);
    expect(read(join(b.env.HOME!, '.config/opencode/plugins/hookmap-opencode.js'))).toBe('export default {}\n');
  });

  it("named-hook-groups: keeps the user's `enabled: false` on hookmap's entry", () => {
    const b = sandbox();
    setup('antigravity', b);
    const file = join(b.env.HOME!, '.gemini/config/hooks.json');
    const doc = JSON.parse(read(file));
    writeFileSync(file, JSON.stringify({ hookmap: { enabled: false, ...doc.hookmap } }, null, 2));
    const p = setup('antigravity', b);
    expect(p.changed).toBe(false);
    expect(JSON.parse(read(file)).hookmap.enabled).toBe(false);
  });

  it('plugin-file: a stale plugin (older descriptor) is rewritten', () => {
    const b = sandbox();
    const p = setup('pi', b);
    writeFileSync(p.configPath, read(p.configPath).replace(/descriptor=\w+/, 'descriptor=0123'));
    const again = setup('pi', b);
    expect(again.changed).toBe(true);
    expect(read(p.configPath)).not.toContain('descriptor=0123');
  });
});
