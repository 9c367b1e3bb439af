// The stream-json host of a headless run (engine/person/launch/stream-host.ts)
// against a stand-in agent process (stream-agent.mjs) that speaks the SDK's
// lines: the prompt goes in as one user message whatever it holds, a
// permission the agent asks its host about is denied, any other request
// gets an error, and stdin closes at the turn's end so the agent exits.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { HOST_DENY, hostStreamJson, promptLine, replyTo } from '../../../engine/person/launch/stream-host.ts';

const AGENT = join(import.meta.dirname, 'stream-agent.mjs');
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function host(prompt: string, ending: 'result' | 'cancel', done?: string[]) {
  const dir = mkdtempSync(join(tmpdir(), 'hookmap-stream-host-'));
  dirs.push(dir);
  const out = join(dir, 'got.jsonl');
  const child = spawn(process.execPath, [AGENT, out, ending], { stdio: ['pipe', 'pipe', 'inherit'] });
  const log = new PassThrough();
  let logged = '';
  log.on('data', (c) => (logged += c));
  hostStreamJson(child, { prompt, log, done });
  const code = await new Promise<number | null>((res) => child.on('exit', res));
  const lines = readFileSync(out, 'utf8').trim().split('\n');
  return { code, lines, logged };
}

describe('stream-json host', () => {
  it('sends the prompt as one user message, denies can_use_tool, errors other requests, closes stdin at the result', async () => {
    const prompt = '$(touch pwned); rm -rf ~ "quoted"\nsecond line';
    const r = await host(prompt, 'result');
    expect(r.code).toBe(0);
    const [user, deny, error, closed] = r.lines;
    expect(JSON.parse(user)).toEqual({ type: 'user', session_id: 'hookmap', message: { role: 'user', content: prompt }, parent_tool_use_id: null });
    expect(JSON.parse(deny)).toEqual({
      type: 'control_response',
      response: { subtype: 'success', request_id: 'r1', response: { behavior: 'deny', message: HOST_DENY } },
    });
    expect(JSON.parse(error).response).toMatchObject({ subtype: 'error', request_id: 'r2' });
    expect(closed).toBe('stdin closed');
    // the run's log has every byte the agent wrote
    expect(r.logged).toContain('"type":"result"');
    expect(r.logged).toContain('"subtype":"can_use_tool"');
  }, 20_000);

  it('a done text ends the turn where no result message comes', async () => {
    const r = await host('go', 'cancel', ['[Operation Cancelled]']);
    expect(r.code).toBe(0);
    expect(r.lines.at(-1)).toBe('stdin closed');
  }, 20_000);

  it('reads nothing else as a request: junk, other types, a request without an id', () => {
    expect(replyTo('not json')).toBeUndefined();
    expect(replyTo('null')).toBeUndefined();
    expect(replyTo(JSON.stringify({ type: 'assistant' }))).toBeUndefined();
    expect(replyTo(JSON.stringify({ type: 'control_request', request: { subtype: 'can_use_tool' } }))).toBeUndefined();
    expect(replyTo(JSON.stringify({ type: 'result' }))).toBe('end');
    // the host never allows: whatever the request says
    const r = replyTo(JSON.stringify({ type: 'control_request', request_id: 'x', request: { subtype: 'can_use_tool', suggestions: [{ behavior: 'allow' }] } }));
    expect(JSON.parse(r as string).response.response.behavior).toBe('deny');
    expect(promptLine('a"b')).toBe(
      `${JSON.stringify({ type: 'user', session_id: 'hookmap', message: { role: 'user', content: 'a"b' }, parent_tool_use_id: null })}\n`,
    );
  });
});
