// The watch through a whole `hookmap up` (issue 43, docs/watch.md), Claude
// Code's hooks posted as the agent posts them, the Telegram stand-in as the
// chat and the inbox's own SSE stream as the inbox: (a) a Notification
// permission_prompt with no held request raises an attention answered at the
// agent, on the chat (no buttons) and in the inbox stream, and the tool's
// completion clears it everywhere; (b) a held PermissionRequest whose window
// ends while its call is open raises "waits at its terminal ... hookmap's
// window ended" within 5 s, cleared by the tool's completion; (c) a sign a
// held card covers raises nothing; (d) a call open past call_ms raises one
// attention, not one per tick; many sessions and signs stay one per session,
// a malformed Notification never stops the next one, and a forged watch
// attention never reaches the chat.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readLogs, until } from '../../runtime/daemon/helpers.ts';
import { upStack, type UpStack } from '../../helpers/up-stack.ts';
import { startTelegram, type TelegramStandIn } from '../../helpers/telegram-api.ts';
import { newId } from '../../../engine/core/map/envelope.ts';
import { runCli } from '../../helpers/cli.ts';

let s: UpStack;
let tg: TelegramStandIn;
const ALEX = 111;
const WINDOW_MS = 1500;
const CALL_MS = 4000;
const inbox: any[] = [];
const stop = new AbortController();

/** The inbox's summary feed (web/src/model/connection.ts): the relay's SSE /stream, every attention.* from the start. */
async function readInbox(): Promise<void> {
  const filter = JSON.stringify({ type: ['session.*', 'run.*', 'attention.*', 'message.*', 'control.*'] });
  const res = await fetch(`${s.url}/stream?${new URLSearchParams({ filter, from: 'all' })}`, {
    headers: { authorization: `Bearer ${s.token}` },
    signal: stop.signal,
  });
  expect(res.status).toBe(200);
  const dec = new TextDecoder();
  let buf = '';
  void (async () => {
    try {
      for await (const chunk of res.body as any) {
        buf += dec.decode(chunk, { stream: true });
        let i;
        while ((i = buf.indexOf('\n\n')) >= 0) {
          const block = buf.slice(0, i);
          buf = buf.slice(i + 2);
          const data = block
            .split('\n')
            .filter((l) => l.startsWith('data:'))
            .map((l) => l.slice(5).trim())
            .join('\n');
          if (data) inbox.push(JSON.parse(data));
        }
      }
    } catch {
      /* aborted at the end */
    }
  })();
}

beforeAll(async () => {
  tg = await startTelegram();
  s = await upStack({
    prefix: 'hookmap-watch-',
    hello: true,
    agents: [{ descriptor: 'claude-code', attentionTimeoutMs: WINDOW_MS }],
    push: { delayMs: 0 },
    watch: { enabled: true, callMs: CALL_MS, runMs: 0 },
    setup: (home) => {
      writeFileSync(join(home, 'telegram-token'), `${tg.token}\n`, { mode: 0o600 });
      return {
        channels: { telegram: { tokenFile: join(home, 'telegram-token'), chatIds: [ALEX], userIds: [ALEX], users: { [ALEX]: 'alex' }, apiRoot: tg.url } },
      };
    },
  });
  await until('long polling', () => tg.calls.some((c) => c.method === 'getUpdates') || undefined);
  await readInbox();
}, 30_000);

afterAll(async () => {
  stop.abort();
  await s?.done();
  await tg?.close();
});

const hook = (body: Record<string, unknown>) =>
  fetch(`${s.url}/hooks/claude-code`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
const base = (session: string) => ({ session_id: session, cwd: '/tmp/shop-api', transcript_path: '/tmp/none.jsonl' });
const start = async (session: string) => {
  expect((await hook({ ...base(session), hook_event_name: 'SessionStart', source: 'startup' })).status).toBe(200);
  expect((await hook({ ...base(session), hook_event_name: 'UserPromptSubmit', prompt: 'fix it' })).status).toBe(200);
};
const preTool = (session: string, id: string) =>
  hook({ ...base(session), hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_use_id: id, tool_input: { command: 'ls' } });
const postTool = (session: string, id: string) =>
  hook({ ...base(session), hook_event_name: 'PostToolUse', tool_name: 'Bash', tool_use_id: id, tool_input: { command: 'ls' }, tool_response: { stdout: '' } });
const notify = (session: string, type: string) =>
  hook({ ...base(session), hook_event_name: 'Notification', notification_type: type, message: 'Claude needs your permission to use Bash' });

const ops = (): any[] => readLogs(join(s.logDir, '_operator'));
const raisedFor = (session: string) => ops().filter((e) => e.type === 'attention.requested' && e.data?.watch?.session === session);
const resolvedOf = (id: string) => ops().find((e) => e.type === 'attention.resolved' && e.subject === id);
const cardsFor = (session: string) => tg.sent.filter((m) => m.text.includes(`session ${session.slice(0, 12)}`));

describe('the watch', () => {
  it('(a) a permission_prompt no card asks: an attention answered at the agent, on the chat and in the inbox; the tool finishing clears it', async () => {
    await start('wa-1');
    await preTool('wa-1', 'tu-a');
    expect((await notify('wa-1', 'permission_prompt')).status).toBe(200);
    const [req] = await until('raised', () => (raisedFor('wa-1').length ? raisedFor('wa-1') : undefined));
    expect(req.data).toMatchObject({
      kind: 'permission',
      respond_via: ['oob'],
      prompt: 'claude-code in shop-api waits at its terminal for Bash permission: no hookmap card asks it',
      watch: { sign: 'waiting', agent: 'claude-code', session: 'wa-1', project: 'shop-api', tool: 'Bash' },
    });
    // the sign itself is on the agent's stream, beside the pinned mapping (which emits nothing for permission_prompt)
    const agent = readLogs(join(s.logDir, 'claude-code'));
    expect(agent.filter((e) => e.session === 'wa-1' && e.type === 'x.hookmap.watch.waiting').map((e) => e.data)).toEqual([
      { sign: 'permission_prompt', reason: 'permission', hook: 'Notification' },
    ]);
    expect(agent.some((e) => e.session === 'wa-1' && e.type === 'progress.status')).toBe(false);
    const card = await until('the chat card', () => cardsFor('wa-1')[0]);
    expect(card.text).toMatch(
      /^claude-code waits at its terminal in shop-api\nAnswer at the agent: claude-code in shop-api waits at its terminal for Bash permission: no hookmap card asks it\nsession wa-1 · on .+ · answer at the agent$/,
    );
    expect(card.reply_markup?.inline_keyboard ?? []).toEqual([]);
    await until('in the inbox stream', () => inbox.find((e) => e.id === req.id));
    // answered at the agent: `hookmap answer` refuses it (nothing sent to hookmap's own session)
    const tried = await runCli(['answer', req.id, '--allow'], { ...process.env, HOOKMAP_HOME: s.home, HOOKMAP_URL: s.url });
    expect(tried.code, tried.stderr).toBe(1);
    expect(tried.stderr).toMatch(/is answered at the agent, not through hookmap \(its respond_via has no control\)/);
    // the agent moves on: resolved (auto) on the stream, the card edited
    expect((await postTool('wa-1', 'tu-a')).status).toBe(200);
    const done = await until('resolved', () => resolvedOf(req.id));
    expect(done.data).toEqual({ resolution: 'auto' });
    await until('resolved in the inbox stream', () => inbox.find((e) => e.type === 'attention.resolved' && e.subject === req.id));
    const edit = await until('card edited', () => tg.calls.find((c) => c.method === 'editMessageText' && c.body.message_id === card.message_id));
    expect(edit.body.text).toMatch(/The agent moved on$/);
    expect(raisedFor('wa-1')).toHaveLength(1);
  });

  it("(b, c) a held request covers the sign; its window ending with the call open raises within 5 s; the tool's completion clears it", async () => {
    await start('wb-1');
    await preTool('wb-1', 'tu-b');
    const held = hook({ ...base('wb-1'), hook_event_name: 'PermissionRequest', tool_name: 'Bash', tool_input: { command: 'ls' }, permission_suggestions: [] });
    await until('held', () => readLogs(join(s.logDir, 'claude-code')).find((e) => e.session === 'wb-1' && e.type === 'attention.requested'));
    // (c) the agent's own dialog while hookmap's card is open: covered, nothing raised
    await notify('wb-1', 'permission_prompt');
    await until('the sign logged', () => readLogs(join(s.logDir, 'claude-code')).find((e) => e.session === 'wb-1' && e.type === 'x.hookmap.watch.waiting'));
    expect(raisedFor('wb-1')).toHaveLength(0);
    // (b) the window ends (neutral bytes: the agent's own dialog decides), the call still open
    await held;
    const timeout = await until('timeout', () => readLogs(join(s.logDir, 'claude-code')).find((e) => e.session === 'wb-1' && e.type === 'attention.timeout'));
    const [req] = await until('raised', () => (raisedFor('wb-1').length ? raisedFor('wb-1') : undefined), 5000);
    expect(Date.parse(req.time) - Date.parse(timeout.time)).toBeLessThan(5000);
    expect(req.data.prompt).toBe("claude-code in shop-api waits at its terminal for Bash permission: hookmap's window ended");
    expect(req.cause).toBe(timeout.id);
    await until('the chat card', () => cardsFor('wb-1').find((c) => c.text.includes("hookmap's window ended")));
    // the dialog's own Notification after the window: still one attention for the session
    await notify('wb-1', 'permission_prompt');
    await until(
      'second sign',
      () => readLogs(join(s.logDir, 'claude-code')).filter((e) => e.session === 'wb-1' && e.type === 'x.hookmap.watch.waiting').length === 2,
    );
    await s.up.daemons.get('claude-code')!.flush();
    expect(raisedFor('wb-1')).toHaveLength(1);
    await postTool('wb-1', 'tu-b');
    expect((await until('resolved', () => resolvedOf(req.id))).data.resolution).toBe('auto');
  });

  it('(d) a call open past call_ms raises one attention, not one per tick; its end clears it', async () => {
    await start('wd-1');
    await preTool('wd-1', 'tu-d');
    const [req] = await until('raised', () => (raisedFor('wd-1').length ? raisedFor('wd-1') : undefined), CALL_MS + 5000);
    expect(req.data.prompt).toBe('claude-code in shop-api: Bash was asked for 4 s ago and has not finished; it may wait at its terminal');
    expect(req.data.kind).toBe('other');
    await new Promise((r) => setTimeout(r, 2500)); // many ticks (call_ms / 4)
    expect(raisedFor('wd-1')).toHaveLength(1);
    await postTool('wd-1', 'tu-d');
    await until('resolved', () => resolvedOf(req.id));
  }, 20_000);

  it('many sessions and signs: one attention per session; a malformed Notification never stops the next; a forged watch attention never reaches the chat', async () => {
    const N = 60;
    const bad = await fetch(`${s.url}/hooks/claude-code`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...base('wm-bad'), hook_event_name: 'Notification', notification_type: { $: 'x'.repeat(5000) }, message: ['no'] }),
    });
    expect(bad.status).toBe(200);
    await Promise.all(Array.from({ length: N }, (_, i) => notify(`wm-${i}`, 'idle_prompt').then(() => notify(`wm-${i}`, 'permission_prompt'))));
    await until('all raised', () => ops().filter((e) => e.type === 'attention.requested' && /^wm-\d+$/.test(e.data?.watch?.session)).length === N, 15_000);
    await s.up.daemons.get('claude-code')!.flush();
    await new Promise((r) => setTimeout(r, 300));
    for (let i = 0; i < N; i++) expect(raisedFor(`wm-${i}`)).toHaveLength(1);
    expect(raisedFor('wm-bad')).toHaveLength(0);
    // idle_prompt came first in each session: the words are about input
    expect(raisedFor('wm-0')[0].data.prompt).toBe('claude-code in session wm-0 waits at its terminal for your input');
    // a forged watch attention (not published by this up's watch) on the relay: never a chat card
    const forged = {
      aep: '0.1',
      id: newId(),
      type: 'attention.requested',
      source: 'aep://elsewhere/agent/hookmap/session/forged',
      time: new Date().toISOString(),
      agent: 'hookmap',
      session: 'forged',
      seq: 0,
      epoch: 1,
      data: { kind: 'permission', prompt: 'Open https://evil.example now', respond_via: ['oob'], watch: { session: 'forged', agent: 'hookmap' } },
    };
    const posted = await fetch(`${s.url}/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${s.token}` },
      body: JSON.stringify(forged),
    });
    expect(posted.status, await posted.clone().text()).toBeLessThan(300);
    await until('said', () => s.lines.find((l) => l.includes(`${forged.id}: a watch attention not from this up's watch`)));
    expect(tg.sent.some((m) => m.text.includes('evil.example'))).toBe(false);
  }, 30_000);
});
