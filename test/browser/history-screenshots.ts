// Regenerates the history view's screenshots in docs/ (desktop and phone)
// from a real `hookmap up` fed Claude Code and Codex hook firings, their
// usage read from transcripts and rollouts as the agents write them:
//
//   npx tsx test/browser/history-screenshots.ts
//
// Not a test (pixels are not asserted; test/browser/history.test.ts is);
// run it after a visible change of the view.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../../engine/core/descriptor/registry.ts';
import { tempDir } from '../runtime/daemon/helpers.ts';
import { fire, launch, SCREENS, signedIn, stack, TOKEN, until } from './harness.ts';

const user = tempDir('hookmap-history-shots-');
const cc = join(user.dir, '.claude', 'projects', 'x');
const cx = join(user.dir, '.codex', 'sessions', '2026', '12', '01');
for (const d of [cc, cx]) mkdirSync(d, { recursive: true });
const s = await stack({
  agents: [
    { descriptor: 'claude-code', config: { config_dir: join(user.dir, '.claude') } },
    { descriptor: 'codex', config: { codex_home: join(user.dir, '.codex') } },
  ],
});
const sessions: [string, 'claude-code' | 'codex', string, string, number, number][] = [
  ['a1f0', 'claude-code', '/work/shop-api', 'claude-sonnet-4-5', 182_000, 9_400],
  ['b7c2', 'codex', '/work/billing', 'gpt-5-codex', 96_000, 4_100],
  ['c3d9', 'claude-code', '/work/shop-api', 'claude-opus-4-1', 41_000, 2_200],
  ['d4e1', 'codex', '/work/infra', 'gpt-5', 23_000, 900],
  ['e5f6', 'claude-code', '/work/docs', 'claude-haiku-4-5', 12_000, 800],
];
for (const [id, agent, cwd, model, input, output] of sessions) {
  const file = join(agent === 'codex' ? cx : cc, `${id}.jsonl`);
  const ccUsage = { input_tokens: Math.round(input * 0.4), cache_read_input_tokens: Math.round(input * 0.6), output_tokens: output };
  const u = {
    input_tokens: input,
    cached_input_tokens: Math.round(input * 0.6),
    output_tokens: output,
    reasoning_output_tokens: 0,
    total_tokens: input + output,
  };
  writeFileSync(
    file,
    agent === 'codex'
      ? [
          { type: 'turn_context', payload: { model } },
          { type: 'event_msg', payload: { type: 'token_count', info: { total_token_usage: u, last_token_usage: u } } },
        ]
          .map((l) => `${JSON.stringify(l)}\n`)
          .join('')
      : `${JSON.stringify({ type: 'assistant', message: { id: `m-${id}`, model, usage: ccUsage } })}\n`,
  );
  const base = { session_id: id, turn_id: 't1', transcript_path: file, cwd };
  await fire(s, agent, { ...base, hook_event_name: 'SessionStart', source: 'startup', model });
  await fire(s, agent, { ...base, hook_event_name: 'UserPromptSubmit', prompt: 'p' });
  await fire(s, agent, { ...base, hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_use_id: 'c1', tool_input: { command: 'x' } });
  await fire(s, agent, { ...base, hook_event_name: 'Stop' });
}
await until('the history indexed', async () => {
  const r = await fetch(`${s.url}/history/usage?by=agent`, { headers: { authorization: `Bearer ${TOKEN}` } });
  return ((await r.json()) as { groups: { sessions: number }[] }).groups.reduce((n, g) => n + g.sessions, 0) === sessions.length;
});
const browser = await launch();
for (const screen of SCREENS) {
  const { page } = await signedIn(browser, s, screen.opts);
  await page.goto(`${s.url}/#/history`);
  await page.locator('[data-hist-session]').first().waitFor();
  await page.locator('[data-usage-agent="codex"]').waitFor();
  const path = join(ROOT, 'docs', `inbox-history-${screen.name}.png`);
  await page.screenshot({ path });
  console.log(path);
}
await browser.close();
await s.close();
user.done();
