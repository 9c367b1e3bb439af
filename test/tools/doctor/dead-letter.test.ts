// `hookmap doctor` and dead-letter files (engine/tools/doctor/dead-letter.ts): none
// is an ok line; a file the relay link really wrote (a relay whose frame
// limit a prompt exceeds) is named with its line count, its newest entry's
// time and code and what to do; several files (one per agent), a record
// naming its own code, an invalid-event refusal and a torn last line are
// each reported as they are. Temp HOOKMAP_HOME; no daemon answers (port 9).
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Daemon } from '../../../engine/runtime/daemon/daemon.ts';
import { DEAD_LETTER_FILE } from '../../../engine/runtime/daemon/relay-link.ts';
import { loadVendor } from '../../../engine/core/descriptor/registry.ts';
import { runDoctor } from '../../../engine/tools/doctor/index.ts';
import { renderReport } from '../../../engine/tools/doctor/render.ts';
import { createRelay } from '../../../engine/runtime/relay/index.ts';
import { until } from '../../runtime/daemon/helpers.ts';
import { resolveTarget } from '../../../engine/cli/config.ts';

const TOKEN = 'doctor-dead-letter-token';
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

function home(): { env: NodeJS.ProcessEnv; dir: string; logs: string } {
  const dir = mkdtempSync(join(tmpdir(), 'hookmap-doctor-dl-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: join(dir, 'home'), HOOKMAP_HOME: join(dir, 'hm') };
  mkdirSync(env.HOME!, { recursive: true });
  // hookmap's own home is made 0700 (engine/core/io/home-modes.ts); the logs written below inside it keep the test's umask
  mkdirSync(env.HOOKMAP_HOME!, { mode: 0o700 });
  return { env, dir, logs: join(env.HOOKMAP_HOME!, 'logs') };
}

const doctor = (env: NodeJS.ProcessEnv, dir: string) => runDoctor({ target: resolveTarget(env), dir, url: 'http://127.0.0.1:9', agents: [] });
const about = (r: Awaited<ReturnType<typeof doctor>>, path: string) => r.findings.filter((f) => f.subject === path);

/** codex at capture `full`, so a prompt's size reaches the wire. */
function fullCodex(dir: string) {
  const src = readFileSync(join(import.meta.dirname, '../../../vendors/codex.yaml'), 'utf8');
  const path = join(dir, 'codex.yaml');
  writeFileSync(path, src.replace(/ceiling: metadata\n\s+overrides: \{ attention: redacted \}/, 'ceiling: full\n  overrides: { attention: full }'));
  return loadVendor(path);
}

describe('hookmap doctor: dead-letter files', () => {
  it('says ok when there is none', async () => {
    const { env, dir, logs } = home();
    mkdirSync(join(logs, 'codex'), { recursive: true });
    const r = await doctor(env, dir);
    const f = r.findings.find((x) => /dead-letter/.test(x.message))!;
    expect(f).toMatchObject({ area: 'logs', status: 'ok', subject: logs });
    expect(f.message).toBe('no dead-letter files: the relay refused no event');
    expect(r.warnings).toBe(0);
  });

  it('names a file the relay link set aside: path, line count, newest time and code, what to do', async () => {
    const { env, dir, logs } = home();
    const relay = createRelay({ port: 0, token: TOKEN, maxFrame: 64 * 1024 });
    const { url } = await relay.listen();
    cleanups.push(() => relay.close());
    const logDir = join(logs, 'codex');
    const d = Daemon.open({ descriptor: fullCodex(dir), logDir });
    d.connectRelay(url, TOKEN);
    cleanups.push(() => d.close());
    await until('the relay hello', () => d.relayReady);
    await d.handle({
      hook: 'UserPromptSubmit',
      payload: { hook_event_name: 'UserPromptSubmit', session_id: 'dl-1', turn_id: 't1', prompt: 'p'.repeat(200_000) },
    });
    const file = join(logDir, DEAD_LETTER_FILE);
    const rec = await until('the dead-letter record', () => {
      try {
        return JSON.parse(readFileSync(file, 'utf8').split('\n')[0]);
      } catch {
        return undefined;
      }
    });

    const r = await doctor(env, dir);
    const [f] = about(r, file);
    expect(f.status).toBe('warn');
    expect(f.message).toBe(
      `${file}: 1 event the relay refused, set aside (still in the session logs, never seen on ` +
        `the stream); newest ${rec.time} over-frame-limit (run.started ${rec.id})`,
    );
    expect(f.fix).toMatch(/^the event is larger than the relay's frame limit: lower the agent's capture ceiling/);
    expect(f.fix).toContain(`move ${file} away`);
    expect(r.healthy).toBe(true); // the events are in the session logs: worth a look, nothing lost
    expect(r.findings.some((x) => x.status === 'ok' && /no dead-letter files/.test(x.message))).toBe(false);
    expect(renderReport(r)).toContain(`[WARN] ${file}: 1 event the relay refused`);
  }, 30_000);

  it("reports each agent's file: line counts, the newest record's own code or the relay's, a torn last line", async () => {
    const { env, dir, logs } = home();
    const a = join(logs, 'claude-code', DEAD_LETTER_FILE);
    const b = join(logs, 'codex', DEAD_LETTER_FILE);
    const c = join(logs, 'gemini-cli', DEAD_LETTER_FILE);
    for (const p of [a, b, c]) mkdirSync(join(p, '..'), { recursive: true });
    const rec = (time: string, reason: string, extra: Record<string, unknown> = {}) =>
      `${JSON.stringify({ time, reason, bytes: 10, file: 's.jsonl', offset: 0, id: `id-${time.slice(11, 19)}`, type: 'tool.called', line: '{}', ...extra })}\n`;
    appendFileSync(a, rec('2026-11-30T10:00:00.000Z', "70000 bytes exceed the relay's frame limit (65536 bytes)"));
    appendFileSync(a, rec('2026-11-30T11:00:00.000Z', 'refused by the relay: invalid-event: data.tool: must be string'));
    appendFileSync(b, rec('2026-11-30T09:00:00.000Z', 'whatever the relay said', { code: 'queue-full' }));
    appendFileSync(c, rec('2026-11-30T08:00:00.000Z', 'refused by the relay: invalid-event'));
    appendFileSync(c, '{"time":"2026-11-30T08:00:01.000Z","reas'); // a write cut short

    const r = await doctor(env, dir);
    expect(r.findings.filter((f) => f.area === 'logs' && /dead-letter|refused/.test(f.message)).map((f) => f.subject)).toEqual([a, b, c]);
    const [fa] = about(r, a);
    expect(fa.message).toMatch(/: 2 events the relay refused, .*; newest 2026-11-30T11:00:00.000Z invalid-event \(tool.called id-11:00:00\)$/);
    expect(fa.fix).toMatch(/^the relay refused the envelope: the record's reason carries the relay's detail/);
    const [fb] = about(r, b);
    expect(fb.message).toMatch(/: 1 event the relay refused, .*; newest 2026-11-30T09:00:00.000Z queue-full /);
    expect(fb.fix).toMatch(/^read the reason in each record/);
    const [fc] = about(r, c);
    expect(fc.message).toMatch(/: 2 events the relay refused, .*; newest entry unreadable$/);
    expect(r.warnings).toBe(3);
    expect(r.healthy).toBe(true);
  });
});
