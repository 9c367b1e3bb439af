// The hold window per agent, up to the agent's own hook timeout (issue 23):
// an answer from a phone minutes later still reaches an agent that lets a
// hook wait that long (Claude Code: 600 s), and a window longer than the
// agent allows is cut to what it allows, said at start (Codex: 60 s).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { readLogs, until } from '../../runtime/daemon/helpers.ts';
import { upStack, type UpStack } from '../../helpers/up-stack.ts';
import { loadVendor } from '../../../engine/core/descriptor/registry.ts';
import { planFor } from '../../../engine/runtime/shim/generate.ts';
import { resolveTarget } from '../../../engine/cli/config.ts';

let s: UpStack;
beforeAll(async () => {
  s = await upStack({
    prefix: 'hookmap-window-',
    hello: true,
    agents: [
      { descriptor: 'claude-code', attentionTimeoutMs: 300_000 },
      { descriptor: 'codex', attentionTimeoutMs: 300_000 },
    ],
  });
}, 30_000);
afterAll(() => s?.done());

describe('hold window', () => {
  it("holds Claude Code's request for 300 s, and its shim waits that long", async () => {
    const t0 = Date.now();
    const held = fetch(`${s.url}/hooks/claude-code`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        hook_event_name: 'PermissionRequest',
        session_id: 'win-1',
        cwd: '/tmp',
        permission_mode: 'default',
        tool_name: 'Bash',
        tool_input: { command: 'ls' },
        permission_suggestions: [],
      }),
    });
    const req = await until('the request', () =>
      readLogs(join(s.logDir, 'claude-code')).find((e) => e.type === 'attention.requested' && e.session === 'win-1'),
    );
    const left = Date.parse((req.data as any).expires_at) - t0;
    expect(left).toBeGreaterThan(290_000);
    expect(left).toBeLessThanOrEqual(301_000);
    expect(planFor(loadVendor('claude-code'), resolveTarget({})).hooks.PermissionRequest.bound_ms).toBeGreaterThan(300_000);
    await fetch(`${s.url}/hooks/claude-code`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ hook_event_name: 'SessionEnd', session_id: 'win-1', reason: 'other' }),
    });
    await held;
  });

  it("cuts a window longer than Codex's 60 s hook timeout to what it allows, and says so", () => {
    expect(
      s.lines.some((l) =>
        /\[codex\] warning: attention timeout 300000 ms is longer than codex allows a hook to wait .* holds fail open after 56000 ms instead/.test(l),
      ),
    ).toBe(true);
    expect(s.lines.some((l) => /\[claude-code\] warning: attention timeout/.test(l))).toBe(false);
  });
});
