// What an ntfy notification carries at the default capture (issue 24): the
// agent, tool, project folder and kind, never the command; the action
// buttons carry only one-time credentials (no token, no sign-in link).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NtfyChannel } from '../../../engine/person/channels/ntfy.ts';
import type { Moment } from '../../../engine/person/push/moments.ts';
import { startRecorder, type Recorder } from '../../helpers/http-recorder.ts';

let ntfy: Recorder;
beforeAll(async () => {
  ntfy = await startRecorder();
});
afterAll(() => ntfy?.close());

describe('ntfy at the default capture', () => {
  it('publishes no command text, and its actions carry one-time credentials only', async () => {
    const said: string[] = [];
    let n = 0;
    const ch = new NtfyChannel(
      { server: ntfy.url, topic: 'hookmap-test', principal: 'alex' },
      { answer: undefined as never, moments: undefined as never, credential: () => `hma_credential_${++n}`, say: (l) => said.push(l) },
      'https://laptop.tail1234.ts.net',
    );
    await ch.start();
    const m: Moment = {
      id: 'req-1',
      session: 'sess-1',
      agent: 'claude-code',
      kind: 'permission',
      expires: Date.now() + 50_000,
      tool: 'Bash',
      project: 'notes-app',
      text: 'curl -H "Authorization: Bearer sk-live-9999" https://api.example.com',
      redact: (t) => t.replace(/sk-live-\d+/, '[REDACTED]'),
      rulable: true,
      paths: 0,
    };
    await ch.request(m);
    const got = ntfy.got[0];
    expect(got.body.title).toBe('claude-code wants to run Bash in notes-app');
    expect(got.body.message).toMatch(/^Permission request\nsession sess-1 · on .+ · \d+ s to answer$/);
    expect(got.raw).not.toMatch(/curl|sk-live|api\.example|REDACTED/);
    expect(got.body.actions.map((a: any) => [a.label, a.url, JSON.parse(a.body).credential])).toEqual([
      ['Allow', 'https://laptop.tail1234.ts.net/push/action', 'hma_credential_1'],
      ['Deny', 'https://laptop.tail1234.ts.net/push/action', 'hma_credential_2'],
    ]);
    expect(got.raw).not.toMatch(/hmk_|login=/);
    expect(said).toEqual([]);
  });
});
