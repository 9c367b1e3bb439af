// Live: the watch (issue 43, docs/watch.md) against the real Claude Code,
// interactive in Debian's tmux on a private tmux server, against the scripted
// Messages API. `hookmap up` runs with a short hold window for Claude Code
// (agents.claude-code.attention_timeout_ms), chat cards at once
// (push.delay_ms 0) and the Telegram stand-in (test/helpers/telegram-api.ts,
// started by this test: the real Bot API cannot run here) as its chat. The
// inbox's pending view is the inbox's own model (web/src/model/store.ts) fed
// by the relay's SSE summary stream, as the inbox reads it.
//
// (1) The model asks for a Bash call that needs permission; hookmap holds the
//     PermissionRequest, its window ends, Claude Code's own dialog stays open
//     (the pane shows it), and the watch's attention ("waits at its terminal
//     ... hookmap's window ended", respond_via ["oob"], in the operator
//     session) reaches the inbox's pending view and the Telegram stand-in
//     within 5 s; Yes chosen in the TUI clears it everywhere within 5 s
//     (resolved auto, the chat card edited to "The agent moved on").
// (2) With the PermissionRequest hook not wired (nothing holds, as for a
//     subagent whose request never reaches the hook), Claude Code's own dialog
//     fires Notification permission_prompt: the same card ("no hookmap card
//     asks it"), cleared the same way.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Store } from '../../web/src/model/store.ts';
import { startTelegram, type TelegramStandIn } from '../helpers/telegram-api.ts';
import { resolveAgent } from './agents.ts';
import { asksForKey, atPrompt, skipFirstRun, TUI_KEY } from './claude-tui.ts';
import { run, sleep, until } from './harness.ts';
import { Live } from './live.ts';

const ID = 'claude-code';
const skip = Live.skipReason(ID);
if (skip) console.log(`[live] watch in tmux (${ID}): SKIPPED: ${skip}`);
const { agent } = resolveAgent(ID);
const TMUX = '/usr/bin/tmux';
const WINDOW_MS = 1500;
const WITHIN_MS = 5000;
const ALEX = 111;
/** The inbox's summary feed (web/src/model/connection.ts SUMMARY_TYPES). */
const SUMMARY = ['session.*', 'run.*', 'attention.*', 'message.*', 'control.*', 'x.hookmap.answer.*', 'x.hookmap.usage.reported'];
/** Claude Code's own permission dialog, as its pane shows it. */
const DIALOG = /Do you want to proceed\?/;

describe.skipIf(!!skip)(`the watch: ${agent.pkg}@${agent.version} in tmux live`, () => {
  const live = new Live(ID, (cmd) => ({ tool: 'Bash', args: { command: cmd, description: `run ${cmd.split(' ')[0]}` } }));
  const socket = `hookmap-live-watch-${process.pid}`;
  const tmux = (...args: string[]) => run(TMUX, ['-L', socket, ...args], { timeoutMs: 10_000 });
  const pane = async (name: string) => (await tmux('capture-pane', '-p', '-t', name)).stdout;
  let tg: TelegramStandIn;
  const store = new Store();
  const stop = new AbortController();
  const settingsPath = () => join(live.s.project, '.claude', 'settings.json');

  /** The inbox's summary subscription: every summary event from the start, into the inbox's own store. */
  const readInbox = async () => {
    const token = readFileSync(join(live.s.hookmapHome, 'token'), 'utf8').trim();
    const qs = new URLSearchParams({ filter: JSON.stringify({ type: SUMMARY }), from: 'all' });
    const res = await fetch(`${live.up.url}/stream?${qs}`, { headers: { authorization: `Bearer ${token}` }, signal: stop.signal });
    expect(res.status).toBe(200);
    void (async () => {
      const dec = new TextDecoder();
      let buf = '';
      try {
        for await (const chunk of res.body as any) {
          buf += dec.decode(chunk, { stream: true });
          let i;
          while ((i = buf.indexOf('\n\n')) >= 0) {
            const data = buf
              .slice(0, i)
              .split('\n')
              .filter((l) => l.startsWith('data:'))
              .map((l) => l.slice(5).trim())
              .join('\n');
            buf = buf.slice(i + 2);
            if (data) store.applyBatch([{ ev: JSON.parse(data) }]);
          }
        }
      } catch {
        /* aborted at the end */
      }
    })();
  };

  /** Interactive Claude Code (default permission mode, nothing pre-allowed) in tmux session `name`, at its prompt. */
  const startTui = async (name: string) => {
    const env = {
      ...live.agentEnv,
      ANTHROPIC_BASE_URL: live.model.url,
      ANTHROPIC_API_KEY: TUI_KEY,
      DISABLE_TELEMETRY: '1',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_AUTOUPDATER: '1',
      TERM: 'xterm-256color',
    };
    const q = (v: string) => `'${v.replace(/'/g, `'\\''`)}'`;
    const script = join(live.s.root, `claude-tui-${name}.sh`);
    writeFileSync(
      script,
      `${Object.entries(env)
        .map(([k, v]) => `export ${k}=${q(String(v))}`)
        .join('\n')}\ncd ${q(live.s.project)}\nexec ${q(live.bin)} --permission-mode default\n`,
    );
    const started = await tmux('new-session', '-d', '-s', name, '-x', '200', '-y', '50', `sh ${q(script)}`);
    expect(started.code, started.stderr).toBe(0);
    await until(
      'the TUI at its prompt',
      async () => {
        const p = await pane(name);
        if (asksForKey(p)) await tmux('send-keys', '-t', name, 'Up', 'Enter');
        return atPrompt(p);
      },
      60_000,
    );
  };

  const type = async (name: string, text: string) => {
    await tmux('send-keys', '-t', name, '-l', text);
    await tmux('send-keys', '-t', name, 'Enter');
  };

  const watchCardOf = (session: string) =>
    live.stream.events.find((e) => e.type === 'attention.requested' && e.agent === 'hookmap' && e.data?.watch?.session === session);
  const pendingInInbox = (id: string) => store.waiting(Date.now()).some((a) => a.id === id);
  const chatCard = (session: string) => tg.sent.find((m) => m.text.includes('waits at its terminal') && m.text.includes(`session ${session.slice(0, 12)}`));
  const chatEdit = (messageId: number) =>
    tg.calls.find((c) => c.method === 'editMessageText' && c.body.message_id === messageId && /The agent moved on$/.test(c.body.text));

  /**
   * One watch card's round: the card reaches the inbox's pending view and the chat (ms after `since`), then Yes in the
   * TUI clears it everywhere (ms after the key). The pane shows Claude Code's own dialog while the card is up.
   */
  const round = async (name: string, session: string, since: number, file: string, beforeKey?: (cardId: string) => Promise<void>) => {
    const card = await until('the watch attention', () => watchCardOf(session), WITHIN_MS + 5000);
    await until('the card in the inbox pending view', () => pendingInInbox(card.id), WITHIN_MS + 5000);
    const tInbox = Date.now() - since;
    const chat = await until('the card on the Telegram stand-in', () => chatCard(session), WITHIN_MS + 5000);
    const tChat = tg.calls.find((c) => c.method === 'sendMessage' && c.body.text === chat.text)!.at - since;
    expect(DIALOG.test(await pane(name)), await pane(name)).toBe(true);
    await beforeKey?.(card.id);
    expect(DIALOG.test(await pane(name)), await pane(name)).toBe(true);
    // Yes is the dialog's first, selected option
    const key = Date.now();
    await tmux('send-keys', '-t', name, 'Enter');
    const resolved = await until(
      'resolved on the stream',
      () => live.stream.events.find((e) => e.type === 'attention.resolved' && e.subject === card.id),
      WITHIN_MS + 5000,
    );
    await until('gone from the inbox pending view', () => !pendingInInbox(card.id), WITHIN_MS + 5000);
    const tInboxClear = Date.now() - key;
    const edit = await until('the chat card edited', () => chatEdit(chat.message_id), WITHIN_MS + 5000);
    const tChatClear = edit.at - key;
    await until('the tool ran', async () => (await run('/usr/bin/test', ['-e', join(live.s.project, file)])).code === 0, 10_000);
    return { card, resolved, chat, tInbox, tChat, tInboxClear, tChatClear };
  };

  beforeAll(async () => {
    tg = await startTelegram();
    await live.start(30_000);
    await live.setup(['--project', '--dir', live.s.project]);
    skipFirstRun(live.s.home, live.s.project);
    writeFileSync(join(live.s.home, 'telegram-token'), `${tg.token}\n`, { mode: 0o600 });
    const config = join(live.s.home, 'up.yaml');
    writeFileSync(
      config,
      [
        'agents:',
        '  claude-code:',
        `    attention_timeout_ms: ${WINDOW_MS}`,
        'push: { delay_ms: 0 }',
        'channels:',
        '  telegram:',
        `    token_file: ${join(live.s.home, 'telegram-token')}`,
        `    chat_ids: [${ALEX}]`,
        `    user_ids: [${ALEX}]`,
        `    api_root: ${tg.url}`,
        // the timed signs off: only the signs under test raise
        'watch: { call_ms: 0, run_ms: 0 }',
        '',
      ].join('\n'),
    );
    await live.restartUp(30_000, { args: ['--config', config] });
    await until('long polling', () => tg.calls.some((c) => c.method === 'getUpdates'), 15_000);
    await readInbox();
  }, 120_000);

  afterAll(async () => {
    stop.abort();
    await tmux('kill-server').catch(() => undefined);
    rmSync(join(process.env.TMUX_TMPDIR ?? '/tmp', `tmux-${process.getuid!()}`, socket), { force: true }); // the server leaves its socket file
    await tg?.close();
    await live.finish(agent.version);
  }, 30_000);

  /** The hooks Claude Code posted for a session, ms after its first: `PreToolUse@776 Notification(permission_prompt)@1980`. */
  const hooksOf = (session: string) => {
    const mine = live.tap.hooks.filter((h) => h.body?.session_id === session);
    return mine.map((h) => `${h.hook}${h.body?.notification_type ? `(${h.body.notification_type})` : ''}@${h.at - mine[0].at}`).join(' ');
  };

  const diag = async (name: string, session?: string) => {
    const evs = live.stream.events.filter((e) => !session || e.session === session || e.data?.watch?.session === session);
    console.log(`[live] watch: events: ${evs.map((e) => `${e.agent}:${e.type}`).join(' ')}`);
    console.log(`[live] the pane at the failure:\n${await pane(name).catch(() => '')}\nup (tail):\n${live.up.stderr().slice(-3000)}`);
  };

  it("(1) hookmap's window ends, Claude Code's dialog stays open: the watch's card reaches the inbox and the chat within 5 s; Yes in the TUI clears it everywhere within 5 s", async () => {
    const settings = JSON.parse(readFileSync(settingsPath(), 'utf8'));
    expect(settings.hooks.PermissionRequest).toBeDefined();
    live.model.play({ name: 'watch-window', steps: [live.shell('touch watched-1.txt'), { say: 'Touched (live watch 1).' }] });
    const t0 = new Date().toISOString();
    await startTui('w1');
    try {
      await type('w1', 'Touch watched-1.txt.');
      const mine = () => live.stream.events.filter((e) => e.source?.includes('/agent/claude-code/') && e.time >= t0);
      const held = await until('the held request', () => mine().find((e) => e.type === 'attention.requested'), 60_000);
      const session = held.session;
      // Claude Code shows its own dialog while the PermissionRequest hook is held (the two race), before the window ends
      await until('the dialog while the request is held', async () => DIALOG.test(await pane('w1')), 10_000);
      expect(mine().some((e) => e.type === 'attention.timeout' && e.subject === held.id)).toBe(false);
      const timeout = await until('the window ends', () => mine().find((e) => e.type === 'attention.timeout' && e.subject === held.id), 15_000);
      const ended = Date.parse(timeout.time);
      // Claude Code's own Notification permission_prompt comes some seconds after its dialog opened: one card still
      const r = await round('w1', session, ended, 'watched-1.txt', async (id) => {
        await until(
          'Notification permission_prompt',
          () => live.tap.hooks.find((h) => h.body?.session_id === session && h.body?.notification_type === 'permission_prompt'),
          15_000,
        );
        await until('its sign', () => mine().find((e) => e.type === 'x.hookmap.watch.waiting' && e.session === session), 5000);
        await sleep(500);
        expect(live.stream.events.filter((e) => e.type === 'attention.requested' && e.data?.watch?.session === session)).toHaveLength(1);
        expect(pendingInInbox(id)).toBe(true);
      });
      expect(r.card.data).toMatchObject({
        kind: 'permission',
        respond_via: ['oob'],
        watch: { sign: 'window', agent: 'claude-code', session, tool: 'Bash' },
      });
      expect(r.card.data.prompt).toMatch(/^claude-code in \S+ waits at its terminal for Bash permission: hookmap's window ended$/);
      expect(r.card.session).toMatch(/^operator@/);
      expect(r.card.cause).toBe(timeout.id);
      expect(r.chat.text).toContain("hookmap's window ended");
      expect(r.chat.reply_markup?.inline_keyboard ?? []).toEqual([]);
      expect(r.resolved.data).toEqual({ resolution: 'auto' });
      console.log(
        `[live] watch (window ended): the card in the inbox ${r.tInbox} ms and on Telegram ${r.tChat} ms after the window ended; ` +
          `cleared ${r.tInboxClear} ms (inbox) and ${r.tChatClear} ms (Telegram) after Yes in the TUI`,
      );
      for (const ms of [r.tInbox, r.tChat, r.tInboxClear, r.tChatClear]) expect(ms).toBeLessThan(WITHIN_MS);
      const h0 = live.tap.hooks.find((h) => h.body?.session_id === session)!.at;
      console.log(`[live] watch (window ended): hooks: ${hooksOf(session)}; window ended @${ended - h0}`);
      // the dialog was Claude Code's own: the call completed after the key, and only one watch card for the session
      await until('tool.completed', () => mine().find((e) => e.type === 'tool.completed' && e.session === session), 10_000);
      expect(live.stream.events.filter((e) => e.type === 'attention.requested' && e.data?.watch?.session === session)).toHaveLength(1);
    } catch (e) {
      await diag('w1');
      throw e;
    }
  }, 150_000);

  it('(2) no hook holds the request (PermissionRequest not wired): Notification permission_prompt raises the same card; Yes clears it', async () => {
    const settings = JSON.parse(readFileSync(settingsPath(), 'utf8'));
    delete settings.hooks.PermissionRequest;
    writeFileSync(settingsPath(), JSON.stringify(settings, null, 2));
    live.model.play({ name: 'watch-notification', steps: [live.shell('touch watched-2.txt'), { say: 'Touched (live watch 2).' }] });
    const t0 = new Date().toISOString();
    await startTui('w2');
    try {
      await type('w2', 'Touch watched-2.txt.');
      const mine = () => live.stream.events.filter((e) => e.source?.includes('/agent/claude-code/') && e.time >= t0);
      const sign = await until('the waiting sign', () => mine().find((e) => e.type === 'x.hookmap.watch.waiting'), 60_000);
      expect(sign.data).toEqual({ sign: 'permission_prompt', reason: 'permission', hook: 'Notification' });
      expect(mine().some((e) => e.type === 'attention.requested')).toBe(false); // nothing held
      const r = await round('w2', sign.session, Date.parse(sign.time), 'watched-2.txt');
      expect(r.card.data).toMatchObject({
        kind: 'permission',
        respond_via: ['oob'],
        watch: { sign: 'waiting', agent: 'claude-code', session: sign.session, tool: 'Bash' },
      });
      expect(r.card.data.prompt).toMatch(/^claude-code in \S+ waits at its terminal for Bash permission: no hookmap card asks it$/);
      expect(r.resolved.data).toEqual({ resolution: 'auto' });
      console.log(
        `[live] watch (permission_prompt, nothing held): the card in the inbox ${r.tInbox} ms and on Telegram ${r.tChat} ms after the Notification; ` +
          `cleared ${r.tInboxClear} ms (inbox) and ${r.tChatClear} ms (Telegram) after Yes in the TUI`,
      );
      for (const ms of [r.tInbox, r.tChat, r.tInboxClear, r.tChatClear]) expect(ms).toBeLessThan(WITHIN_MS);
      console.log(`[live] watch (permission_prompt, nothing held): hooks: ${hooksOf(sign.session)}`);
      await sleep(300);
      expect(live.stream.events.filter((e) => e.type === 'attention.requested' && e.data?.watch?.session === sign.session)).toHaveLength(1);
    } catch (e) {
      await diag('w2');
      throw e;
    }
  }, 150_000);
});
