// A free-text answer and form values, as the relay fans them out (issue 10
// "the relay gates what it fans out"): the command copy watchers get passes
// the redaction pipeline and is labelled `redacted`; below that level the
// text is gone and only structural values stay (AEP downlevel fixture DL1,
// DL2; engine/runtime/relay/command-copy.ts, engine/core/capture/gate.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { downLevelEvent } from '../../engine/core/capture/gate.ts';
import { watcherCopy } from '../../engine/runtime/relay/command-copy.ts';
import { Redactor } from '../../engine/core/capture/redact.ts';
import { makeCommand, openSocket, sendCommand } from '../../engine/runtime/relay/client.ts';
import { SseClient } from '../runtime/relay/helpers.ts';
import { until, upStack, type UpStack } from './helpers.ts';

const REDACTOR = new Redactor();

const SECRET = 'hunter2-Xq9';
const GH = 'ghp_0123456789abcdefghijABCDEFGHIJ012345';
const TEXT = `no: run it with --password ${SECRET} and token ${GH} instead`;

describe('the command copy watchers get', () => {
  const values = { name: `svc password=${SECRET}`, staged: true, replicas: 3, regions: ['1', '3'], db: 'MariaDB' };
  const cmd = () => makeCommand('control.attention.respond', 's1', { subject: 'R1', data: { answer: { option: 'deny', text: TEXT, values } } });

  it('is redacted and labelled redacted; the target still gets the original bytes', () => {
    const c = cmd();
    const raw = JSON.stringify(c);
    const copy = watcherCopy({ ev: c, raw }, {}, REDACTOR);
    expect(copy.ev.capture).toBe('redacted');
    expect(copy.raw).not.toContain(SECRET);
    expect(copy.raw).not.toContain(GH);
    expect((copy.ev.data as any).answer.text).toContain('[REDACTED:secret]');
    expect((copy.ev.data as any).answer.values).toMatchObject({ staged: true, replicas: 3, regions: ['1', '3'], db: 'MariaDB' });
    expect(raw).toContain(SECRET); // the original held event is untouched
  });

  it('down-levels to metadata without text and with structural values only (DL1/DL2)', () => {
    const c = cmd();
    const low = downLevelEvent(watcherCopy({ ev: c, raw: JSON.stringify(c) }, {}, REDACTOR).ev as any, 'metadata') as any;
    expect(low.capture).toBe('metadata');
    expect(low.data).toEqual({ answer: { option: 'deny', values: { staged: true, replicas: 3 } } });
    const answered = {
      aep: '0.1',
      id: 'DL1',
      type: 'attention.answered',
      subject: 'R1',
      time: '2026-07-03T10:00:00Z',
      source: 'aep://h/agent/a',
      agent: 'a',
      session: 's1',
      seq: 0,
      capture: 'redacted',
      data: {
        answer: { option: '2', text: 'SECRET free text', values: { name: 'billing-api', staged: true, replicas: 3, regions: ['1', '3'], db: 'MariaDB' } },
        via: 'control',
      },
    };
    expect(downLevelEvent(answered, 'metadata').data).toEqual({ answer: { option: '2', values: { staged: true, replicas: 3 } }, via: 'control' });
    expect(downLevelEvent(answered, 'none').data).toBeUndefined();
  });

  it('a command that declares metadata is held to it; a vendor command without a schema keeps no fields', () => {
    const c = { ...cmd(), capture: 'metadata' as const };
    const m = watcherCopy({ ev: c, raw: JSON.stringify(c) }, {}, REDACTOR);
    expect(m.ev.capture).toBe('metadata');
    expect(m.raw).not.toContain(SECRET);
    const v = makeCommand('x.acme.control.say', 's1', { data: { words: `password=${SECRET}` } });
    const vc = watcherCopy({ ev: v, raw: JSON.stringify(v) }, {}, REDACTOR);
    expect(vc.raw).not.toContain(SECRET);
  });
});

describe('a free-text answer through hookmap up', () => {
  let s: UpStack;
  beforeAll(async () => {
    s = await upStack({ attentionTimeoutMs: 60_000 });
    await until(
      'the daemon hello',
      async () => (await (await fetch(`${s.up.url}/healthz`, { headers: { authorization: `Bearer ${s.token}` } })).json()).relay === true,
    );
  });
  afterAll(() => s?.done());

  it('reaches no subscriber unredacted, at any level; below redacted the text is gone', async () => {
    const session = 'fwd-1';
    const auth = { authorization: `Bearer ${s.token}` };
    const levels = ['none', 'metadata', 'redacted', 'full', undefined] as const;
    const subs = await Promise.all(
      levels.map((capture) => SseClient.open(s.up.url, { filter: JSON.stringify({ session }), ...(capture ? { capture } : {}) }, auth)),
    );
    try {
      const reply = fetch(`${s.up.url}/hooks/codex`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          hook_event_name: 'PermissionRequest',
          session_id: session,
          turn_id: 't1',
          tool_name: 'Bash',
          tool_input: { command: 'deploy' },
        }),
      }).then((r) => r.text());
      const request = await until('the request', () => subs[3].events.find((e) => e.type === 'attention.requested'));
      const sock = await openSocket(s.up.url, s.token, 'consumer');
      try {
        const cmd = makeCommand('control.attention.respond', session, { subject: request.id, data: { answer: { text: TEXT } } });
        const r = await sendCommand(sock, cmd, { ackWindowMs: 10_000, outcomeWindowMs: 10_000, isFinal: (e) => e.type === 'attention.resolved' });
        expect(r.kind).toBe('acked');
      } finally {
        sock.close();
      }
      // the agent itself gets the text it was given (the decision template), whatever watchers see
      expect(await reply).toContain(SECRET);
      for (const [i, sub] of subs.entries()) {
        const level = levels[i];
        await until(`attention.resolved at ${level}`, () => sub.events.some((e) => e.type === 'attention.resolved'));
        const wire = sub.msgs.map((m) => m.raw ?? '').join('\n');
        expect(wire, `capture ${level}`).not.toContain(SECRET);
        expect(wire, `capture ${level}`).not.toContain(GH);
        const copy = sub.events.find((e) => e.type === 'control.attention.respond');
        const answered = sub.events.find((e) => e.type === 'attention.answered');
        expect(copy, `the command copy at ${level}`).toBeDefined();
        if (level === 'none') expect(copy.data).toBeUndefined();
        else if (level === 'metadata') {
          expect(copy.capture).toBe('metadata');
          expect(copy.data.answer.text).toBeUndefined();
          expect(answered.data.answer.text).toBeUndefined();
        } else {
          expect(copy.capture).toBe('redacted');
          expect(copy.data.answer.text).toContain('[REDACTED:secret]');
          expect(answered.data.answer.text).toContain('[REDACTED:secret]');
        }
      }
    } finally {
      for (const x of subs) x.close();
    }
  }, 60_000);
});
