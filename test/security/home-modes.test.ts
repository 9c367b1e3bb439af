// Issue 40, files and logs: everything under $HOOKMAP_HOME is its owner's
// alone after normal use with umask 022 (history.db and its -wal/-shm, the
// logs, the token, state); a home left open by an older hookmap is tightened
// when `up` starts, and doctor names what is still open; a token sent in a
// hook URL's query never reaches a log line.
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { looseModes } from '../../engine/core/io/home-modes.ts';
import { redactUrl } from '../../engine/runtime/relay/auth.ts';
import { hookKeyHeaders } from '../../engine/runtime/auth/hook-key.mjs';
import { until } from '../runtime/daemon/helpers.ts';
import { BIN, runCli } from '../helpers/cli.ts';

const tmp = mkdtempSync(join(tmpdir(), 'hookmap-modes-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('the home is its owner alone', () => {
  it('after hooks, history and a stop with umask 022, and an old home left 0755 with a 0644 file', async () => {
    const home = join(tmp, 'home');
    mkdirSync(join(home, 'state'), { recursive: true, mode: 0o755 });
    chmodSync(home, 0o755);
    writeFileSync(join(home, 'state', 'older.json'), '{}', { mode: 0o644 });
    const env = { ...process.env, HOOKMAP_HOME: home, HOOKMAP_AUTOSTART: '0' };
    const up = spawn('sh', ['-c', `umask 022; exec "${process.execPath}" "${BIN}" up --port 0`], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    up.stdout.on('data', (c) => (out += c));
    up.stderr.on('data', (c) => (err += c));
    try {
      const url = await until('up listening', () => /^(http:\/\/\S+)/m.exec(out)?.[1], 60_000);
      // the hook key `up` wrote into the home (engine/runtime/auth/hook-key.mjs): what every shim presents
      const post = (path: string, body: unknown) =>
        fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...hookKeyHeaders(home) }, body: JSON.stringify(body) });
      const base = { session_id: 'm1', cwd: tmp, transcript_path: '/dev/null' };
      for (const b of [
        { hook_event_name: 'SessionStart', source: 'startup' },
        { hook_event_name: 'UserPromptSubmit', prompt: 'go' },
        { hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_use_id: 't1', tool_input: { command: 'ls' } },
        { hook_event_name: 'Stop' },
      ])
        expect((await post('/hooks/claude-code', { ...base, ...b })).status).toBe(200);
      // a token in a hook URL's query: refused or not, never written out
      await post('/hooks/no-such-agent?access_token=SEKRIT-IN-QUERY&x=1', {});
      await until('history.db', () => existsSync(join(home, 'history.db')), 30_000);
      const token = readFileSync(join(home, 'token'), 'utf8').trim();
      await fetch(`${url}/history/sessions`, { headers: { authorization: `Bearer ${token}` } });
      await until('the old home tightened', () => looseModes(home).loose.length === 0 || undefined, 15_000);
    } finally {
      up.kill('SIGTERM');
      await new Promise((r) => up.once('close', r));
    }
    expect(out + err).not.toContain('SEKRIT-IN-QUERY');
    expect(out + err).toContain('access_token=[REDACTED]');
    const { loose, seen } = looseModes(home);
    expect(loose).toEqual([]);
    expect(seen).toBeGreaterThan(8);
    for (const f of ['history.db', 'token', join('state', 'older.json')]) expect(statSync(join(home, f)).mode & 0o777).toBe(0o600);
    expect(statSync(home).mode & 0o777).toBe(0o700);
  });

  it('doctor warns about a home or a file others can read, naming it and the fix', async () => {
    const home = join(tmp, 'doctor-home');
    mkdirSync(home, { mode: 0o700 });
    chmodSync(home, 0o755);
    writeFileSync(join(home, 'rules.yaml'), 'rules: []\n', { mode: 0o644 });
    const env = { ...process.env, HOME: join(tmp, 'user'), HOOKMAP_HOME: home, HOOKMAP_URL: 'http://127.0.0.1:9' };
    const r = await runCli(['doctor'], env);
    expect(r.stdout).toMatch(/\[WARN\] 2 entries others on this machine can read or enter/);
    expect(r.stdout).toContain(`${join(home, 'rules.yaml')} (0644)`);
    expect(r.stdout).toContain('chmod -R go-rwx');
    // the home closed, the file's own bits expose nothing: a note, not a warning
    chmodSync(home, 0o700);
    const inside = await runCli(['doctor'], env);
    expect(inside.stdout).toMatch(/\[ -- \] 1 entries carry group or other permissions/);
    chmodSync(join(home, 'rules.yaml'), 0o600);
    const ok = await runCli(['doctor'], { ...process.env, HOME: join(tmp, 'user'), HOOKMAP_HOME: home, HOOKMAP_URL: 'http://127.0.0.1:9' });
    expect(ok.stdout).toMatch(/none readable by others/);
  });

  it('a logged URL (the one redactor, engine/runtime/relay/auth.ts) keeps its path, never a credential, a signature or a password', () => {
    expect(redactUrl('/hooks/codex?access_token=abc&x=1')).toBe('/hooks/codex?access_token=[REDACTED]&x=1');
    expect(redactUrl('https://user:pw@example.test/a/b?sig=zzz')).toBe('https://[REDACTED]@example.test/a/b?sig=[REDACTED]');
    expect(redactUrl('sink http://127.0.0.1:4318/v1/logs: refused')).toBe('sink http://127.0.0.1:4318/v1/logs: refused');
    expect(redactUrl('/plain/path')).toBe('/plain/path');
  });
});
