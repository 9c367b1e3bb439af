// The CLI as a new user meets it (issue 10): `hookmap up` creates the owner
// token on its first start and `tail` / `answer` find it with no token
// typed; `--host 0.0.0.0` without a token is refused; a token in argv warns;
// `hookmap tokens` adds, lists and revokes named tokens.
import { hookKeyHeaders } from '../../engine/runtime/auth/hook-key.mjs';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';
import { ROOT } from '../../engine/core/descriptor/registry.ts';
import { until } from './helpers.ts';

const BIN = join(ROOT, 'bin/hookmap.mjs');
const homes: string[] = [];
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  for (const h of homes) rmSync(h, { recursive: true, force: true });
});

function home(): { dir: string; env: NodeJS.ProcessEnv; config: string } {
  const dir = mkdtempSync(join(tmpdir(), 'hookmap-sec-cli-'));
  homes.push(dir);
  const config = join(dir, 'up.yaml');
  writeFileSync(config, 'agents: [codex]\n');
  return { dir, config, env: { ...process.env, HOOKMAP_HOME: dir, HOOKMAP_TOKEN: '', HOOKMAP_TOKEN_FILE: '', HOOKMAP_URL: '', HOOKMAP_STATE_DIR: dir } };
}

const run = runCli;

/** `hookmap up` as a child; resolves once it printed its URL. */
async function up(args: string[], env: NodeJS.ProcessEnv): Promise<{ url: string; child: ChildProcess; stderr: () => string }> {
  const child = spawn(process.execPath, [BIN, 'up', '--port', '0', ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let out = '';
  let err = '';
  child.stdout!.on('data', (c) => (out += c));
  child.stderr!.on('data', (c) => (err += c));
  await until('the URL', () => out.includes('\n') || child.exitCode !== null, 30_000);
  if (!out.includes('\n')) throw new Error(`up exited ${child.exitCode}: ${err}`);
  return { url: out.trim(), child, stderr: () => err };
}

const stop = (c: ChildProcess) =>
  new Promise<void>((r) => (c.exitCode !== null || c.signalCode !== null ? r() : (c.once('exit', () => r()), c.kill('SIGTERM'))));

describe('a token from the first start', () => {
  it('up creates $HOOKMAP_HOME/token (0600); tail and answer work with no token typed', async () => {
    const h = home();
    const u = await up(['--config', h.config], h.env);
    try {
      const tokenFile = join(h.dir, 'token');
      expect(statSync(tokenFile).mode & 0o777).toBe(0o600);
      expect(u.stderr()).toMatch(/created the owner token/);
      expect((await fetch(`${u.url}/events`)).status).toBe(401);
      // a held permission request, then tail sees it and answer settles it, nobody typing a token
      const reply = fetch(`${u.url}/hooks/codex`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...hookKeyHeaders(h.dir) }, // up created the home's hook key too
        body: JSON.stringify({
          hook_event_name: 'PermissionRequest',
          session_id: 'cli-s1',
          turn_id: 't1',
          tool_name: 'Bash',
          tool_input: { command: 'make deploy' },
        }),
      }).then((r) => r.text());
      const token = readFileSync(tokenFile, 'utf8').trim();
      await until('the request in the relay', async () =>
        (
          await fetch(`${u.url}/events?from=all&live=0&filter=${encodeURIComponent(JSON.stringify({ type: 'attention.requested' }))}`, {
            headers: { accept: 'text/event-stream', authorization: `Bearer ${token}` },
          }).then((r) => r.text())
        ).includes('attention.requested'),
      );
      const t = await run(['tail', '--json', '--from', 'all', '--no-follow', '--no-resume', '--url', u.url, '--filter', 'type=attention.requested'], h.env);
      expect(t.stderr).toBe('');
      const request = t.stdout
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l))[0];
      expect(request.data.prompt).toMatch(/make deploy/);
      const a = await run(['answer', request.id, '--allow', '--url', u.url], h.env);
      expect(a.stderr).toBe('');
      expect(a.code).toBe(0);
      expect(a.stdout).toMatch(/accepted by the target/);
      expect(await reply).toContain('"behavior":"allow"');
      // the audit trail names the owner token's principal
      const rec = readFileSync(join(h.dir, 'audit.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(rec).toEqual([expect.objectContaining({ principal: 'owner', outcome: 'routed' })]);
      // a second start reuses the same token
      await stop(u.child);
      const again = await up(['--config', h.config], h.env);
      expect(again.stderr()).not.toMatch(/created the owner token/);
      await stop(again.child);
    } finally {
      await stop(u.child);
    }
  }, 180_000);

  it('a token in argv works but warns; --token-file and HOOKMAP_TOKEN_FILE are read', async () => {
    const h = home();
    const u = await up(['--config', h.config, '--token', 's3cret-from-argv'], h.env);
    try {
      expect(u.stderr()).toMatch(/--token puts the secret in the process list/);
      const t = await run(['tail', '--json', '--no-follow', '--url', u.url, '--token', 's3cret-from-argv'], h.env);
      expect(t.code).toBe(0);
      expect(t.stderr).toMatch(/warning: --token puts the secret/);
      const f = join(h.dir, 'my-token');
      writeFileSync(f, 's3cret-from-argv\n', { mode: 0o600 });
      expect((await run(['tail', '--json', '--no-follow', '--url', u.url, '--token-file', f], h.env)).code).toBe(0);
      expect((await run(['tail', '--json', '--no-follow', '--url', u.url], { ...h.env, HOOKMAP_TOKEN_FILE: f })).code).toBe(0);
      writeFileSync(join(h.dir, 'loose'), 's3cret-from-argv\n', { mode: 0o644 });
      const loose = await run(['tail', '--json', '--no-follow', '--url', u.url, '--token-file', join(h.dir, 'loose')], h.env);
      expect(loose.code).toBe(2);
      expect(loose.stderr).toMatch(/readable by others/);
      // no token found: a clear hint, exit 2
      const none = await run(['tail', '--json', '--no-follow', '--url', u.url], h.env);
      expect(none.code).toBe(2);
      expect(none.stderr).toMatch(/401/);
      expect(none.stderr).toMatch(/no token found/);
    } finally {
      await stop(u.child);
    }
  }, 120_000);
});

describe('binding beyond loopback', () => {
  it('--host 0.0.0.0 without a token is refused; with one it says where it listens and that traffic is plain HTTP', async () => {
    const h = home();
    const refused = await run(['up', '--port', '0', '--host', '0.0.0.0', '--no-auth', '--config', h.config], h.env);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/refusing to listen on 0\.0\.0\.0 without a token/);
    const relay = await run(['relay', '--port', '0', '--host', '0.0.0.0', '--no-auth'], h.env);
    expect(relay.code).toBe(2);
    expect(relay.stderr).toMatch(/refusing to listen on 0\.0\.0\.0 without a token/);
    const u = await up(['--host', '0.0.0.0', '--config', h.config], h.env);
    try {
      expect(u.stderr()).toMatch(/reachable from the network/);
      expect(u.stderr()).toMatch(/traffic is plain HTTP/);
    } finally {
      await stop(u.child);
    }
  }, 120_000);

  it('--no-auth on loopback: reading is open, answering never is', async () => {
    const h = home();
    const u = await up(['--no-auth', '--config', h.config], h.env);
    try {
      expect((await fetch(`${u.url}/events`)).status).toBe(200);
      expect(u.stderr()).toMatch(/control: OFF/);
      const a = await run(['answer', 'nothing', '--allow', '--session', 's', '--url', u.url], h.env);
      expect(a.code).toBe(1);
      expect(a.stdout).toMatch(/refused by the relay: unauthorized/);
    } finally {
      await stop(u.child);
    }
  }, 120_000);
});

describe('hookmap tokens', () => {
  it('adds (shown once, only a digest kept), lists and revokes named tokens', async () => {
    const h = home();
    const add = await run(['tokens', 'add', 'phone', '--scope', 'control'], h.env);
    expect(add.code).toBe(0);
    const token = add.stdout.trim();
    expect(token).toMatch(/^hmk_[A-Za-z0-9_-]{43}$/);
    const file = readFileSync(join(h.dir, 'tokens.json'), 'utf8');
    expect(file).not.toContain(token);
    expect(statSync(join(h.dir, 'tokens.json')).mode & 0o777).toBe(0o600);
    const list = await run(['tokens', 'list', '--json'], h.env);
    expect(JSON.parse(list.stdout)).toEqual([{ name: 'phone', scopes: ['read', 'control'], created: expect.any(String) }]);
    expect(list.stdout).not.toContain(token);
    expect((await run(['tokens', 'add', 'phone'], h.env)).code).toBe(2);
    expect((await run(['tokens', 'add', 'x', '--scope', 'admin'], h.env)).stderr).toMatch(/unknown scope 'admin'/);
    expect((await run(['tokens', 'revoke', 'owner'], h.env)).code).toBe(2);
    expect((await run(['tokens', 'revoke', 'phone'], h.env)).code).toBe(0);
    expect((await run(['tokens', 'revoke', 'phone'], h.env)).code).toBe(1);
  }, 120_000);
});
