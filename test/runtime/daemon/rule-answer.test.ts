// Which option a rule's allow applies, and how a native "always" is applied
// (issue 22): a rule allows once (hookmap's rule is what persists), never
// with an agent's own "always" option; a human's allow on a request marked
// "always, natively" becomes the card's own always option (ACP, OpenCode,
// Kilo Code) or the hold's allow_always decision (Claude Code).
import { describe, expect, it } from 'vitest';
import { permissiveOption } from '../../../engine/runtime/daemon/answer.ts';
import { alwaysOption, nativeAlways } from '../../../engine/runtime/daemon/rule-answer.ts';
import { loadVendor } from '../../../engine/core/descriptor/registry.ts';

const opts = (...ids: string[]) => ids.map((id) => ({ id }));

describe('rule answers: options', () => {
  // a vendor's own ids mean what the card declares (option_effects -> hookmapeffects), convention ids their name
  const kilo = { once: 'allow', reject: 'deny' } as const;
  const acpKinds = { allow_once: 'allow', allow_always: 'always', reject_once: 'deny', reject_always: 'never' } as const;

  it('a rule allows once, on every agent vocabulary', () => {
    expect(permissiveOption(opts('allow', 'deny'))).toBe('allow');
    expect(permissiveOption(opts('always', 'allow', 'deny'))).toBe('allow');
    expect(permissiveOption(opts('once', 'always', 'reject'), kilo)).toBe('once');
    expect(permissiveOption(opts('allow_always', 'allow_once', 'reject_once'), acpKinds)).toBe('allow_once');
    expect(permissiveOption(opts('allow_always', 'reject_once'), acpKinds)).toBeUndefined();
    expect(permissiveOption(opts('deny'))).toBeUndefined();
    // an id nothing declares is not guessed at
    expect(permissiveOption(opts('once', 'reject'))).toBeUndefined();
  });

  it("the agent's own always option, when the card offers one", () => {
    expect(alwaysOption(opts('once', 'always', 'reject'), kilo)).toBe('always');
    expect(alwaysOption(opts('allow_once', 'allow_always'), acpKinds)).toBe('allow_always');
    expect(alwaysOption(opts('allow', 'deny'))).toBeUndefined();
  });

  it('native "always" per descriptor: Claude Code by decision, Codex not at all', () => {
    const hold = (agent: string, hook: string, i = 0) => loadVendor(agent).hooks.get(hook)!.holds[i];
    const cc = hold('claude-code', 'PermissionRequest', 1);
    expect(nativeAlways({ view: { options: opts('allow', 'deny') }, rule: cc })).toMatch(/allow_always decision/);
    expect(nativeAlways({ view: { options: opts('allow', 'deny') }, rule: hold('codex', 'PermissionRequest') })).toBeUndefined();
    expect(nativeAlways({ view: { options: opts('once', 'always', 'reject') }, rule: hold('codex', 'PermissionRequest') })).toMatch(/always option/);
  });
});
