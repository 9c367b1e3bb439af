// The command table (engine/cli/usage.ts) is the one place a command's help
// lives: every flag a command parses is documented there, and every flag the
// table documents is one the command parses. `hookmap <command> --help` prints it,
// exit 0; docs/cli.md's command tables are rendered from it (drift: hookmap docs --check).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { main } from '../../engine/cli/main.ts';
import { COMMANDS, commandHelp } from '../../engine/cli/usage.ts';
import { CLI_DOC, cliSection } from '../../engine/cli/usage-doc.ts';
import { ENDPOINT_FLAGS } from '../../engine/cli/commands/command-common.ts';
import { SERVER_AUTH_FLAGS } from '../../engine/cli/commands/server-auth.ts';
import { BACKPLANE_FLAGS } from '../../engine/runtime/relay/backplane/config.ts';
import { ROOT } from '../../engine/core/descriptor/registry.ts';
import { COMMAND_MODULES } from '../../engine/cli/command-modules.ts';

const source = (module: string) => readFileSync(join(ROOT, 'engine/cli/commands', `${module}.ts`), 'utf8');

/** The flags a command's source declares to parseArgs (object-literal keys with a `type:`), ENDPOINT_FLAGS expanded. */
function parsedFlags(module: string): Set<string> {
  const src = source(module);
  const out = new Set<string>();
  for (const m of src.matchAll(/(?:'([a-z][a-z0-9-]*)'|\b([a-z][a-zA-Z0-9]*))\s*:\s*\{\s*type:\s*'(?:string|boolean)'/g)) out.add(m[1] ?? m[2]);
  if (/\.\.\.ENDPOINT_FLAGS/.test(src)) for (const f of Object.keys(ENDPOINT_FLAGS)) out.add(f);
  if (/\.\.\.SERVER_AUTH_FLAGS/.test(src)) for (const f of Object.keys(SERVER_AUTH_FLAGS)) out.add(f);
  if (/\.\.\.BACKPLANE_FLAGS/.test(src)) for (const f of Object.keys(BACKPLANE_FLAGS)) out.add(f);
  out.delete('help');
  return out;
}

/** The `--flags` a text mentions. */
const mentioned = (text: string) => new Set([...text.matchAll(/(?<![\w-])--([a-z][a-z0-9-]*)/g)].map((m) => m[1]).filter((f) => f !== 'help'));

describe('the command table', () => {
  it("names a module for every command that the dispatcher's literal imports hold, and nothing else", async () => {
    expect(Object.keys(COMMAND_MODULES).sort()).toEqual([...new Set(COMMANDS.map((c) => c.module))].sort());
    expect(typeof (await COMMAND_MODULES.tail()).run).toBe('function');
  });

  for (const c of COMMANDS) {
    if (c.name === 'hook' || c.name === 'tee' || c.name === 'autostart') continue; // programs of their own (bin/hookmap.mjs runs them without this CLI)
    it(`${c.name}: documents exactly the flags it parses`, () => {
      const doc = `${c.synopsis}\n${c.help ?? ''}`;
      expect(doc, 'help text').not.toBe('');
      const parsed = parsedFlags(c.module);
      expect([...parsed].filter((f) => !mentioned(doc).has(f)).sort(), 'parsed but not documented').toEqual([]);
      expect([...mentioned(`${c.synopsis}\n${c.help ?? ''}`)].filter((f) => !parsed.has(f)).sort(), 'documented but not parsed').toEqual([]);
    });
  }

  it('answers `<command> --help` with the table entry, exit 0', async () => {
    let out = '';
    const write = vi.spyOn(process.stdout, 'write').mockImplementation((s) => ((out += String(s)), true));
    try {
      expect(await main(['check', '--help'])).toBe(0);
      expect(await main(['answer', '-h'])).toBe(0);
    } finally {
      write.mockRestore();
    }
    expect(out).toBe(commandHelp(COMMANDS.find((c) => c.name === 'check')!) + commandHelp(COMMANDS.find((c) => c.name === 'answer')!));
    expect(out).toMatch(/^usage: hookmap check \[agent\]/);
  });

  it("renders docs/cli.md's command tables", () => {
    const doc = readFileSync(join(ROOT, CLI_DOC), 'utf8');
    expect(doc).toContain(cliSection());
    for (const c of COMMANDS) expect(cliSection()).toContain(`hookmap ${c.synopsis.replace(/\|/g, '\\|')}`);
  });
});
