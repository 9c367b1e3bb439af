// Hostile sizes (issue 10 "bounded events, never a poison outbox"): a 7 MB
// session id and a 5 MiB prompt used to make an event larger than the
// relay's 4 MiB frame, which the daemon re-sent from its log on every
// reconnect, cutting the agent off for good. Here each is mapped, logged and
// delivered (bounded, marked), the NEXT event still reaches a subscriber,
// and a permission prompt held in the same session is still answerable.
// Bounds: engine/core/map/bounds.ts.
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { boundData, boundId, MAX_ID_CHARS, DEFAULT_MAX_EVENT_BYTES, TRUNCATED_RE } from '../../engine/core/map/bounds.ts';
import { aepDigest } from '../../engine/core/capture/canonical.ts';
import { makeCommand, openSocket, sendCommand } from '../../engine/runtime/relay/client.ts';
import { SseClient } from '../runtime/relay/helpers.ts';
import { until, upStack, type UpStack } from './helpers.ts';

const LEVELS = ['metadata', 'redacted', 'full'] as const;
let s: UpStack;
/** One agent per capture ceiling: codex's descriptor with its ceiling (and overrides) set to that level. */
beforeAll(async () => {
  const codex = readFileSync(join(import.meta.dirname, '../../vendors/codex.yaml'), 'utf8');
  const { mkdtempSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const dir = mkdtempSync(join(tmpdir(), 'hookmap-bounds-desc-'));
  const agents = LEVELS.map((level) => {
    const path = join(dir, `codex-${level}.yaml`);
    writeFileSync(
      path,
      codex
        .replace(/^vendor: codex$/m, `vendor: codex-${level}`)
        .replace(/x\.codex\./g, `x.codex-${level}.`)
        .replace(/ceiling: metadata\n\s+overrides: \{ attention: redacted \}/, `ceiling: ${level}\n  overrides: { attention: ${level} }`),
    );
    return { descriptor: path };
  });
  s = await upStack({ agents, attentionTimeoutMs: 60_000 });
  await until('the daemons hello', async () => {
    const h = await (await fetch(`${s.up.url}/healthz`, { headers: { authorization: `Bearer ${s.token}` } })).json();
    return LEVELS.every((l) => h.agents?.[`codex-${l}`]?.relay === true);
  });
}, 60_000);
afterAll(() => s?.done());

const auth = () => ({ authorization: `Bearer ${s.token}` });
const hook = (agent: string, body: unknown) =>
  fetch(`${s.up.url}/hooks/${agent}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }).then((r) => r.text());

/** Every logged line of one agent, with its size. */
function logged(agent: string): { bytes: number; ev: any }[] {
  const dir = join(s.logDir, agent);
  const out: { bytes: number; ev: any }[] = [];
  for (const f of readdirSync(dir).filter((f) => f.endsWith('.jsonl'))) {
    for (const line of readFileSync(join(dir, f), 'utf8').split('\n')) if (line) out.push({ bytes: Buffer.byteLength(line), ev: JSON.parse(line) });
  }
  return out;
}

/** Hold a permission prompt, answer it allow over the relay, return the agent's reply bytes. */
async function answerHeld(agent: string, session: string, command: string): Promise<{ reply: string; request: any }> {
  const watch = await SseClient.open(s.up.url, { filter: JSON.stringify({ agent, type: 'attention.requested' }) }, auth());
  const reply = hook(agent, { hook_event_name: 'PermissionRequest', session_id: session, turn_id: 't-held', tool_name: 'Bash', tool_input: { command } });
  const [request] = await watch.waitEvents(1);
  watch.close();
  const sock = await openSocket(s.up.url, s.token, 'consumer');
  try {
    const cmd = makeCommand('control.attention.respond', request.session, { subject: request.id, data: { answer: { option: 'allow' } } });
    const r = await sendCommand(sock, cmd, { ackWindowMs: 10_000, outcomeWindowMs: 10_000, isFinal: (e) => e.type === 'attention.resolved' });
    expect(r.kind).toBe('acked');
  } finally {
    sock.close();
  }
  return { reply: await reply, request };
}

describe('the bounds themselves', () => {
  it('ids: unchanged up to the bound; over it a head + ~ + digest, deterministic, idempotent, distinct for a shared prefix, never a split surrogate', () => {
    const ok = 'a'.repeat(MAX_ID_CHARS);
    expect(boundId(ok)).toBe(ok);
    const long = 'b'.repeat(MAX_ID_CHARS + 1);
    expect(boundId(long)).toHaveLength(MAX_ID_CHARS);
    expect(boundId(long)).toMatch(/^b+~[0-9a-f]{32}$/);
    expect(boundId(boundId(long))).toBe(boundId(long));
    expect(boundId(`${long}1`)).not.toBe(boundId(`${long}2`));
    const emoji = '😀'.repeat(MAX_ID_CHARS);
    expect(boundId(emoji)).toBe(Buffer.from(boundId(emoji), 'utf8').toString('utf8')); // no lone surrogate (it would not survive UTF-8)
  });
  it('data: identifier-named strings bounded; over the byte bound the largest strings become markers; small data untouched (same object)', () => {
    const small = { tool: { name: 'Bash', call_id: 'c1' }, args: { command: 'ls' } };
    expect(boundData(small, 100).data).toBe(small);
    const ids = boundData({ tool: { name: 'n'.repeat(10_000), call_id: 'c'.repeat(10_000) }, note: 'x'.repeat(10_000) }, 100).data as any;
    expect(ids.tool.name).toHaveLength(MAX_ID_CHARS);
    expect(ids.tool.call_id).toHaveLength(MAX_ID_CHARS);
    expect(ids.note).toHaveLength(10_000); // not an identifier, within the byte bound
    const big = { a: 'a'.repeat(600_000), b: 'b'.repeat(600_000), c: 'c'.repeat(1000) };
    const r = boundData(big, 1000);
    expect(r.truncatedFrom).toBeGreaterThan(1_200_000);
    expect((r.data as any).a).toMatch(TRUNCATED_RE); // the largest first, only as many as needed
    expect((r.data as any).b).toHaveLength(600_000);
    expect((r.data as any).c).toHaveLength(1000);
    expect(big.a).toHaveLength(600_000); // the caller's object is not touched
    const many = boundData({ list: Array.from({ length: 200_000 }, (_, i) => `item-${i}`) }, 1000);
    expect(many.data).toEqual({ truncated: true });
  });
});

describe('a 7 MB session id', () => {
  it('is bounded (digest-suffixed), logged and delivered; the next event arrives; a held prompt in that session is answered', async () => {
    const agent = 'codex-metadata';
    const huge = `s${'x'.repeat(7_000_000)}`;
    const watch = await SseClient.open(s.up.url, { filter: JSON.stringify({ agent }) }, auth());
    try {
      await hook(agent, { hook_event_name: 'SessionStart', session_id: huge, source: 'startup', model: 'm' });
      await hook(agent, { hook_event_name: 'UserPromptSubmit', session_id: huge, turn_id: 't1', prompt: 'hi' });
      const evs = await watch.waitEvents(2);
      const bounded = `${huge.slice(0, MAX_ID_CHARS - 33)}~${aepDigest(huge)}`;
      for (const ev of evs) {
        expect(ev.session).toBe(bounded);
        expect(ev.session.length).toBeLessThanOrEqual(MAX_ID_CHARS);
        expect(Buffer.byteLength(JSON.stringify(ev))).toBeLessThan(16 * 1024);
      }
      // a long id the same way bounds the same way: one session, not one per firing
      expect(new Set(evs.map((e) => e.session)).size).toBe(1);
      // the next (ordinary) event still reaches the subscriber
      await hook(agent, { hook_event_name: 'UserPromptSubmit', session_id: 'after-huge', turn_id: 't1', prompt: 'next' });
      await until('the next event', () => watch.events.some((e) => e.session === 'after-huge'));
      // and a prompt held in the huge session is answerable
      const { reply, request } = await answerHeld(agent, huge, 'ls');
      expect(request.session).toBe(bounded);
      expect(JSON.parse(reply).hookSpecificOutput.decision.behavior).toBe('allow');
      for (const l of logged(agent)) expect(l.bytes).toBeLessThan(16 * 1024);
    } finally {
      watch.close();
    }
  }, 60_000);
});

describe('a 5 MiB prompt', () => {
  for (const level of LEVELS) {
    it(
      `at capture ${level}: mapped, logged and delivered within the bound, marked when cut; the ` + `next event arrives; a held 5 MiB command is answered`,
      async () => {
        const agent = `codex-${level}`;
        const session = `big-${level}`;
        const prompt = `cat <<'EOF' > notes.txt\n${'a line of an ordinary heredoc, nothing secret in it\n'.repeat(105_000)}EOF`;
        expect(prompt.length).toBeGreaterThan(5 * 1024 * 1024);
        const watch = await SseClient.open(s.up.url, { filter: JSON.stringify({ agent, session }) }, auth());
        try {
          await hook(agent, { hook_event_name: 'UserPromptSubmit', session_id: session, turn_id: 't1', prompt });
          const [started] = await watch.waitEvents(1);
          expect(started.type).toBe('run.started');
          expect(started.capture).toBe(level);
          const size = Buffer.byteLength(JSON.stringify(started));
          expect(size).toBeLessThanOrEqual(DEFAULT_MAX_EVENT_BYTES);
          if (level === 'metadata') {
            // the prompt is above the level: nothing large to cut, nothing marked
            expect(started.data.prompt).toBeUndefined();
            expect(started.hookmaptruncated).toBeUndefined();
          } else {
            const m = TRUNCATED_RE.exec(started.data.prompt);
            expect(m, 'the prompt is replaced by its marker').not.toBeNull();
            expect(Number(m![1])).toBeGreaterThan(5 * 1024 * 1024);
            expect(started.hookmaptruncated).toBeGreaterThan(5 * 1024 * 1024);
          }
          await hook(agent, { hook_event_name: 'Stop', session_id: session, turn_id: 't1' });
          await until('the next event', () => watch.events.some((e) => e.type === 'run.finished'));
          const { reply, request } = await answerHeld(agent, session, prompt);
          expect(Buffer.byteLength(JSON.stringify(request))).toBeLessThanOrEqual(DEFAULT_MAX_EVENT_BYTES);
          if (level !== 'metadata') expect(request.data.prompt).toMatch(TRUNCATED_RE);
          expect(JSON.parse(reply).hookSpecificOutput.decision.behavior).toBe('allow');
          for (const l of logged(agent)) expect(l.bytes).toBeLessThanOrEqual(DEFAULT_MAX_EVENT_BYTES);
        } finally {
          watch.close();
        }
      },
      90_000,
    );
  }
});
