// The scripted model's command line (docs/authoring.md "A model to run
// against"): run as an author runs it, a process printing its URL, answering
// the scenario's steps to the family asked for and 404 to the others; usage
// errors exit 2 saying what is wrong.
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseModelArgs, UsageError } from './scripted-model.ts';

const SCRIPT = fileURLToPath(new URL('./scripted-model.ts', import.meta.url));
const TSX = fileURLToPath(new URL('../../node_modules/.bin/tsx', import.meta.url));

function run(args: string[]): Promise<{ url?: string; code?: number | null; stderr: string; stop: () => void }> {
  return new Promise((resolve) => {
    const p = spawn(TSX, [SCRIPT, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    p.stderr.on('data', (c) => (err += c));
    p.stdout.on('data', (c) => {
      out += c;
      if (out.includes('\n')) resolve({ url: out.split('\n')[0], stderr: err, stop: () => p.kill('SIGTERM') });
    });
    p.on('exit', (code) => resolve({ code, stderr: err, stop: () => undefined }));
  });
}

describe('npm run model', () => {
  it('answers the scenario in the family asked for, and only that family', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hookmap-model-'));
    const file = join(dir, 'touch.yaml');
    writeFileSync(file, 'steps:\n  - { tool: shell, args: { command: "touch x" } }\n  - { say: done }\n');
    const m = await run(['--family', 'chat', '--scenario', file]);
    try {
      expect(m.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const tools = [{ type: 'function', function: { name: 'shell', parameters: { type: 'object' } } }];
      const ask = (messages: unknown[]) =>
        fetch(`${m.url}/v1/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'scripted', stream: false, tools, messages }),
        }).then((r) => r.json());
      const first = await ask([{ role: 'user', content: 'go' }]);
      const call = first.choices[0].message.tool_calls[0];
      expect([call.function.name, JSON.parse(call.function.arguments)]).toEqual(['shell', { command: 'touch x' }]);
      const second = await ask([
        { role: 'user', content: 'go' },
        { role: 'assistant', tool_calls: [call] },
        { role: 'tool', tool_call_id: call.id, content: 'ok' },
      ]);
      expect(second.choices[0].message.content).toBe('done');
      const other = await fetch(`${m.url}/v1/messages`, { method: 'POST', body: '{}' });
      expect(other.status).toBe(404);
    } finally {
      m.stop();
    }
  });

  it('usage errors exit 2 and say what is wrong', async () => {
    const bad = await run(['--family', 'cobol']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--family cobol: one of anthropic, responses, chat, gemini');
    expect(() => parseModelArgs(['--port', 'x'])).toThrow(UsageError);
    expect(() => parseModelArgs(['--scenario', 'f'], () => 'steps: [ { run: 1 } ]')).toThrow('f: steps[0]: each step is');
    expect(() => parseModelArgs(['--scenario', 'f'], () => 'steps: []')).toThrow('non-empty `steps`');
    expect(() => parseModelArgs(['--scenario', 'nope.yaml'])).toThrow('--scenario nope.yaml: cannot be read (ENOENT)');
    expect(() => parseModelArgs(['--frob'])).toThrow('unknown argument --frob');
  });
});

describe('the scripted model refuses 429 in each family', () => {
  const ask: Record<string, { path: string; body: unknown; error: (b: any) => unknown }> = {
    anthropic: {
      path: '/v1/messages',
      body: { tools: [{ name: 't' }], messages: [{ role: 'user', content: 'hi' }] },
      error: (b) => b.error.type,
    },
    responses: { path: '/v1/responses', body: { tools: [{ type: 'function', name: 't' }], input: [] }, error: (b) => b.error.code },
    chat: { path: '/v1/chat/completions', body: { tools: [{ type: 'function' }], messages: [] }, error: (b) => b.error.code },
    gemini: {
      path: '/v1beta/models/m:streamGenerateContent',
      body: { tools: [{ functionDeclarations: [{ name: 't' }] }], contents: [] },
      error: (b) => b.error.status,
    },
  };
  const want: Record<string, string> = {
    anthropic: 'rate_limit_error',
    responses: 'rate_limit_exceeded',
    chat: 'rate_limit_exceeded',
    gemini: 'RESOURCE_EXHAUSTED',
  };
  it.each(Object.keys(ask))('%s: the next main-loop request is refused with retry-after, the one after it answered', async (family) => {
    const { startModelServer } = await import('./model-server.ts');
    const m = await startModelServer();
    try {
      m.rateLimit(1, 7);
      const post = () => fetch(`${m.url}${ask[family].path}`, { method: 'POST', body: JSON.stringify({ ...(ask[family].body as object), stream: false }) });
      const first = await post();
      expect(first.status).toBe(429);
      expect(first.headers.get('retry-after')).toBe('7');
      expect(ask[family].error(await first.json())).toBe(want[family]);
      expect((await post()).status).toBe(200);
      expect(m.requests.map((r) => r.limited ?? false)).toEqual([true, false]);
    } finally {
      await m.close();
    }
  });
});
