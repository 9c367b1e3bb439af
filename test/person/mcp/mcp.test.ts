// `hookmap mcp` end to end: a real MCP client (the SDK's, over stdio, as an
// agent starts it) calls ask_human on `node bin/hookmap.mjs mcp`; the
// question shows up on the relay as attention.requested in the agent's
// session (found from the agent's own PreToolUse of the MCP tool);
// `hookmap answer --text` answers it and the tool result carries the text.
// Also: options answered by id, a timeout reported to the model, emit_event
// appending in the daemon's own sequence and refusing commands and lifecycle
// types, the refusals (no session, ended session, no token, foreign
// media type), and the caller hanging up dismissing the request.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { run as answerCmd } from '../../../engine/cli/commands/answer.ts';
import { validateStream } from '../../../engine/core/validate/index.ts';
import { describeAnswer } from '../../../engine/person/mcp/server.ts';
import { upStack, watchAll, type UpStack, type Watcher } from '../../helpers/up-stack.ts';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
let TOKEN: string;
let s: UpStack;
let up: UpStack['up'];
let watcher: Watcher;
let stream: any[];
const clients: Client[] = [];

beforeAll(async () => {
  s = await upStack({ prefix: 'hookmap-mcp-', hello: true, agents: [{ descriptor: 'claude-code', config: {} }] });
  ({ up, token: TOKEN } = s);
  watcher = await watchAll(up.url, TOKEN);
  stream = watcher.stream;
}, 30_000);

afterAll(async () => {
  vi.restoreAllMocks();
  for (const c of clients) await c.close().catch(() => {});
  watcher?.close();
  await s?.done();
});

async function mcpClient(extra: string[] = [], token = TOKEN): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [join(ROOT, 'bin/hookmap.mjs'), 'mcp', '--agent', 'claude-code', '--url', up.url, ...extra],
    env: { ...(process.env as Record<string, string>), HOOKMAP_TOKEN: token, HOOKMAP_HOME: s.home },
    stderr: 'pipe',
  });
  const c = new Client({ name: 'test-agent', version: '1' });
  await c.connect(transport);
  clients.push(c);
  return c;
}

const hook = async (session: string, name: string, extra: Record<string, unknown> = {}) => {
  const r = await fetch(`${up.url}/hooks/claude-code`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ hook_event_name: name, session_id: session, transcript_path: '/tmp/t.jsonl', cwd: '/w', permission_mode: 'default', ...extra }),
  });
  return r.text();
};
const MCP_TOOL = 'mcp__hookmap__ask_human';
/** A session in a run, whose agent just announced a call of the ask tool (Claude Code's PreToolUse for an MCP tool). */
async function announced(session: string, tool = MCP_TOOL): Promise<void> {
  await hook(session, 'SessionStart', { source: 'startup' });
  await hook(session, 'UserPromptSubmit', { prompt: 'deploy it' });
  await hook(session, 'PreToolUse', { tool_name: tool, tool_input: {}, tool_use_id: `tu-${session}` });
}
const seen = (pred: (e: any) => boolean, what: string) => watcher.seen(pred, what);

async function answer(argv: string[]): Promise<{ code: number; out: string }> {
  const lines: string[] = [];
  vi.spyOn(process.stdout, 'write').mockImplementation((c: any) => (lines.push(String(c)), true));
  vi.spyOn(process.stderr, 'write').mockImplementation((c: any) => (lines.push(String(c)), true));
  try {
    return { code: await answerCmd([...argv, '--url', up.url, '--token', TOKEN]), out: lines.join('') };
  } finally {
    vi.restoreAllMocks();
  }
}
const text = (r: any) => (r.content as { type: string; text: string }[]).map((c) => c.text).join('');

describe('hookmap mcp', () => {
  it('lists ask_human and emit_event', async () => {
    const c = await mcpClient();
    const { tools } = await c.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['ask_human', 'emit_event']);
    expect(Object.keys((tools.find((t) => t.name === 'ask_human')!.inputSchema as any).properties)).toEqual(['question', 'options', 'timeout_seconds']);
  });

  it('ask_human: attention.requested in the agent session, answered with hookmap answer --text, the text is the tool result', async () => {
    await announced('m1');
    const c = await mcpClient();
    const call = c.callTool({ name: 'ask_human', arguments: { question: 'Deploy to production now?' } });
    const req = await seen((e) => e.type === 'attention.requested' && e.session === 'm1', 'the question on the stream');
    // Claude Code captures attention at redacted: the question itself reaches the human
    expect(req.data).toMatchObject({ kind: 'input', prompt: 'Deploy to production now?', respond_via: ['control'] });
    const run = stream.find((e) => e.type === 'run.started' && e.session === 'm1').run;
    expect(req.run).toBe(run);
    const a = await answer([req.id, '--text', 'not before the freeze ends on Friday']);
    expect(a.code).toBe(0);
    expect(a.out).toMatch(/accepted by the target/);
    const r = await call;
    expect(r.isError).toBeFalsy();
    expect(text(r)).toBe('The human answered: not before the freeze ends on Friday');
    expect(r.structuredContent).toEqual({ status: 'answered', text: 'not before the freeze ends on Friday', request_id: req.id });
    const answered = await seen((e) => e.type === 'attention.answered' && e.subject === req.id, 'attention.answered');
    expect(answered.data.by).toBeDefined();
    await seen((e) => e.type === 'attention.resolved' && e.subject === req.id && e.data.resolution === 'answered', 'attention.resolved');
    // the ask's envelope is the daemon's: same session log, one (epoch, seq) sequence with the hooks' events
    const session = stream.filter((e) => e.session === 'm1');
    expect(new Set(session.map((e) => `${e.source}|${e.epoch}`)).size).toBe(1);
    const seqs = session.map((e) => e.seq);
    expect(seqs).toEqual([...seqs].sort((x, y) => x - y));
    expect(new Set(seqs).size).toBe(seqs.length);
    expect(validateStream(session)).toEqual([]);
    // a second answer is refused as already answered (exit 3), nothing else changes
    const again = await answer([req.id, '--text', 'yes']);
    expect(again.code).toBe(3);
  });

  it('offers options 1..n and an answer by option id returns its label', async () => {
    await announced('m2');
    const c = await mcpClient();
    const call = c.callTool({ name: 'ask_human', arguments: { question: 'Which database?', options: ['Postgres', 'SQLite'] } });
    const req = await seen((e) => e.type === 'attention.requested' && e.session === 'm2', 'the question');
    expect(req.data.options.map((o: any) => o.id)).toEqual(['1', '2']);
    expect((await answer([req.id, '--option', '2'])).code).toBe(0);
    const r = await call;
    expect(r.structuredContent).toMatchObject({ status: 'answered', option: '2', label: 'SQLite' });
    expect(text(r)).toBe('The human chose option 2 ("SQLite").');
  });

  it('a timeout is reported to the model as unanswered, and attention.timeout is on the stream', async () => {
    await announced('m3');
    const c = await mcpClient();
    const r = await c.callTool({ name: 'ask_human', arguments: { question: 'Anyone there?', timeout_seconds: 1 } });
    expect(r.isError).toBe(true);
    expect(r.structuredContent).toMatchObject({ status: 'unanswered', why: 'timed out' });
    expect(text(r)).toMatch(/No human answered \(timed out\)/);
    const req = stream.find((e) => e.type === 'attention.requested' && e.session === 'm3');
    await seen((e) => e.type === 'attention.timeout' && e.subject === req.id, 'attention.timeout');
  });

  it('the caller hanging up (the agent cancelled the tool call) dismisses the request', async () => {
    await announced('m4');
    const c = await mcpClient();
    const ac = new AbortController();
    const call = c.callTool({ name: 'ask_human', arguments: { question: 'Wait for me?' } }, undefined, { signal: ac.signal }).catch((e) => e);
    const req = await seen((e) => e.type === 'attention.requested' && e.session === 'm4', 'the question');
    ac.abort();
    await call;
    await seen((e) => e.type === 'attention.resolved' && e.subject === req.id && e.data.resolution === 'dismissed', 'the dismissal');
  });

  it('a session end while the ask waits answers the model unanswered (dismissed)', async () => {
    await announced('m5');
    const c = await mcpClient();
    const call = c.callTool({ name: 'ask_human', arguments: { question: 'Still there?' } });
    await seen((e) => e.type === 'attention.requested' && e.session === 'm5', 'the question');
    await hook('m5', 'SessionEnd', { reason: 'exit' });
    const r = await call;
    expect(r.structuredContent).toMatchObject({ status: 'unanswered', why: 'dismissed' });
  });

  it('emit_event appends in the daemon sequence; commands, lifecycles and foreign namespaces are refused, coded', async () => {
    await announced('m6', 'mcp__hookmap__emit_event');
    const c = await mcpClient(['--session', 'm6']);
    const ok = await c.callTool({ name: 'emit_event', arguments: { type: 'x.claude-code.milestone.reached', data: { step: 'tests green' } } });
    expect(ok.isError, text(ok)).toBeFalsy();
    const ev = await seen((e) => e.type === 'x.claude-code.milestone.reached' && e.session === 'm6', 'the event');
    expect(ok.structuredContent).toMatchObject({ id: ev.id, seq: ev.seq, session: 'm6' });
    for (const [type, code] of [
      ['control.cancel', 'control-refused'],
      ['x.claude-code.control.instruct', 'control-refused'],
      ['run.finished', 'reserved-type'],
      ['x.codex.milestone.reached', 'foreign-namespace'],
      ['Not A Type', 'invalid-type'],
    ]) {
      const r = await c.callTool({ name: 'emit_event', arguments: { type } });
      expect(r.isError, type).toBe(true);
      expect(text(r)).toContain(`[${code}]`);
    }
    expect(stream.filter((e) => e.session === 'm6' && (e.type.startsWith('control.') || e.type === 'run.finished'))).toEqual([]);
  });

  it('refusals reach the model coded: no session to find, an ended session, no token', async () => {
    // two sessions active, neither announced the tool: the daemon cannot tell which one asks
    await hook('m7a', 'SessionStart', { source: 'startup' });
    await hook('m7b', 'SessionStart', { source: 'startup' });
    const c = await mcpClient(['--session', 'nope']);
    expect(text(await c.callTool({ name: 'ask_human', arguments: { question: 'q?' } }))).toMatch(/\[unknown-session\]/);
    const ended = await mcpClient(['--session', 'm5']);
    expect(text(await ended.callTool({ name: 'ask_human', arguments: { question: 'q?' } }))).toMatch(/\[session-ended\]/);
    const noToken = await mcpClient(['--session', 'm1'], 'wrong-token');
    expect(text(await noToken.callTool({ name: 'ask_human', arguments: { question: 'q?' } }))).toMatch(/\[unauthorized\]/);
    expect(stream.filter((e) => e.type === 'attention.requested' && ['m7a', 'm7b', 'nope', 'm5'].includes(e.session) && e.data.prompt === 'q?')).toEqual([]);
  });

  it('the route reads only JSON and refuses bad bodies, coded', async () => {
    const post = (body: string, type = 'application/json') =>
      fetch(`${up.url}/mcp/claude-code/ask_human`, { method: 'POST', headers: { 'content-type': type, authorization: `Bearer ${TOKEN}` }, body });
    const form = await post('question=hi', 'application/x-www-form-urlencoded');
    expect(form.status).toBe(415);
    expect((await form.json()).error).toBe('unsupported-media-type');
    const bad = await post('{"question": 5}');
    expect(bad.status).toBe(400);
    expect((await bad.json()).error).toBe('bad-request');
    const big = await post(JSON.stringify({ question: 'x'.repeat(5000), session: 'm1' }));
    expect((await big.json()).message).toMatch(/at most 4000/);
    const other = await fetch(`${up.url}/mcp/nobody/ask_human`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
      body: '{}',
    });
    expect(other.status).toBe(404);
  });

  it('describes answers for the model', () => {
    expect(describeAnswer({ status: 'answered', option: '1', label: 'Yes', text: 'and hurry' })).toBe(
      'The human chose option 1 ("Yes"). The human answered: and hurry',
    );
    expect(describeAnswer({ status: 'unanswered', why: 'timed out' })).toMatch(/No human answered \(timed out\)/);
  });
});

describe('SessionHints (which session a model-fired call belongs to)', () => {
  it('the latest announcement of the tool within the window, else the one active session, else none', async () => {
    const { SessionHints } = await import('../../../engine/runtime/daemon/asks.ts');
    const h = new SessionHints();
    h.noteActive('a', 0);
    expect(h.resolve(undefined, 'ask_human', 1_000)).toBe('a'); // one active session
    h.noteActive('b', 500);
    expect(h.resolve(undefined, 'ask_human', 1_000)).toBeUndefined(); // two: ambiguous
    h.noteTool('mcp__hookmap__ask_human', 'b', 600);
    h.noteTool('Bash', 'a', 700);
    expect(h.resolve(undefined, 'ask_human', 1_000)).toBe('b'); // announced by b (suffix match)
    expect(h.resolve(undefined, 'emit_event', 1_000)).toBeUndefined();
    expect(h.resolve(undefined, 'ask_human', 600 + 121_000)).toBeUndefined(); // the announcement is stale; two active
    h.ended('a');
    expect(h.resolve(undefined, 'ask_human', 600 + 121_000)).toBe('b');
    expect(h.resolve(undefined, 'ask_human', 500 + 11 * 60_000)).toBeUndefined(); // nobody active lately
  });

  it('single-underscore MCP names (mcp_<server>_<tool>) match; a tool merely ending in the word does not', async () => {
    const { SessionHints } = await import('../../../engine/runtime/daemon/asks.ts');
    const h = new SessionHints();
    h.noteActive('a', 0);
    h.noteActive('b', 0);
    h.noteTool('my_ask_human', 'a', 100);
    expect(h.resolve(undefined, 'ask_human', 1_000)).toBeUndefined(); // not an MCP name: two active, ambiguous
    h.noteTool('mcp_hookmap_ask_human', 'b', 200);
    expect(h.resolve(undefined, 'ask_human', 1_000)).toBe('b');
  });
});
