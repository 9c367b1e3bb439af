// The history routes on hookmap up's port: read scope, rows without event
// data, usage grouped, the background indexer catching up with hook firings.
import { hookKeyHeaders } from '../../../engine/runtime/auth/hook-key.mjs';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startUp } from '../../../engine/app/up.ts';
import { tempDir, until } from '../../runtime/daemon/helpers.ts';

const TOKEN = 'history-routes-token-0123456789';
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

describe('history routes', () => {
  it('index what the daemons log in the background and answer sessions, search and usage to a reader', async () => {
    const t = tempDir('hookmap-history-routes-');
    cleanups.push(t.done);
    const user = join(t.dir, 'user');
    // the operator's own rate for a model no table prices
    writeFileSync(join(t.dir, 'prices.yaml'), 'models:\n  scripted: { input: 1000000, output: 2000000 }\n');
    const up = await startUp({
      port: 0,
      token: TOKEN,
      home: t.dir,
      logDir: join(t.dir, 'logs'),
      agents: [{ descriptor: 'claude-code', config: { config_dir: join(user, '.claude') } }],
      say: () => {},
    });
    cleanups.push(() => up.close());
    const folder = join(user, '.claude', 'projects', 'p');
    mkdirSync(folder, { recursive: true });
    const file = join(folder, 's1.jsonl');
    writeFileSync(file, `${JSON.stringify({ type: 'assistant', message: { id: 'm1', model: 'scripted', usage: { input_tokens: 3, output_tokens: 2 } } })}\n`);
    const hook = (name: string, extra: Record<string, unknown> = {}) =>
      fetch(`${up.url}/hooks/claude-code`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...hookKeyHeaders(t.dir) },
        body: JSON.stringify({ session_id: 's1', hook_event_name: name, cwd: '/work/shop', transcript_path: file, ...extra }),
      });
    for (const [n, x] of [
      ['SessionStart', { source: 'startup' }],
      ['UserPromptSubmit', { prompt: 'x' }],
      ['PreToolUse', { tool_name: 'Bash', tool_use_id: 'c1', tool_input: { command: 'ls' } }],
      ['Stop', {}],
    ] as const)
      expect((await hook(n, x)).status).toBe(200);
    const get = (path: string, token = TOKEN) => fetch(`${up.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
    expect((await get('/history/sessions', 'wrong')).status).toBe(401);
    const usage = await until('the usage indexed', async () => {
      const u = (await (await get('/history/usage?by=agent')).json()) as { groups: { key: string; input_tokens: number; cost_usd: number }[] };
      return u.groups.length ? u : undefined;
    });
    expect(usage.groups).toEqual([expect.objectContaining({ key: 'claude-code', input_tokens: 3, output_tokens: 2, cost_usd: 7 })]);
    const s = (await (await get('/history/sessions?project=shop')).json()) as { sessions: { session: string; tools: number }[]; projects: string[] };
    expect(s.sessions).toEqual([expect.objectContaining({ session: 's1', tools: 1 })]);
    expect(s.projects).toEqual(['shop']);
    const found = (await (await get('/history/search?q=bash')).json()) as { hits: { events: Record<string, unknown>[] }[] };
    expect(found.hits).toHaveLength(1);
    expect(found.hits[0].events[0]).toMatchObject({ type: 'tool.requested', subject: 'Bash' });
    expect(found.hits[0].events[0]).not.toHaveProperty('event');
    expect((await get('/history/sessions?since=notadate')).status).toBe(400);
    // hostile input: no token, another origin, a foreign Host, full-text syntax in the query
    expect((await fetch(`${up.url}/history/sessions`)).status).toBe(401);
    const origin = await fetch(`${up.url}/history/sessions`, { headers: { authorization: `Bearer ${TOKEN}`, origin: 'http://evil.example' } });
    expect(origin.status).toBe(403);
    for (const q of ['"', 'NEAR(bash', 'bash OR', '*', 'a"b\'c;--'])
      expect([200, 400], q).toContain((await get(`/history/search?q=${encodeURIComponent(q)}`)).status);
  });
});
