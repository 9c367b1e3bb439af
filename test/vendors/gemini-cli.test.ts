// Envelope-level facts of the Gemini CLI descriptor the fixture format does
// not compare: synthesized run ids, cause links, severity, the observe-only
// posture (nothing is ever held) and the neutral reply.
import { describe, expect, it } from 'vitest';
import { loadVendor } from '../../engine/descriptor/registry.ts';
import { Mapper } from '../../engine/map/mapper.ts';
import type { AepEvent } from '../../engine/map/envelope.ts';

const d = loadVendor('gemini-cli');
const base = (hook: string, extra: Record<string, unknown> = {}) => ({
  session_id: 'g_env_1',
  transcript_path: '/home/dev/.gemini/tmp/x/chats/session.json',
  cwd: '/home/dev/proj',
  hook_event_name: hook,
  timestamp: '2026-11-29T10:00:00.000Z',
  ...extra,
});

async function fire(m: Mapper, hook: string, extra: Record<string, unknown> = {}): Promise<AepEvent[]> {
  const r = await m.map(undefined, base(hook, extra));
  expect(r.hold).toBeUndefined();
  expect(r.reply).toBe('{}');
  return r.events;
}

describe('gemini-cli: synthesized runs', () => {
  it('one run per BeforeAgent/AfterAgent pair; run.finished is cause-linked to run.started', async () => {
    const m = new Mapper(d);
    const [start] = await fire(m, 'BeforeAgent', { prompt: 'hi' });
    expect(start.type).toBe('run.started');
    expect(typeof start.run).toBe('string');
    const [req] = await fire(m, 'BeforeTool', { tool_name: 'read_file', tool_input: { absolute_path: '/home/dev/proj/a' } });
    expect(req.run).toBe(start.run);
    const [model] = await fire(m, 'BeforeModel', { llm_request: { model: 'gemini-2.5-pro' } });
    expect(model.run).toBe(start.run);
    const [fin] = await fire(m, 'AfterAgent', { prompt: 'hi', prompt_response: 'ok', stop_hook_active: false });
    expect(fin.type).toBe('run.finished');
    expect(fin.run).toBe(start.run);
    expect(fin.cause).toBe(start.id);
    // between turns: no run on the envelope
    const [between] = await fire(m, 'Notification', { notification_type: 'ToolPermission', message: 'm', details: {} });
    expect(between.run).toBeUndefined();
    const [next] = await fire(m, 'BeforeAgent', { prompt: 'again' });
    expect(next.run).toBeDefined();
    expect(next.run).not.toBe(start.run);
    expect(next.cause).toBeUndefined();
  });

  it('a run left open is closed as run.cancelled (cause: its start) before the next opens', async () => {
    const m = new Mapper(d);
    const [first] = await fire(m, 'BeforeAgent', { prompt: 'one' });
    const [cancelled, second] = await fire(m, 'BeforeAgent', { prompt: 'two' });
    expect(cancelled.type).toBe('run.cancelled');
    expect(cancelled.run).toBe(first.run);
    expect(cancelled.cause).toBe(first.id);
    expect(second.type).toBe('run.started');
    expect(second.run).not.toBe(first.run);
    const [fin] = await fire(m, 'AfterAgent', { prompt: 'two', prompt_response: 'ok', stop_hook_active: false });
    expect(fin.run).toBe(second.run);
    expect(fin.cause).toBe(second.id);
  });

  it('SessionEnd closes an open run first, then ends the session (state released)', async () => {
    const m = new Mapper(d);
    const [start] = await fire(m, 'BeforeAgent', { prompt: 'x' });
    const [cancelled, ended] = await fire(m, 'SessionEnd', { reason: 'exit' });
    expect(cancelled.type).toBe('run.cancelled');
    expect(cancelled.cause).toBe(start.id);
    expect(ended.type).toBe('session.ended');
    expect(ended.run).toBeUndefined();
    expect(m.state.has('g_env_1')).toBe(false);
  });

  it('sequences every event of a session in order', async () => {
    const m = new Mapper(d);
    const evs = [
      ...(await fire(m, 'SessionStart', { source: 'startup' })),
      ...(await fire(m, 'BeforeAgent', { prompt: 'x' })),
      ...(await fire(m, 'AfterAgent', { prompt: 'x', prompt_response: 'y', stop_hook_active: false })),
    ];
    expect(evs.map((e) => e.seq)).toEqual([0, 1, 2]);
    expect(new Set(evs.map((e) => e.session))).toEqual(new Set(['g_env_1']));
  });
});

describe('gemini-cli: surface facts', () => {
  it('AfterModel (per streamed chunk) is debug and not registered by default; other model-plane hooks are not debug', async () => {
    const m = new Mapper(d);
    const [after] = await fire(m, 'AfterModel', { llm_request: { model: 'm' }, llm_response: { candidates: [] } });
    expect(after.severity).toBe('debug');
    expect(d.hooks.get('AfterModel')!.register).toBe(false);
    const [before] = await fire(m, 'BeforeModel', { llm_request: { model: 'm' } });
    expect(before.severity).toBeUndefined();
  });

  it('observe-only: no hook holds, Notification never becomes attention.requested', async () => {
    expect(d.posture).toBe('observe-only');
    for (const h of d.hooks.values()) expect(h.holds, h.name).toEqual([]);
    const m = new Mapper(d);
    const evs = await fire(m, 'Notification', { notification_type: 'ToolPermission', message: 'write_file wants to modify a.ts', details: { tool_name: 'write_file' } });
    expect(evs.map((e) => e.type)).toEqual(['progress.status']);
  });

  it('states the PreCompress deviation', () => {
    expect(d.hooks.get('PreCompress')!.deviation).toMatch(/pre/i);
  });

  it('every hook and the fallback answer the neutral `{}`', async () => {
    const m = new Mapper(d);
    for (const hook of [...d.hooks.keys(), 'SomeFutureHook']) {
      const r = await m.map(undefined, base(hook, { tool_name: 't', tool_input: {}, tool_response: {}, llm_request: { model: 'm' }, prompt: 'p', source: 'startup', reason: 'exit', trigger: 'auto', notification_type: 'ToolPermission', message: 'm' }));
      expect(r.reply, hook).toBe('{}');
      expect(r.exitCode, hook).toBe(0);
    }
  });
});
