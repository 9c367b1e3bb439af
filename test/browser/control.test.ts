// Steer and stop in the web inbox: shown only on a session whose live
// emitter declares the verb in its hello (`x.<agent>.control.instruct`,
// `control.cancel`; read from the relay roster, AEP-0003 §4.1), hidden
// elsewhere; what the page sends is exactly the AEP-0004 command, and what it
// shows comes from the stream (the ack, then the outcome event cause-linked
// to the command). The emitter here is a WebSocket client speaking AEP as a
// daemon would, so the test does not depend on which agents implement steering.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import WebSocket from 'ws';
import { launch, signedIn, skipBrowser, stack, TOKEN, until, type Stack } from './harness.ts';

const AGENT = 'agent-x';
const INSTRUCT = `x.${AGENT}.control.instruct`;

class FakeEmitter {
  readonly commands: any[] = [];
  private seq = 0;
  private constructor(
    private readonly ws: WebSocket,
    private readonly session: string,
  ) {}

  static async open(url: string, session: string, accepts: string[]): Promise<FakeEmitter> {
    const ws = new WebSocket(`${url.replace(/^http/, 'ws')}/socket`, { headers: { authorization: `Bearer ${TOKEN}` } });
    await new Promise<void>((resolve, reject) => {
      ws.on('open', () =>
        ws.send(
          JSON.stringify({
            type: 'hello',
            versions: ['0.1'],
            role: 'emitter',
            identity: { agent: AGENT, instance: `test/${session}` },
            capabilities: { control: { accepts, ack_window_ms: 10_000 } },
          }),
        ),
      );
      ws.once('message', () => resolve());
      ws.on('error', reject);
    });
    const e = new FakeEmitter(ws, session);
    ws.on('message', (m) => {
      const msg = JSON.parse(String(m));
      if (msg.type === 'ping') return ws.send(JSON.stringify({ type: 'pong', t: msg.t }));
      if (typeof msg.type === 'string' && msg.type.includes('.')) e.commands.push(msg);
    });
    e.emit('session.started', {});
    e.emit('run.started', { trigger: 'user' }, { run: 'r1' });
    return e;
  }

  emit(type: string, data: object, extra: object = {}): any {
    const ev = {
      aep: '0.1',
      id: `${this.session}-${this.seq}`,
      type,
      time: new Date().toISOString(),
      source: `aep://test/agent/${AGENT}/session/${this.session}`,
      agent: AGENT,
      session: this.session,
      seq: this.seq++,
      epoch: 0,
      data,
      ...extra,
    };
    this.ws.send(JSON.stringify(ev));
    return ev;
  }

  close(): void {
    this.ws.close();
  }
}

describe.skipIf(!!skipBrowser)('web inbox: steer and stop', () => {
  let browser: Browser;
  let s: Stack;
  let page: Page;
  const emitters: FakeEmitter[] = [];

  beforeAll(async () => {
    browser = await launch();
    s = await stack({ agents: [] });
    ({ page } = await signedIn(browser, s));
  }, 60_000);

  afterAll(async () => {
    for (const e of emitters) e.close();
    await browser?.close();
    await s?.close();
  });

  it('appear where the session declares them; the instruction and the cancel go out as AEP commands; the page reports what the stream confirms', async () => {
    const e = await FakeEmitter.open(s.url, 'steer-1', ['control.attention.respond', 'control.cancel', INSTRUCT]);
    emitters.push(e);
    await page.goto(`${s.url}/#/s/steer-1`);
    const steer = page.getByLabel('Steer: an instruction the agent reads on its next turn');
    await steer.waitFor();
    await steer.fill('also run the integration tests');
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    const instruct = await until('the instruction at the emitter', () => e.commands.find((c) => c.type === INSTRUCT));
    expect(instruct).toMatchObject({ type: INSTRUCT, session: 'steer-1', agent: 'hookmap-inbox', data: { text: 'also run the integration tests' } });
    expect(instruct.seq).toBeUndefined(); // a foreign emitter's command carries no seq (AEP-0004 §2.2)
    const status = page.locator('.controls .outcome').first();
    await expect.poll(() => status.textContent()).toBe('Instruction: Sent: waiting for the agent to acknowledge…');
    e.emit('control.accepted', {}, { cause: instruct.id });
    await expect.poll(() => status.textContent()).toBe("Instruction: Accepted: queued for the agent's next turn…");
    e.emit(`x.${AGENT}.instruction.delivered`, { queued_ms: 120 }, { cause: instruct.id });
    await expect.poll(() => status.textContent()).toBe('Instruction: Delivered to the agent');

    await page.getByRole('button', { name: 'Stop…' }).click();
    await page.getByRole('group', { name: 'Confirm stop' }).getByRole('button', { name: 'Stop', exact: true }).click();
    const cancel = await until('the cancel at the emitter', () => e.commands.find((c) => c.type === 'control.cancel'));
    expect(cancel).toMatchObject({ session: 'steer-1', run: 'r1', data: { scope: 'run' } });
    e.emit('control.accepted', {}, { cause: cancel.id });
    e.emit('run.cancelled', {}, { run: 'r1', cause: cancel.id });
    await expect.poll(() => page.locator('.controls .outcome').last().textContent()).toBe('Stop: Run cancelled');
  });

  it('a card carries the agent’s last words (AEP-0007) and the task where captured, and works with any AEP emitter', async () => {
    const e = await FakeEmitter.open(s.url, 'said-1', ['control.attention.respond']);
    emitters.push(e);
    e.emit(
      'message.agent.replied',
      { message_id: 'm1', text: 'The schema is ready; next I apply the migration to staging.' },
      { subject: 'm1', run: 'r1', capture: 'redacted' },
    );
    const req = e.emit(
      'attention.requested',
      {
        kind: 'permission',
        prompt: 'Permission requested: migrate staging',
        options: [
          { id: 'allow', label: 'Allow' },
          { id: 'deny', label: 'Deny' },
        ],
        respond_via: ['control'],
        expires_at: new Date(Date.now() + 60_000).toISOString(),
      },
      { subject: 'migrate', run: 'r1', capture: 'redacted' },
    );
    await page.goto(`${s.url}/#/`);
    const card = page.locator(`main [data-card="${req.id}"]`);
    await card.waitFor();
    expect(await card.locator('.agent-said').textContent()).toBe('The schema is ready; next I apply the migration to staging.');
    await card.locator('[data-option="deny"]').click();
    const cmd = await until('the answer at the emitter', () => e.commands.find((c) => c.type === 'control.attention.respond'));
    expect(cmd).toMatchObject({ subject: req.id, session: 'said-1', data: { answer: { option: 'deny' } } });
    e.emit('control.accepted', {}, { cause: cmd.id });
    await expect.poll(() => card.locator('[data-outcome]').textContent()).toBe('Accepted: the agent is applying your answer…');
    const ans = e.emit('attention.answered', { answer: { option: 'deny' }, via: 'control', by: 'tester' }, { subject: req.id, cause: cmd.id, run: 'r1' });
    e.emit('attention.resolved', { resolution: 'answered', latency_ms: 900 }, { subject: req.id, cause: ans.id, run: 'r1' });
    await expect.poll(() => card.locator('[data-outcome]').textContent()).toBe('Answered by tester: Deny. Resolved.');
  });

  it('are hidden where the session does not declare them', async () => {
    const e = await FakeEmitter.open(s.url, 'plain-1', ['control.attention.respond']);
    emitters.push(e);
    await page.goto(`${s.url}/#/s/plain-1`);
    await page.locator('.timeline [data-type="run.started"]').waitFor();
    await page.waitForTimeout(500); // the roster has answered by now
    expect(await page.locator('.controls').count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Stop…' }).count()).toBe(0);
  });

  it('a refusal by the relay is the command’s outcome (the emitter went away: no-route)', async () => {
    const e = await FakeEmitter.open(s.url, 'gone-1', ['control.cancel']);
    await page.goto(`${s.url}/#/s/gone-1`);
    await page.getByRole('button', { name: 'Stop…' }).waitFor();
    await page.waitForTimeout(600); // the roster re-read after the session's first events has come and gone
    const claims = async () => ((await (await fetch(`${s.url}/healthz`, { headers: { authorization: `Bearer ${TOKEN}` } })).json()) as any).claims as number;
    const before = await claims();
    e.close();
    await until('the claim to go', async () => (await claims()) === before - 1);
    await page.getByRole('button', { name: 'Stop…' }).click();
    await page.getByRole('group', { name: 'Confirm stop' }).getByRole('button', { name: 'Stop', exact: true }).click();
    await expect.poll(() => page.locator('.controls .outcome').last().textContent()).toMatch(/^Stop: Not delivered \(no-route\): /);
  });
});
