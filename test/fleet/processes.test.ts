// The fleet as two operating-system processes (issue 39): two `hookmap up
// --config` child processes on one NATS JetStream stream (real nats-server
// -js), each with its own home, token file and hook key, as a person starts
// them on two machines. Nothing is shared but the stream: no module state,
// no daemon object, no in-process shortcut that one-door.test.ts (both ups in
// the test's own process) could hide. The phone's push device and a Telegram
// channel are configured on A only (its up config file); a Claude Code
// PermissionRequest held on B reaches A's push service and A's chat, a tap
// on A's card settles B's hook with the allow bytes of
// vendors/claude-code.yaml, an "Allow always" from A's notification answers
// B's next identical request on B, and `hookmap sessions` on A lists B's
// session.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hookKeyHeaders } from '../../engine/runtime/auth/hook-key.mjs';
import { readLogs, until } from '../runtime/daemon/helpers.ts';
import { runCli } from '../helpers/cli.ts';
import { startPushService, type TestPushService } from '../helpers/push-service.ts';
import { startTelegram, type TelegramStandIn } from '../helpers/telegram-api.ts';
import { NATS_MISSING, NatsServer } from './nats.ts';

const BIN = fileURLToPath(new URL('../../bin/hookmap.mjs', import.meta.url));
const TOKEN = 'fleet-processes-token-0123456789';
const ALEX = 4242;
const ALLOW = '{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}';

interface Machine {
  home: string;
  url: string;
  child: ChildProcess;
  err: () => string;
}

describe.skipIf(!!NATS_MISSING)('the fleet as two processes (nats-server -js)', () => {
  let nats: NatsServer;
  let ps: TestPushService;
  let tg: TelegramStandIn;
  let project: string;
  const machines: Machine[] = [];
  let a: Machine;
  let b: Machine;

  /** `hookmap up --port 0 --config <home>/up.yaml` in a new process; resolves once /healthz says every link is ready. */
  const machine = async (name: string, config: (home: string) => string): Promise<Machine> => {
    const home = mkdtempSync(join(tmpdir(), `hookmap-fleet-${name}-`));
    writeFileSync(join(home, 'token'), `${TOKEN}\n`, { mode: 0o600 });
    writeFileSync(join(home, 'up.yaml'), config(home));
    const child = spawn(process.execPath, [BIN, 'up', '--port', '0', '--config', join(home, 'up.yaml')], {
      env: { ...process.env, HOOKMAP_HOME: home, HOOKMAP_AUTOSTART: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    child.stderr!.on('data', (c) => (err += c));
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout!.on('data', (c) => {
        out += c;
        if (out.includes('\n')) resolve(out.split('\n')[0].trim());
      });
      child.once('exit', (code) => reject(new Error(`up ${name} exited ${code} before listening: ${err}`)));
    });
    const m = { home, url, child, err: () => err };
    machines.push(m);
    const headers = { authorization: `Bearer ${TOKEN}` };
    await until(`${name}: every link ready`, async () => (await (await fetch(`${url}/healthz`, { headers })).json()).relay === true, 30_000);
    return m;
  };
  const backplane = () => `backplane: { url: "${nats.url}", stream: PROC${process.pid}, prefix: proc${process.pid} }\n`;

  beforeAll(async () => {
    nats = await NatsServer.start();
    ps = await startPushService();
    tg = await startTelegram();
    project = mkdtempSync(join(tmpdir(), 'hookmap-fleet-proj-'));
    mkdirSync(join(project, '.git'));
    a = await machine('a', (home) => {
      writeFileSync(join(home, 'telegram-token'), `${tg.token}\n`, { mode: 0o600 });
      return (
        'agents: { claude-code: { attention_timeout_ms: 20000 } }\n' +
        backplane() +
        'push: { delay_ms: 0, capture: redacted }\n' +
        'channels:\n' +
        `  telegram: { token_file: ${join(home, 'telegram-token')}, chat_ids: [${ALEX}], user_ids: [${ALEX}], users: { "${ALEX}": alex }, api_root: "${tg.url}" }\n`
      );
    });
    b = await machine('b', () => 'agents: { claude-code: { attention_timeout_ms: 20000 } }\n' + backplane());
    const res = await fetch(`${a.url}/push/devices`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ subscription: ps.device('phone').subscription, name: 'phone' }),
    });
    expect(res.status, await res.clone().text()).toBe(200);
    await until('long polling', () => tg.calls.some((c) => c.method === 'getUpdates') || undefined);
  }, 90_000);

  afterAll(async () => {
    for (const m of machines) {
      if (m.child.exitCode === null && m.child.signalCode === null) {
        const gone = new Promise((r) => m.child.once('exit', r));
        m.child.kill('SIGTERM');
        await Promise.race([gone, new Promise((r) => setTimeout(r, 5000))]);
        if (m.child.exitCode === null && m.child.signalCode === null) m.child.kill('SIGKILL');
      }
      rmSync(m.home, { recursive: true, force: true });
    }
    await tg?.close();
    await ps?.close();
    await nats?.stop();
    if (project) rmSync(project, { recursive: true, force: true });
  });

  const logB = () => join(b.home, 'logs', 'claude-code');
  /** A PermissionRequest as Claude Code's HTTP hook sends it to B (with B's hook key: a local process without it is refused). */
  const permission = (session: string, command: string) =>
    fetch(`${b.url}/hooks/claude-code`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...hookKeyHeaders(b.home) },
      body: JSON.stringify({
        hook_event_name: 'PermissionRequest',
        session_id: session,
        cwd: project,
        permission_mode: 'default',
        tool_name: 'Bash',
        tool_input: { command },
        permission_suggestions: [],
      }),
    });
  const requestOf = (session: string) =>
    until(`request of ${session}`, () => readLogs(logB()).find((e) => e.type === 'attention.requested' && e.session === session));
  const pushFor = (id: string) => until(`the push of ${id}`, () => ps.received.find((r) => r.message.request === id && r.message.type === 'request'));
  const cardsFor = (session: string) => tg.sent.filter((m) => m.text.includes(`session ${session.slice(0, 12)}`));
  const button = (card: { reply_markup?: any }, label: string) =>
    card.reply_markup.inline_keyboard.flat().find((x: any) => x.text === label).callback_data as string;

  it("B's held request reaches A's phone and chat; a tap on A's card settles B's hook with the allow bytes", async () => {
    // B's hook route wants B's hook key: A's key (another machine's) is not it
    const foreign = await fetch(`${b.url}/hooks/claude-code`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...hookKeyHeaders(a.home) },
      body: JSON.stringify({ hook_event_name: 'SessionStart', session_id: 'proc-foreign', cwd: project, source: 'startup' }),
    });
    expect(foreign.status).toBe(403);
    const held = permission('proc-1', 'ls -la');
    const req = await requestOf('proc-1');
    const pushed = await pushFor(req.id);
    expect(pushed.message.title).toMatch(/^claude-code wants to run Bash in hookmap-fleet-proj-/);
    expect(pushed.message.actions.map((x: any) => x.action)).toEqual(['allow', 'deny', 'always']);
    const card = await until('the card', () => cardsFor('proc-1')[0]);
    // a tap from a stranger on A's card is refused and settles nothing
    tg.tap({ from: 999, chat: ALEX, message_id: card.message_id, data: button(card, 'Allow') });
    await new Promise((r) => setTimeout(r, 500));
    expect(readLogs(logB()).some((e) => e.type === 'attention.answered' && e.subject === req.id)).toBe(false);
    tg.tap({ from: ALEX, chat: ALEX, message_id: card.message_id, data: button(card, 'Allow') });
    expect(await (await held).text()).toBe(ALLOW);
    const answered = await until('answered', () => readLogs(logB()).find((e) => e.type === 'attention.answered' && e.subject === req.id));
    expect((answered.data as any).by).toBe('alex');
    // the same button again (a replay) answers nothing more
    tg.tap({ from: ALEX, chat: ALEX, message_id: card.message_id, data: button(card, 'Allow') });
    await new Promise((r) => setTimeout(r, 500));
    expect(readLogs(logB()).filter((e) => e.type === 'attention.answered' && e.subject === req.id)).toHaveLength(1);
  });

  it("\"Allow always\" from A's notification is saved in B's rule book: B's next identical request is answered by it", async () => {
    const held = permission('proc-2', 'make test');
    const req = await requestOf('proc-2');
    const pushed = await pushFor(req.id);
    const r = await fetch(`${a.url}/push/action`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ credential: pushed.message.credential, action: 'always', request: req.id }),
    });
    const body = await r.json();
    expect(r.status, JSON.stringify(body)).toBe(200);
    expect(await (await held).text()).toBe(ALLOW);
    expect(await (await permission('proc-3', 'make test')).text()).toBe(ALLOW);
    const third = await requestOf('proc-3');
    const by = await until('answered by the rule', () => readLogs(logB()).find((e) => e.type === 'attention.answered' && e.subject === third.id));
    expect((by.data as any).by).toBe(`rule:${body.rule}`);
  });

  it("`hookmap sessions` on A lists B's sessions", async () => {
    const env = { ...process.env, HOOKMAP_HOME: a.home, HOOKMAP_URL: a.url };
    const out = await until(
      "B's sessions in A's history",
      async () => {
        const r = await runCli(['sessions', '--json'], env);
        const ids = r.code === 0 ? (JSON.parse(r.stdout) as { session: string }[]).map((s) => s.session) : [];
        return ['proc-1', 'proc-2', 'proc-3'].every((s) => ids.includes(s)) ? ids : undefined;
      },
      20_000,
    );
    expect(out).toEqual(expect.arrayContaining(['proc-1', 'proc-2', 'proc-3']));
    expect(a.err()).not.toMatch(/Error|unhandled/i);
  });
});
