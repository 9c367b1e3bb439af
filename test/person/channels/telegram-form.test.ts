// A single-choice question as buttons (issue 24): Claude Code's
// AskUserQuestion with one question, where capture lets its real text out
// (`up --capture redacted` and the channel's `capture: redacted`), becomes
// one button per choice; a tap answers the form with that choice (the agent
// receives it) and spends the card's other choices. At the default capture
// the card carries neither the question nor its choices: the inbox answers it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { until } from '../../runtime/daemon/helpers.ts';
import { upStack, type UpStack } from '../../helpers/up-stack.ts';
import { startTelegram, type TelegramStandIn } from '../../helpers/telegram-api.ts';

const ask = (session: string) => ({
  hook_event_name: 'PermissionRequest',
  session_id: session,
  transcript_path: '/tmp/t.jsonl',
  cwd: '/tmp',
  tool_name: 'AskUserQuestion',
  tool_input: {
    questions: [
      {
        question: 'Which database should the new service use?',
        header: 'Database',
        multiSelect: false,
        options: [
          { label: 'PostgreSQL', description: 'relational' },
          { label: 'SQLite', description: 'embedded' },
        ],
      },
    ],
  },
});

async function stack(tg: TelegramStandIn, capture: 'metadata' | 'redacted'): Promise<UpStack> {
  return upStack({
    prefix: 'hookmap-tg-form-',
    hello: true,
    agents: [{ descriptor: 'claude-code', attentionTimeoutMs: 20_000 }],
    push: { delayMs: 0 },
    ...(capture === 'redacted' ? { capture: 'redacted' as const } : {}),
    setup: (home) => {
      writeFileSync(join(home, 'tg'), `${tg.token}\n`, { mode: 0o600 });
      return { channels: { telegram: { tokenFile: join(home, 'tg'), chatIds: [111], userIds: [111], users: {}, apiRoot: tg.url, capture } } };
    },
  });
}

const post = (s: UpStack, body: object) =>
  fetch(`${s.url}/hooks/claude-code`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

describe('a question as buttons', () => {
  let tg: TelegramStandIn;
  beforeAll(async () => {
    tg = await startTelegram();
  });
  afterAll(() => tg?.close());

  it('at capture redacted: one button per choice; a tap answers the form with it, once', async () => {
    const s = await stack(tg, 'redacted');
    try {
      const held = post(s, ask('form-1'));
      const card = await until('the card', () => tg.sent.find((m) => m.text.includes('session form-1')));
      expect(card.text).toContain('Question: Database: Which database should the new service use?');
      const buttons = card.reply_markup.inline_keyboard.flat();
      expect(buttons.map((b: any) => b.text)).toEqual(['PostgreSQL', 'SQLite', "I'm on it"]);
      tg.tap({ from: 111, chat: 111, message_id: card.message_id, data: buttons[1].callback_data });
      const reply = JSON.parse(await (await held).text());
      expect(reply.hookSpecificOutput.decision.updatedInput.answers).toEqual({ 'Which database should the new service use?': 'SQLite' });
      tg.tap({ from: 111, chat: 111, message_id: card.message_id, data: buttons[0].callback_data });
      await until(
        'refused',
        () =>
          tg.calls
            .filter((c) => c.method === 'answerCallbackQuery')
            .at(-1)
            ?.body.text.match(/used already|unknown button/) ?? undefined,
      );
    } finally {
      await s.done();
    }
  });

  it('at the default capture: no question and no choices on the card', async () => {
    const s = await stack(tg, 'metadata');
    try {
      const held = post(s, ask('form-2'));
      const card = await until('the card', () => tg.sent.find((m) => m.text.includes('session form-2')));
      expect(card.text).not.toMatch(/database|PostgreSQL|SQLite/i);
      expect(card.text).toContain('Answer it in the inbox');
      expect(card.reply_markup.inline_keyboard.flat().map((b: any) => b.text)).toEqual(["I'm on it"]);
      await post(s, { hook_event_name: 'SessionEnd', session_id: 'form-2', reason: 'other' });
      await held;
    } finally {
      await s.done();
    }
  });
});
