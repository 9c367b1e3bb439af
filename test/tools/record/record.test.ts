// `hookmap record`: the daemon's replies unchanged, every raw payload saved as
// a `kind: recorded` fixture candidate with the agent's version, redacted
// with the strictest settings, 0600, outside the repository by default; a
// file the secret scanner still flags is refused; `promote` shows the diff
// before copying into fixtures/ (issue 10).
import { afterAll, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { loadVendor } from '../../../engine/core/descriptor/registry.ts';
import { promote, Recorder, recordedDir, recordingLogDir, startRecord, versionOf } from '../../../engine/tools/record/recorder.ts';
import { upStack } from '../../helpers/up-stack.ts';

const dir = mkdtempSync(join(tmpdir(), 'hookmap-record-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('hookmap record', () => {
  it('answers like serve and saves each payload, redacted, with the agent version', async () => {
    const out = join(dir, 'cursor');
    const rec = await startRecord({ descriptor: loadVendor('cursor'), port: 0, out, logDir: join(dir, 'logs') });
    try {
      const payload = {
        hook_event_name: 'beforeSubmitPrompt',
        conversation_id: 'conv-1',
        generation_id: 'gen-1',
        workspace_roots: ['/p'],
        cursor_version: '2.0.77',
        prompt: 'deploy with key sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789ABCD',
      };
      const res = await fetch(`${rec.url}/hooks/cursor`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(payload) });
      expect(res.status).toBe(200);
      expect(await res.text()).toBe('{}');
      const res2 = await fetch(`${rec.url}/hooks/cursor/stop`, { method: 'POST', body: 'not json' });
      expect(res2.status).toBe(200);
      expect(rec.files).toHaveLength(2);
      const doc = parse(readFileSync(rec.files[0], 'utf8'));
      expect(doc).toMatchObject({ kind: 'recorded', agent: 'cursor', hook: 'beforeSubmitPrompt', agent_version: '2.0.77' });
      expect(doc.payload.conversation_id).toBe('conv-1');
      expect(doc.payload.prompt).not.toContain('sk-ant-api03');
      const raw = parse(readFileSync(rec.files[1], 'utf8'));
      expect(raw).toMatchObject({ kind: 'recorded', hook: 'stop', payload: 'not json' });
    } finally {
      await rec.close();
    }
  });

  it('redacts what real commands carry with the strictest settings, writes 0600 in a 0700 folder under $HOOKMAP_HOME/recorded/<agent>', async () => {
    const home = join(dir, 'home');
    const env = { HOOKMAP_HOME: home, HOOKMAP_REDACT_PII: 'off', DEPLOY_TOKEN: 'dt-live-0099887766' };
    const rec = await startRecord({ descriptor: loadVendor('codex'), port: 0, logDir: join(dir, 'logs2'), home, env });
    try {
      expect(rec.out).toBe(join(home, 'recorded', 'codex'));
      expect(rec.out).toBe(recordedDir(home, 'codex'));
      const command = [
        'DATABASE_URL=postgres://admin:Sup3rS3cret@db.internal:5432/app',
        'STRIPE_KEY=sk_live_51HqLyjWDarjtT1zdp7dcABCDEF',
        "curl -H 'Authorization: Basic YWRtaW46aHVudGVyMg==' -u deploy:Tr0ub4dor https://api.test",
        'echo dt-live-0099887766 from a secret-named env var; mail ops@example.com',
      ].join(' && ');
      const payload = {
        hook_event_name: 'PreToolUse',
        session_id: 's1',
        turn_id: 't1',
        tool_name: 'shell',
        tool_use_id: 'c1',
        cwd: '/home/alice/proj',
        tool_input: { command, env: { GITHUB_TOKEN: 'plain-value', API_KEY: 'abc' } },
      };
      const res = await fetch(`${rec.url}/hooks/codex`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(payload) });
      expect(res.status).toBe(200);
      expect(rec.files).toHaveLength(1);
      const text = readFileSync(rec.files[0], 'utf8');
      for (const s of ['Sup3rS3cret', 'sk_live_51Hq', 'YWRtaW46aHVudGVyMg', 'Tr0ub4dor', 'dt-live-0099887766', 'ops@example.com', 'plain-value', '/home/alice'])
        expect(text, s).not.toContain(s);
      expect(text).toContain('postgres://admin:[REDACTED:secret]@db.internal:5432/app');
      expect(statSync(rec.files[0]).mode & 0o777).toBe(0o600);
      expect(statSync(rec.out).mode & 0o777).toBe(0o700);
    } finally {
      await rec.close();
    }
  });

  it('runs beside `up` for the same agent in the same home; what it maps stays out of the history', async () => {
    const s = await upStack({ prefix: 'hookmap-record-beside-', agents: [{ descriptor: 'codex' }] });
    const rec = await startRecord({ descriptor: loadVendor('codex'), port: 0, home: s.home });
    try {
      expect(rec.out).toBe(recordedDir(s.home, 'codex'));
      const payload = { hook_event_name: 'SessionStart', session_id: 'rec-only', cwd: '/w', model: 'm', source: 'startup', transcript_path: null };
      const res = await fetch(`${rec.url}/hooks/codex`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(payload) });
      expect(res.status).toBe(200);
      expect(rec.files).toHaveLength(1);
      expect(existsSync(join(recordingLogDir(rec.out), 'daemon.lock'))).toBe(true);
      // up's own codex still answers, and its logs (what the history indexes) never saw the recorded session
      const live = { ...payload, session_id: 'up-one' };
      expect(
        (await fetch(`${s.url}/hooks/codex`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(live) })).status,
      ).toBe(200);
      const logged = readdirSync(join(s.home, 'logs', 'codex'), { recursive: true })
        .map(String)
        .join(' ');
      expect(logged).not.toContain('rec-only');
      const inLogs = readdirSync(join(s.home, 'logs', 'codex'), { recursive: true, withFileTypes: true })
        .filter((f) => f.isFile())
        .map((f) => readFileSync(join(f.parentPath ?? (f as unknown as { path: string }).path, f.name), 'utf8'))
        .join('');
      expect(inLogs).toContain('up-one');
      expect(inLogs).not.toContain('rec-only');
    } finally {
      await rec.close();
      await s.done();
    }
  });

  it('refuses to write a file in which the secret scanner still finds a secret (a secret used as an object key)', async () => {
    const said: string[] = [];
    const r = new Recorder(loadVendor('codex'), join(dir, 'refused'), { say: (l) => said.push(l), env: {} });
    const body = Buffer.from(
      JSON.stringify({ hook_event_name: 'PreToolUse', session_id: 's1', tool_input: { ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789: 'the token is the key' } }),
    );
    expect(await r.save('PreToolUse', body, async () => undefined)).toBeUndefined();
    expect(r.refused).toBe(1);
    expect(existsSync(join(dir, 'refused'))).toBe(false);
    expect(said.join('\n')).toMatch(/refused to write .*github-pat/s);
    expect(said.join('\n')).not.toContain('AbCdEfGhIjKlMnOpQrStUvWxYz');
  });

  it('promote shows the diff, copies only when asked, and refuses a flagged candidate', () => {
    const cands = join(dir, 'cands');
    const fixtures = join(dir, 'fixtures');
    mkdirSync(cands, { recursive: true });
    const a = join(cands, 'a.yaml');
    writeFileSync(a, 'kind: recorded\nagent: codex\npayload:\n  x: 1\n');
    const dry = promote('codex', [a], { fixtures, dryRun: true, env: {} });
    expect(dry[0].status).toBe('new');
    expect(dry[0].diff).toContain('--- /dev/null');
    expect(dry[0].diff).toContain('+  x: 1');
    expect(existsSync(join(fixtures, 'codex', 'recorded', 'a.yaml'))).toBe(false);
    expect(promote('codex', [a], { fixtures, env: {} })[0].status).toBe('new');
    expect(readFileSync(join(fixtures, 'codex', 'recorded', 'a.yaml'), 'utf8')).toContain('x: 1');
    writeFileSync(a, 'kind: recorded\nagent: codex\npayload:\n  x: 2\n');
    const changed = promote('codex', [a], { fixtures, env: {} })[0];
    expect(changed.status).toBe('changed');
    expect(changed.diff).toMatch(/-  x: 1\n\+  x: 2/);
    expect(promote('codex', [a], { fixtures, env: {} })[0].status).toBe('same');
    const b = join(cands, 'b.yaml');
    writeFileSync(b, 'kind: recorded\npayload:\n  cmd: export STRIPE_KEY=sk_live_51HqLyjWDarjtT1zdp7dcABCDEF\n');
    const refused = promote('codex', [b], { fixtures, env: {} })[0];
    expect(refused.status).toBe('refused');
    expect(refused.findings.map((f) => f.rule).join()).toMatch(/stripe-secret-key|keyed-secret/);
    expect(existsSync(join(fixtures, 'codex', 'recorded', 'b.yaml'))).toBe(false);
  });

  it('finds the version a payload states about its agent', () => {
    expect(versionOf({ kind: 'bus', event: { properties: { info: { version: '1.17.18' } } } })).toBe('1.17.18');
    expect(versionOf({ cursor_version: '2.0.77' })).toBe('2.0.77');
    expect(versionOf({ a: 1 })).toBeUndefined();
  });
});
