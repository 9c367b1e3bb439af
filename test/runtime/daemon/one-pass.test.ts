// One pass per firing (issue 28): the daemon hands a hook payload to the
// mapper once; the mapper identifies it once (hook, session) and a failure
// names the session it read, so the diagnostic lands there without the
// daemon asking again. A firing that ends its session closes the requests
// held there in its own events, and only when the whole firing succeeds:
// a failed one leaves every hold as it was.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Daemon } from '../../../engine/runtime/daemon/daemon.ts';
import { compileDescriptor } from '../../../engine/core/descriptor/compile.ts';
import { validateStream } from '../../../engine/core/validate/index.ts';
import { MemoryLink, readLogs, tempDir, until } from './helpers.ts';

const text = `
vendor: demo
name: Demo
surface: { kind: command-hook, pin: test, hook_name: =hook }
identity: { session: =sid }
hooks:
  Start:
    emit:
      - { type: session.started, data: {} }
  Ask:
    emit:
      - type: attention.requested
        data:
          kind: permission
          prompt: May I?
          options: [{ id: allow, label: Allow }, { id: deny, label: Deny }]
          respond_via: [control]
    hold:
      kind: permission
      timeout_ms: 60000
      decisions: { allow: { ok: true }, deny: { ok: false } }
  End:
    emit:
      - type: session.ended
        session_end: true
        data: { reason: '=fail ? $error("injected") : "normal"' }
replies: { neutral: "" }
capabilities: {}
posture: control
`;
const descriptor = compileDescriptor('demo.yaml', text).descriptor!;

const cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

function open() {
  const t = tempDir();
  cleanups.push(t.done);
  const d = Daemon.open({ descriptor, logDir: t.dir, attentionTimeoutMs: 60_000 });
  cleanups.push(() => d.close());
  d.attach(new MemoryLink(), true);
  return { d, dir: t.dir };
}

describe('one pass per firing', () => {
  it('the payload reaches the mapper once; a failure names its session, so nobody asks the mapper again', async () => {
    const { d, dir } = open();
    const hookNameOf = vi.spyOn(d.mapper, 'hookNameOf');
    const sessionOf = vi.spyOn(d.mapper, 'vendorSessionOf');
    await d.handle({ payload: { hook: 'Start', sid: 's1' } });
    const failed = await d.handle({ payload: { hook: 'End', sid: 's1', fail: true } });
    expect(failed.error).toBe('mapping-error');
    expect(hookNameOf).toHaveBeenCalledTimes(2); // once per firing, inside map()
    expect(sessionOf).not.toHaveBeenCalled();
    const diag = readLogs(dir).find((e) => e.type === 'x.demo.error.mapping_failed');
    expect(diag?.session).toBe('s1');
    // a hook nobody describes fails before its identity: its session is read once, for the diagnostic
    const unknown = await d.handle({ payload: { hook: 'Nope', sid: 's1' } });
    expect(unknown.error).toBe('unknown-hook');
    expect(sessionOf).toHaveBeenCalledTimes(1);
    expect(
      readLogs(dir)
        .filter((e) => e.type === 'x.demo.error.mapping_failed')
        .map((e) => e.session),
    ).toEqual(['s1', 's1']);
  });

  it('a session end closes the held request in its own events; a failed one leaves the hold open', async () => {
    const { d, dir } = open();
    await d.handle({ payload: { hook: 'Start', sid: 's1' } });
    const held = d.handle({ payload: { hook: 'Ask', sid: 's1' } });
    await until('the hold', () => d.pending().length === 1);
    const failed = await d.handle({ payload: { hook: 'End', sid: 's1', fail: true } });
    expect(failed.error).toBe('mapping-error');
    expect(d.pending()).toHaveLength(1); // nothing of the failed firing happened, the hold included
    expect(readLogs(dir).filter((e) => e.type === 'attention.resolved')).toEqual([]);
    await d.handle({ payload: { hook: 'End', sid: 's1' } });
    expect((await held).body).toBe(''); // the agent's own dialog decides: the neutral bytes
    expect(d.pending()).toEqual([]);
    const evs = readLogs(dir).filter((e) => !e.type.startsWith('x.'));
    const req = evs.find((e) => e.type === 'attention.requested')!;
    expect(evs.map((e) => e.type)).toEqual(['session.started', 'attention.requested', 'attention.resolved', 'session.ended']);
    expect(evs[2]).toMatchObject({ subject: req.id, cause: req.id, data: { resolution: 'dismissed' } });
    expect(validateStream(readLogs(dir))).toEqual([]);
  });
});
