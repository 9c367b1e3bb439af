// The hook-groups format with two hookmap handlers on one hook (issue 29):
// Claude Code's Stop gets the firing's handler and the next-turn carrier's
// background waiter ("asyncRewake": true). An older wiring gains the waiter,
// a second install changes nothing, a duplicate or a stale waiter is
// rewritten, a user's own Stop handler stays, and removal takes both of ours.
import { describe, expect, it } from 'vitest';
import { loadVendor } from '../../../engine/core/descriptor/registry.ts';
import { hookGroups } from '../../../engine/runtime/setup/formats/hook-groups.ts';
import type { FormatOptions, Json } from '../../../engine/runtime/setup/formats/types.ts';
import { hookmapMatcher, type Handler } from '../../../engine/runtime/setup/recognize.ts';
import { registrations } from '../../../engine/runtime/setup/registrations.ts';

const d = loadVendor('claude-code');
const SH = '/h/shims/claude-code.sh';
const regs = registrations(d, { shim: 'sh', shPath: SH, nodeCommand: ['hookmap'], baseUrl: 'http://127.0.0.1:8787' });
const opts = {
  agent: 'claude-code',
  timeoutUnit: { command: 's', http: 's' },
  timeouts: {},
  fields: {},
  defaults: {},
  handler: { command: ['command'], timeout: 'timeout', recognize: ['command'] },
  entry: 'hookmap',
  fileNames: {},
} as unknown as FormatOptions;
const ours = hookmapMatcher('claude-code') as (h: Handler) => boolean;
const stopOf = (doc: Json) => ((doc.hooks as any).Stop as any[]).flatMap((g) => g.hooks);
const mine = { type: 'command', command: '/usr/local/bin/my-stop-hook' };

describe('two hookmap handlers on one hook (hook-groups)', () => {
  it('an older wiring gains the waiter; installing again changes nothing', () => {
    const old = hookGroups.install(
      { hooks: { Stop: [{ hooks: [mine] }] } },
      regs.filter((r) => !r.fields),
      ours,
      opts,
    );
    expect(stopOf(old)).toHaveLength(2);
    const now = hookGroups.install(old, regs, ours, opts);
    expect(stopOf(now)).toEqual([
      mine,
      { type: 'command', command: `${SH} Stop`, timeout: 600 },
      { asyncRewake: true, type: 'command', command: `${SH} next-turn`, timeout: 3060 },
    ]);
    expect(hookGroups.install(now, regs, ours, opts)).toEqual(now);
  });

  it('a duplicate of ours goes, a stale waiter is rewritten, the user handler stays', () => {
    const stale = { type: 'command', command: `${SH} next-turn`, timeout: 5 };
    const doc = {
      hooks: {
        Stop: [
          { hooks: [stale] },
          { hooks: [mine, { type: 'command', command: `${SH} Stop`, timeout: 600 }] },
          { hooks: [{ type: 'command', command: `${SH} Stop` }] },
        ],
      },
    };
    const out = hookGroups.install(doc, regs, ours, opts);
    const stop = stopOf(out);
    expect(stop.filter((h) => h.command === `${SH} Stop`)).toEqual([{ type: 'command', command: `${SH} Stop`, timeout: 600 }]);
    expect(stop.filter((h) => h.command === `${SH} next-turn`)).toEqual([{ asyncRewake: true, type: 'command', command: `${SH} next-turn`, timeout: 3060 }]);
    expect(stop).toContainEqual(mine);
    expect(hookGroups.install(out, regs, ours, opts)).toEqual(out);
  });

  it('removal takes both of ours and leaves the user handler', () => {
    const wired = hookGroups.install({ hooks: { Stop: [{ hooks: [mine] }] } }, regs, ours, opts);
    expect(stopOf(hookGroups.remove(wired, ours, opts))).toEqual([mine]);
  });
});
