// Opt-in options (a command's `opt_in`, e.g. ACP's HOOKMAP_ACP_CONTROL): the
// daemon reports each one's state as resolved, the commands it switches on
// agree with the hello's accepts, and `hookmap up` prints them beside the
// agent's surface so an operator sees what is off and which variable turns it on.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Daemon } from '../../../engine/runtime/daemon/daemon.ts';
import { loadVendor } from '../../../engine/core/descriptor/registry.ts';
import { upStack } from '../../helpers/up-stack.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function states(agent: string, optionVars?: Record<string, string>) {
  const dir = mkdtempSync(join(tmpdir(), 'hookmap-optin-'));
  dirs.push(dir);
  const daemon = Daemon.open({ descriptor: loadVendor(agent), logDir: dir, optionVars, say: () => {} });
  try {
    return { optIns: daemon.optIns(), accepts: daemon.accepts };
  } finally {
    await daemon.close();
  }
}

describe('opt-in options', () => {
  it('ACP control is off by default: control.cancel is not accepted, and the variable that turns it on is named', async () => {
    const s = await states('acp');
    expect(s.optIns).toEqual([expect.objectContaining({ key: 'control', on: false, env: 'HOOKMAP_ACP_CONTROL', commands: ['control.cancel'] })]);
    expect(s.accepts).not.toContain('control.cancel');
  });

  it('HOOKMAP_ACP_CONTROL=true turns it on: the state and the accepted commands agree', async () => {
    const s = await states('acp', { HOOKMAP_ACP_CONTROL: 'true' });
    expect(s.optIns[0]).toMatchObject({ key: 'control', on: true });
    expect(s.accepts).toContain('control.cancel');
  });

  it('an agent with two opt-ins reports both (VS Code: instruct, cancel); one without reports none', async () => {
    expect((await states('vscode', { HOOKMAP_VSCODE_CANCEL: 'true' })).optIns.map((x) => [x.key, x.on])).toEqual([
      ['instruct', false],
      ['cancel', true],
    ]);
    expect((await states('cursor')).optIns).toEqual([]);
  });

  it('`hookmap up` names the opt-ins on in its summary, and (--verbose) each opt-in with its state and variable under the agent', async () => {
    const detail: string[] = [];
    const s = await upStack({
      agents: [{ descriptor: 'acp' }, { descriptor: 'codex' }],
      optionVars: { HOOKMAP_CODEX_INSTRUCT: 'true' },
      detail: (l) => detail.push(l),
    });
    try {
      expect(s.lines).toContain('  opt-ins:  codex instruct (HOOKMAP_CODEX_INSTRUCT) on; 1 off; --verbose lists each with the variable that turns it on');
      expect(s.lines.join('\n')).not.toMatch(/HOOKMAP_ACP_CONTROL/);
      const out = detail.join('\n');
      expect(out).toMatch(/^ {2}acp: .*\n {4}control: off \(HOOKMAP_ACP_CONTROL=true to turn it on; control\.cancel\)/m);
      expect(out).toMatch(/^ {2}codex: .*\n {4}instruct: ON \(HOOKMAP_CODEX_INSTRUCT=false to turn it off; x\.codex\.control\.instruct\)/m);
    } finally {
      await s.done();
    }
  }, 30_000);

  it(
    '`hookmap up` prints every other descriptor option in effect too (an opt-in gate such as pi ' +
      'control): set ones by name, each under its agent with --verbose',
    async () => {
      const detail: string[] = [];
      const s = await upStack({ agents: [{ descriptor: 'pi' }], optionVars: { HOOKMAP_PI_CONTROL: 'true' }, detail: (l) => detail.push(l) });
      try {
        expect(s.lines).toContain('  options:  pi control=true (HOOKMAP_PI_CONTROL); 2 at their defaults; --verbose lists each');
        const out = detail.join('\n');
        expect(out).toMatch(/^ {4}deltas: false \(default; HOOKMAP_PI_DELTAS\): Emit the stream-shaped family/m);
        expect(out).toMatch(/^ {4}control: true \(set; default false; HOOKMAP_PI_CONTROL\): The opt-in tool_call gate/m);
        expect(out).toMatch(/^ {4}gate_tools: ".\*" \(default; HOOKMAP_PI_GATE_TOOLS\)/m);
      } finally {
        await s.done();
      }
    },
    30_000,
  );
});
