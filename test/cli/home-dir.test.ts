// Every command creates $HOOKMAP_HOME (0700) when it writes there (issue 31,
// item 13): a `hookmap relay --no-auth` writes no token, so its first audit
// line is the first thing it writes into a home that does not exist yet; it
// used to log `audit: cannot append ... ENOENT` on every command instead.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';
import { ROOT } from '../../engine/core/descriptor/registry.ts';
import { until } from '../runtime/daemon/helpers.ts';

const BIN = join(ROOT, 'bin/hookmap.mjs');
const scratch = mkdtempSync(join(tmpdir(), 'hookmap-home-'));
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  rmSync(scratch, { recursive: true, force: true });
});

const run = runCli;

describe('a $HOOKMAP_HOME that does not exist yet', () => {
  it('hookmap relay --no-auth creates it (0700) at its first audit line, and says nothing about it', async () => {
    const home = join(scratch, 'not', 'yet');
    const env = { ...process.env, HOOKMAP_HOME: home, HOOKMAP_TOKEN: '', HOOKMAP_TOKEN_FILE: '', HOOKMAP_URL: '' };
    const relay = spawn(process.execPath, [BIN, 'relay', '--no-auth', '--port', '0'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(relay);
    let out = '';
    let err = '';
    relay.stdout!.on('data', (c) => (out += c));
    relay.stderr!.on('data', (c) => (err += c));
    await until('the URL', () => out.includes('\n'), 30_000);
    const url = out.trim();
    // two commands, both refused (nobody may answer a --no-auth relay), both audited
    for (const id of ['a1', 'a2']) {
      const a = await run(['answer', id, '--allow', '--session', 's', '--url', url], env);
      expect(a.code).toBe(1);
    }
    await until('two audit lines', () => {
      try {
        return readFileSync(join(home, 'audit.jsonl'), 'utf8').trim().split('\n').length === 2;
      } catch {
        return false;
      }
    });
    expect(statSync(home).mode & 0o777).toBe(0o700);
    expect(statSync(join(scratch, 'not')).mode & 0o777).toBe(0o700);
    expect(statSync(join(home, 'audit.jsonl')).mode & 0o777).toBe(0o600);
    expect(err).not.toMatch(/audit|ENOENT/);
    relay.kill('SIGTERM');
    await new Promise((r) => relay.once('exit', r));
  }, 60_000);
});
