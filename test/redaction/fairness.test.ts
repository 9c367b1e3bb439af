// One process runs every agent's daemon (`hookmap up`): a huge payload of one
// agent must not stall another agent's hooks for its whole redaction
// (issue 11: a 200 KB Claude Code PermissionRequest froze an unrelated
// Gemini CLI hook for 6-8 s). Big strings are redacted in yielding slices
// before the capture gate runs (Redactor.prepare), so the unrelated hook
// waits at most for the other firing's non-yielding steps (body parse,
// digests: bounded by the body limit), never for its redaction.
// Measured as ratios in the same process, not absolute timings.
import Fastify, { type FastifyInstance } from 'fastify';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redactor } from '../../engine/core/capture/redact.ts';
import { Daemon } from '../../engine/runtime/daemon/daemon.ts';
import { registerHookRoutes } from '../../engine/runtime/daemon/http.ts';
import { loadVendor } from '../../engine/core/descriptor/registry.ts';
import { readLogs, tempDir } from '../runtime/daemon/helpers.ts';

const tmp = tempDir('hookmap-fair-');
let app: FastifyInstance;
let url: string;
const daemons = new Map<string, Daemon>();

beforeAll(async () => {
  for (const id of ['claude-code', 'gemini-cli']) {
    const d = Daemon.open({ descriptor: loadVendor(id), logDir: join(tmp.dir, id), attentionTimeoutMs: 1000 });
    daemons.set(d.vendor, d);
  }
  app = Fastify({ logger: false });
  registerHookRoutes(app, { daemons, maxBody: 16 * 1024 * 1024 });
  await app.listen({ host: '127.0.0.1', port: 0 });
  url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await app?.close();
  for (const d of daemons.values()) await d.close();
  tmp.done();
});

const post = async (agent: string, body: string): Promise<number> => {
  const t0 = performance.now();
  const res = await fetch(`${url}/hooks/${agent}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  await res.text();
  expect(res.status).toBe(200);
  return performance.now() - t0;
};
const small = (i: number) =>
  JSON.stringify({
    session_id: 'gem-1',
    hook_event_name: 'BeforeTool',
    tool_name: 'run_shell_command',
    tool_input: { command: `echo ${i}` },
    cwd: '/srv',
    timestamp: new Date().toISOString(),
    transcript_path: '/srv/t.json',
  });

describe("one agent's huge payload does not stall another agent's hooks", () => {
  it('big strings are redacted in slices: the event loop is never blocked for more than a small share of the work', async () => {
    const r = new Redactor();
    const text =
      `curl -d '${Buffer.from(Array.from({ length: 3_000_000 }, (_, i) => (i * 7919 + (i >> 5)) & 255)).toString('base64url')}' ` +
      `-H 'Authorization: Bearer abc.def-123' https://x`;
    await r.prepare(text.slice(0, 300_000)); // warm
    const gaps: number[] = [];
    let last = performance.now();
    const iv = setInterval(() => {
      const now = performance.now();
      gaps.push(now - last);
      last = now;
    }, 1);
    const t0 = performance.now();
    await r.prepare({ tool_input: { command: text } });
    const total = performance.now() - t0;
    clearInterval(iv);
    expect(r.text(text)).toContain('Bearer [REDACTED:secret]');
    expect(gaps.length, 'the loop ran between slices').toBeGreaterThan(10);
    expect(Math.max(...gaps) / total, `longest block ${Math.max(...gaps).toFixed(1)} ms of ${total.toFixed(0)} ms`).toBeLessThan(0.25);
  }, 60_000);

  it('a 3 MB Claude Code PermissionRequest: Gemini CLI hooks are answered while it is mapped, none waits for the whole firing', async () => {
    const blob = Buffer.from(Array.from({ length: 2_250_000 }, (_, i) => (i * 7919 + (i >> 5)) & 255)).toString('base64url');
    const command = `curl -H 'content-type: application/octet-stream' -d '${blob}' https://upload.example.test/v1`;
    const huge = JSON.stringify({
      hook_event_name: 'PermissionRequest',
      session_id: 'cc-huge',
      transcript_path: '/srv/t.jsonl',
      cwd: '/srv',
      permission_mode: 'default',
      tool_name: 'Bash',
      tool_input: { command, description: 'upload' },
    });
    // warm both paths (a different blob: redaction results are cached by content)
    for (let i = 0; i < 3; i++) await post('gemini-cli', small(i));
    await post('claude-code', huge.replace('cc-huge', 'cc-warm').replace(blob, blob.slice(0, 200_000)));

    let done = false;
    const hugeDone = post('claude-code', huge).then((ms) => {
      done = true;
      return ms;
    });
    const during: number[] = [];
    while (!done) during.push(await post('gemini-cli', small(during.length)));
    const hugeMs = await hugeDone;
    const worst = Math.max(...during);
    expect(during.length, `gemini hooks answered during the ${hugeMs.toFixed(0)} ms firing`).toBeGreaterThanOrEqual(3);
    expect(worst / hugeMs, `worst gemini latency ${worst.toFixed(0)} ms vs the claude firing ${hugeMs.toFixed(0)} ms`).toBeLessThan(0.5);
    const req = readLogs(join(tmp.dir, 'claude-code')).find((e: any) => e.session === 'cc-huge' && e.type === 'attention.requested');
    expect(req, 'the big firing was mapped and logged').toBeTruthy();
  }, 120_000);
});
