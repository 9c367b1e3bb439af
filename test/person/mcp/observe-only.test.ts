// An observe-only agent (Gemini CLI: hookmap only watches its hooks) can still
// have its model ask a human through `hookmap mcp`: the ask waits in the
// daemon, not in the agent's hook, so the daemon declares answers
// (control.attention.respond) whatever the posture, and `hookmap answer`
// reaches it. Before, the relay refused the answer as unsupported by the
// target (seen live with Gemini CLI 0.61.0 and `setup --mcp`).
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { run as answerCmd } from '../../../engine/cli/commands/answer.ts';
import { upStack, watchAll, type UpStack, type Watcher } from '../../helpers/up-stack.ts';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const AGENT = 'gemini-cli';
let s: UpStack;
let watcher: Watcher;
let client: Client | undefined;

beforeAll(async () => {
  s = await upStack({ prefix: 'hookmap-mcp-observe-', hello: true, agents: [{ descriptor: AGENT, config: {} }] });
  watcher = await watchAll(s.up.url, s.token);
}, 30_000);

afterAll(async () => {
  vi.restoreAllMocks();
  await client?.close().catch(() => {});
  watcher?.close();
  await s?.done();
});

const hook = async (name: string, extra: Record<string, unknown> = {}) => {
  const r = await fetch(`${s.up.url}/hooks/${AGENT}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ hook_event_name: name, session_id: 'g1', transcript_path: '/tmp/t.json', cwd: '/w', timestamp: new Date().toISOString(), ...extra }),
  });
  return r.status;
};

describe('ask_human on an observe-only agent', () => {
  it('the question is answered with hookmap answer --text and the text is the tool result', async () => {
    expect(await hook('SessionStart', { source: 'startup' })).toBe(200);
    expect(await hook('BeforeAgent', { prompt: 'deploy it' })).toBe(200);
    expect(await hook('BeforeTool', { tool_name: 'mcp_hookmap_ask_human', tool_input: { question: 'Deploy now?' } })).toBe(200);
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [join(ROOT, 'bin/hookmap.mjs'), 'mcp', '--agent', AGENT, '--url', s.up.url],
      env: { ...(process.env as Record<string, string>), HOOKMAP_TOKEN: s.token, HOOKMAP_HOME: s.home },
      stderr: 'pipe',
    });
    client = new Client({ name: 'gemini-like', version: '1' });
    await client.connect(transport);
    const call = client.callTool({ name: 'ask_human', arguments: { question: 'Deploy now?' } });
    const req = await watcher.seen((e) => e.type === 'attention.requested' && e.session === 'g1', 'the question on the stream');
    expect(req.data).toMatchObject({ kind: 'input', respond_via: ['control'] });
    const lines: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((c: any) => (lines.push(String(c)), true));
    vi.spyOn(process.stderr, 'write').mockImplementation((c: any) => (lines.push(String(c)), true));
    let code: number;
    try {
      code = await answerCmd([req.id, '--text', 'after the freeze', '--url', s.up.url, '--token', s.token]);
    } finally {
      vi.restoreAllMocks();
    }
    expect(code, lines.join('')).toBe(0);
    expect(lines.join('')).toMatch(/accepted by the target/);
    const r: any = await call;
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent).toEqual({ status: 'answered', text: 'after the freeze', request_id: req.id });
    await watcher.seen((e) => e.type === 'attention.resolved' && e.subject === req.id, 'attention.resolved');
  }, 60_000);
});
