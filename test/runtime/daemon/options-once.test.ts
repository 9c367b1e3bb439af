// One resolved options object ($config) feeds the mapping AND the daemon's
// decisions (issue 16: HOOKMAP_<AGENT>_<KEY> overrides applied while mapping
// but not when a decision re-evaluated the descriptor's vars). The variables
// are read once, at the CLI edge (engine/cli/config.ts), and passed down as
// `optionVars`; nothing below engine/cli/ reads process.env for them.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveConfig } from '../../../engine/cli/config.ts';
import { Daemon } from '../../../engine/runtime/daemon/daemon.ts';
import type { PendingHold } from '../../../engine/runtime/daemon/holds.ts';
import type { EventLink } from '../../../engine/runtime/daemon/relay-link.ts';
import { compileDescriptor } from '../../../engine/core/descriptor/compile.ts';
import { respondCommand } from '../../../engine/tools/cases/run-decisions.ts';
import type { AepEvent } from '../../../engine/core/map/envelope.ts';

const text = `
vendor: optdemo
name: Options demo
surface: { kind: command-hook, pin: test, hook_name: =hook }
identity: { session: =sid }
config: { mode: { default: lenient, doc: how strict the demo is } }
vars:
  mode: =$config.mode
hooks:
  Pre:
    emit:
      - type: attention.requested
        subject: =tool
        data: { kind: permission, prompt: '="mode " & $mode', options: [{ id: allow, label: Allow }] }
    hold:
      kind: gate
      decisions: { allow: { mode: =$mode } }
replies: { neutral: "" }
capabilities: {}
posture: observe-opt-in
`;
const d = compileDescriptor('optdemo.yaml', text).descriptor!;

class MemoryLink implements EventLink {
  readonly ready = true;
  deliver(): void {}
  resend(): void {}
  async close(): Promise<void> {}
}

const dirs: string[] = [];
afterEach(() => {
  delete process.env.HOOKMAP_OPTDEMO_MODE;
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Fire Pre, answer its hold with allow: the mode the mapping saw (the card's prompt) and the one the decision rendered. */
async function modes(optionVars?: Record<string, string>): Promise<{ mapped: unknown; decided: unknown }> {
  const dir = mkdtempSync(join(tmpdir(), 'hookmap-options-'));
  dirs.push(dir);
  const events: AepEvent[] = [];
  let onHold!: (h: PendingHold) => void;
  const held = new Promise<PendingHold>((r) => (onHold = r));
  const lines: string[] = [];
  const daemon = Daemon.open({ descriptor: d, logDir: dir, optionVars, onEvent: (ev) => events.push(ev), onHold: (h) => onHold(h), say: (l) => lines.push(l) });
  daemon.attach(new MemoryLink(), true);
  try {
    const reply = daemon.handle({ hook: 'Pre', payload: { hook: 'Pre', sid: 's1', tool: 'Bash' } });
    const hold = await Promise.race([held, reply.then((r) => Promise.reject(new Error(`no hold: ${JSON.stringify(r)} ${lines.join(' | ')}`)))]);
    await daemon.onCommand(respondCommand(hold, { option: 'allow' }));
    const r = await reply;
    const request = events.find((e) => e.type === 'attention.requested')!;
    return { mapped: (request.data as { prompt: string }).prompt.replace(/^mode /, ''), decided: JSON.parse(String(r.body)).mode };
  } finally {
    await daemon.close();
  }
}

describe('one resolved options object', () => {
  it('HOOKMAP_<AGENT>_<KEY>, read at the CLI edge, reaches the mapping and the decision alike', async () => {
    const config = resolveConfig({ HOOKMAP_OPTDEMO_MODE: 'strict' });
    expect(config.options).toEqual({ HOOKMAP_OPTDEMO_MODE: 'strict' });
    expect(await modes(config.options)).toEqual({ mapped: 'strict', decided: 'strict' });
  });

  it('below the CLI nothing reads the variable from process.env: the mapping and the decision agree on the default', async () => {
    process.env.HOOKMAP_OPTDEMO_MODE = 'strict';
    expect(await modes()).toEqual({ mapped: 'lenient', decided: 'lenient' });
  });
});
