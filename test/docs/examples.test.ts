// Every documented example is executed (issue 28): each fenced block of
// README.md and docs/*.md is found and run for what it is. A YAML block is a
// descriptor (compiled: no error), a descriptor fragment (compiled inside a
// minimal descriptor), an operator policy (loaded as `hookmap policy check`
// loads it), an `up` config (loaded as `hookmap up --config` loads it), or
// another tool's config said so in its first line (parsed), or a scenario
// for the scripted model (read as `npm run model` reads it). A documented
// error line is produced by the snippet beside it in this file. Each
// `hookmap` command line of a sh block either runs offline here (map, policy
// check, validate, check, capabilities, setup --dry-run: exit and output
// checked) or needs a running `hookmap up`, an agent or a network; those are
// checked against the command table: the command exists and takes every
// flag the line passes. A block nobody classified fails the test.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadUpConfig } from '../../engine/app/up-config.ts';
import { COMMANDS, commandHelp } from '../../engine/cli/usage.ts';
import { compileDescriptor } from '../../engine/core/descriptor/compile.ts';
import { ERROR_CODES, formatError } from '../../engine/core/descriptor/errors.ts';
import { listVendors, ROOT } from '../../engine/core/descriptor/registry.ts';
import { loadPolicyFile } from '../../engine/runtime/policy/policy.ts';
import { parsePriceFile } from '../../engine/runtime/usage/prices.ts';
import { runCli } from '../helpers/cli.ts';
import { readScenario } from '../live/scripted-model.ts';

interface Block {
  file: string;
  line: number;
  lang: string;
  body: string;
}

const FILES = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

function blocks(): Block[] {
  const out: Block[] = [];
  for (const file of FILES) {
    const text = readFileSync(join(ROOT, file), 'utf8');
    for (const m of text.matchAll(/^```(\w*)\n([\s\S]*?)^```/gm)) out.push({ file, line: text.slice(0, m.index).split('\n').length, lang: m[1], body: m[2] });
  }
  return out;
}
const ALL = blocks();
const at = (b: Block) => `${b.file}:${b.line}`;

const tmp = mkdtempSync(join(tmpdir(), 'hookmap-doc-examples-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** What a descriptor fragment is compiled inside (it names no vendor of its own). */
const SKELETON =
  'vendor: demo\nname: Demo\nsurface: { kind: command-hook, pin: docs, hook_name: ' +
  '=hook_event_name }\nidentity: { session: =session_id }\nreplies: { neutral: "" ' +
  '}\ncapabilities: {}\nposture: observe-only\n';

type YamlKind = 'descriptor' | 'descriptor fragment' | 'policy' | 'up config' | 'prices' | 'scenario' | 'foreign';
function yamlKind(b: Block): YamlKind | undefined {
  if (/^vendor:/m.test(b.body)) return 'descriptor';
  if (/^rules:/m.test(b.body)) return 'policy';
  if (/^(agents|bridges|projects|backplane|durability|capture|policy|push|budgets|watch|people|two_people|launch):/m.test(b.body)) return 'up config';
  if (/^(vars|hooks|identity|capture|transcript|waiting|limits):/m.test(b.body)) return 'descriptor fragment';
  if (/^models:/m.test(b.body)) return 'prices';
  if (/^# a scenario for `npm run model`/.test(b.body)) return 'scenario';
  // another tool's configuration says so in its first line (`# otelcol config.yaml`)
  if (/^# (otelcol|nats|slack app manifest)\b/.test(b.body)) return 'foreign';
  return undefined;
}

describe('documented YAML examples', () => {
  const yamls = ALL.filter((b) => b.lang === 'yaml');
  it('there are some, and each is classified', () => {
    expect(yamls.length).toBeGreaterThanOrEqual(6);
    expect(yamls.filter((b) => !yamlKind(b)).map(at)).toEqual([]);
  });
  for (const b of yamls) {
    const kind = yamlKind(b);
    it(`${at(b)} (${kind})`, () => {
      if (kind === 'descriptor') expect(compileDescriptor(at(b), b.body).errors.map(formatError)).toEqual([]);
      else if (kind === 'descriptor fragment') expect(compileDescriptor(at(b), SKELETON + b.body).errors.map(formatError)).toEqual([]);
      else if (kind === 'policy') {
        const file = join(tmp, `policy-${b.line}.yaml`);
        writeFileSync(file, b.body);
        expect(loadPolicyFile(file, listVendors()).errors).toEqual([]);
      } else if (kind === 'up config') {
        const file = join(tmp, `up-${b.line}.yaml`);
        writeFileSync(file, b.body);
        // a `key_env` names a variable: the example's own, set
        const env = Object.fromEntries([...b.body.matchAll(/key_env: (\w+)/g)].map((m) => [m[1], 'example-key']));
        expect(() => loadUpConfig(file, env)).not.toThrow();
      } else if (kind === 'prices') expect(parsePriceFile(b.body, at(b)).size).toBeGreaterThan(0);
      else if (kind === 'scenario') expect(readScenario(b.body, at(b)).steps.length).toBeGreaterThan(0);
      else expect(() => parse(b.body)).not.toThrow();
    });
  }
});

/** A documented error line, and a descriptor (beside the skeleton's keys) that produces it. */
const ERROR_EXAMPLES: Record<string, string> = {
  'unknown-function':
    'hooks:\n  PreToolUse:\n    emit:\n      - type: tool.requested\n        subject: =tool_name\n        data: { tool: { name: =$isstrng(tool_name) } }\n',
  'unmarked-expression': 'hooks:\n  Prompt:\n    emit:\n      - type: run.started\n        data: { trigger: \'"user"\' }\n',
};

describe('documented error lines', () => {
  const lines = ALL.filter((b) => b.lang === '').flatMap((b) =>
    b.body
      .split('\n')
      .filter((l) => /^vendors\/x\.yaml:\d+:\d+ [a-z-]+: /.test(l))
      .map((l) => ({ b, l })),
  );
  it('there are some', () => expect(lines.length).toBeGreaterThanOrEqual(2));
  for (const { b, l } of lines) {
    const [, code, rest] = /^vendors\/x\.yaml:\d+:\d+ ([a-z-]+): (.*)$/.exec(l)!;
    it(`${at(b)} ${code}`, () => {
      expect(Object.keys(ERROR_CODES)).toContain(code);
      expect(ERROR_EXAMPLES[code], `a snippet producing the documented ${code} line`).toBeDefined();
      const errs = compileDescriptor('vendors/x.yaml', SKELETON + ERROR_EXAMPLES[code]).errors.map(formatError);
      expect(errs).toHaveLength(1);
      // the same code, path and message (the documented line may end in "..." where it trims)
      const got = errs[0].replace(/^vendors\/x\.yaml:\d+:\d+ /, '');
      const want = `${code}: ${rest}`.replace(/ \.\.\.$/, '');
      expect(got.startsWith(want), `${got}\n  does not start with\n${want}`).toBe(true);
    });
  }
});

interface CommandLine {
  b: Block;
  line: string;
  argv: string[];
  env: Record<string, string>;
  stdin?: string;
}

/** `hookmap ...` command lines of the sh blocks: comments dropped, continuations joined, `echo '...' |` read as stdin. */
function commandLines(): CommandLine[] {
  const out: CommandLine[] = [];
  for (const b of ALL.filter((x) => x.lang === 'sh')) {
    const joined = b.body.replace(/\\\n\s*/g, ' ').split('\n');
    for (const raw of joined) {
      const line = raw.replace(/\s+#.*$/, '').trim();
      if (!/(^|\| |=\S+ )hookmap /.test(line)) continue;
      let rest = line;
      let stdin: string | undefined;
      const echo = /^echo '([^']*)'\s*\|\s*(.*)$/.exec(rest);
      if (echo) {
        stdin = `${echo[1]}\n`;
        rest = echo[2];
      }
      const env: Record<string, string> = {};
      let m: RegExpExecArray | null;
      while ((m = /^([A-Z_]+)=(\S+) (.*)$/.exec(rest))) {
        env[m[1]] = m[2];
        rest = m[3];
      }
      const argv = (rest.match(/"[^"]*"|'[^']*'|\S+/g) ?? []).map((a) => a.replace(/^["']|["']$/g, ''));
      expect(argv[0], `${at(b)}: ${line}`).toBe('hookmap');
      out.push({ b, line, argv: argv.slice(1), env, stdin });
    }
  }
  return out;
}

/** Command lines that run here, offline (what their output must say). */
const OFFLINE: { match: RegExp; expect: (r: { code: number | null; stdout: string; stderr: string }) => void }[] = [
  {
    match: /^map codex$/,
    expect: (r) => {
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout.trim()).events.map((e: { type: string }) => e.type)).toEqual(['tool.requested']);
    },
  },
  {
    match: /^map codex-otel$/,
    expect: (r) => {
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout.trim()).events.map((e: { type: string; data: { success?: string } }) => `${e.type} ${e.data.success}`)).toEqual([
        'x.codex.otel.tool_result false',
      ]);
    },
  },
  {
    match: /^map codex-otel --set primary=true$/,
    expect: (r) => {
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout.trim()).events.map((e: { type: string }) => e.type)).toEqual(['tool.failed']);
    },
  },
  {
    match: /^policy check policy\.yaml$/,
    expect: (r) => {
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/ok: \d+ rules/);
    },
  },
  {
    match: /^setup \S+ --dry-run$/,
    expect: (r) => {
      expect(r.code).toBe(0);
    },
  },
];

describe('documented CLI examples', () => {
  const cmds = commandLines();
  it('there are some', () => expect(cmds.length).toBeGreaterThanOrEqual(20));
  // the policy every `policy check policy.yaml` example means: the documented one (docs/policy.md)
  const policy = ALL.find((b) => b.file === 'docs/policy.md' && b.lang === 'yaml')!.body;
  for (const c of cmds) {
    const offline = OFFLINE.find((o) => o.match.test(c.argv.join(' ')));
    it(`${at(c.b)}: ${c.line.slice(0, 100)}${offline ? ' (run)' : ' (needs a running hookmap up, an agent or a network: flags checked)'}`, async () => {
      const entry = COMMANDS.find((x) => x.name === c.argv[0]);
      expect(entry, `hookmap ${c.argv[0]} is a command`).toBeDefined();
      // every flag the example passes is one the command documents
      const help = commandHelp(entry!);
      for (const flag of c.argv.filter((a) => /^--[a-z]/.test(a)).map((a) => a.replace(/=.*$/, '')))
        expect(help, `hookmap ${c.argv[0]} --help names ${flag}`).toContain(flag);
      if (!offline) return;
      const cwd = mkdtempSync(join(tmp, 'cli-'));
      writeFileSync(join(cwd, 'policy.yaml'), policy);
      const home = join(cwd, 'home');
      const r = await runCli(c.argv, { PATH: process.env.PATH, HOME: home, HOOKMAP_HOME: join(home, '.hookmap'), ...c.env }, 60_000, { cwd, stdin: c.stdin });
      offline.expect(r);
    });
  }
});
