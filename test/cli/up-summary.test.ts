// `hookmap up` as a newcomer meets it (issue 31, item 9): a short summary
// (where it listens, the inbox, the token file, the agents ready on ONE
// line, the opt-ins in effect, the commands to run next), the per-agent
// detail only under --verbose, one line when stopped; a second `up` says in
// one line that one runs already, where, and exits 2. The real CLI, spawned.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';
import { listVendors } from '../../engine/core/descriptor/registry.ts';
import { BIN } from '../runtime/shim/helpers.ts';
import { until } from '../runtime/daemon/helpers.ts';

const scratch = mkdtempSync(join(tmpdir(), 'hookmap-up-cli-'));
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  rmSync(scratch, { recursive: true, force: true });
});

const envFor = (home: string): NodeJS.ProcessEnv => ({ ...process.env, HOOKMAP_HOME: home, HOOKMAP_TOKEN: '', HOOKMAP_TOKEN_FILE: '', HOOKMAP_URL: '' });

interface Running {
  child: ChildProcess;
  url: string;
  stderr: () => string;
  exit: Promise<number | string | null>;
}

/** `hookmap up` as a child; resolves once its summary ended ('Ctrl-C stops it'). */
async function up(args: string[], env: NodeJS.ProcessEnv): Promise<Running> {
  const child = spawn(process.execPath, [BIN, 'up', ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let out = '';
  let err = '';
  child.stdout!.on('data', (c) => (out += c));
  child.stderr!.on('data', (c) => (err += c));
  // a death by signal resolves to the signal's name (and prints what up said last), so a failure says how it ended
  const exit = new Promise<number | string | null>((r) =>
    child.once('exit', (code, signal) => {
      if (code === null) process.stderr.write(`up died of ${signal}; its last words:\n${err.slice(-2000)}\n`);
      r(code ?? signal);
    }),
  );
  await until('the summary', () => (out.includes('\n') && err.includes('Ctrl-C stops it')) || child.exitCode !== null, 60_000);
  if (child.exitCode !== null) throw new Error(`up exited ${child.exitCode}: ${err}`);
  return { child, url: out.trim(), stderr: () => err, exit };
}

const run = runCli;

/** Every daemon's relay link said hello (healthz, with the owner token). */
async function linked(url: string, home: string): Promise<void> {
  const token = readFileSync(join(home, 'token'), 'utf8').trim();
  await until(
    "the daemons' hello",
    async () => (await (await fetch(`${url}/healthz`, { headers: { authorization: `Bearer ${token}` } })).json()).relay === true,
    30_000,
  );
}

describe('hookmap up, every agent, no flags', () => {
  it('prints a short summary, the agents on one line; a second up is one line, exit 2; Ctrl-C says it stopped', async () => {
    const home = join(scratch, 'a', 'home');
    const u = await up(['--port', '0'], envFor(home));
    await linked(u.url, home);
    const lines = u.stderr().trimEnd().split('\n');
    expect(lines.length).toBeLessThanOrEqual(14);
    expect(lines).toContain(`hookmap up: listening on ${u.url} (relay + every agent's hooks, one port)`);
    expect(lines.filter((l) => l.startsWith('  inbox:'))).toEqual([`  inbox:    ${u.url}/ (hookmap open prints a one-time sign-in link)`]);
    expect(lines.find((l) => l.startsWith('  token:'))).toContain(join(home, 'token'));
    const agents = lines.filter((l) => /claude-code/.test(l));
    expect(agents).toEqual([`  agents:   ${listVendors().length} ready: ${listVendors().join(', ')}`]);
    expect(lines.find((l) => l.startsWith('  opt-ins:'))).toMatch(
      /^ {2}opt-ins: {2}none on \(\d+ off; --verbose lists each with the variable that turns it on\)$/,
    );
    expect(lines.find((l) => l.startsWith('  clients:'))).toBe(`  clients:  export HOOKMAP_URL=${u.url} (they look at http://127.0.0.1:8787 unless told)`);
    const next = lines.slice(lines.findIndex((l) => l.startsWith('  next:')));
    expect(next.map((l) => /hookmap \S+/.exec(l)?.[0])).toEqual(['hookmap setup', 'hookmap tail', 'hookmap open', undefined]);
    expect(next.at(-1)).toMatch(/^Ctrl-C stops it\. --verbose shows/);
    // the detail stays out: no per-agent endpoint, no hello per link, no OpenHands notice
    expect(u.stderr()).not.toMatch(/relay link up|no instances configured|\/hooks\/codex|logs .*\(epoch/);

    // a second up on the same home (another port) and one on another home (same port): one line each, exit 2
    const same = await run(['up', '--port', '0'], envFor(home));
    expect(same.code).toBe(2);
    expect(same.stderr).toBe(
      `hookmap up: already running at ${u.url} (pid ${u.child.pid}, HOOKMAP_HOME ${home}): stop ` +
        `it first (Ctrl-C where it runs), or give this one its own --port and HOOKMAP_HOME\n`,
    );
    const other = join(scratch, 'b', 'home');
    const port = new URL(u.url).port;
    const elsewhere = await run(['up', '--port', port], envFor(other));
    expect(elsewhere.code).toBe(2);
    expect(elsewhere.stderr.trimEnd().split('\n')).toEqual([
      expect.stringMatching(new RegExp(`^hookmap up: already running at http://127\\.0\\.0\\.1:${port} \\(pid unknown`)),
    ]);

    u.child.kill('SIGINT');
    expect(await u.exit).toBe(0);
    expect(u.stderr().trimEnd().split('\n').at(-1)).toBe(`hookmap up: stopped (${u.url})`);
    // once stopped, the home is free again
    expect(() => readFileSync(join(home, 'up.json'))).toThrow();
  }, 120_000);
});

describe('hookmap up --verbose', () => {
  it('adds each agent: endpoint, log folder, every opt-in with its variable, each relay link up', async () => {
    const home = join(scratch, 'c', 'home');
    const config = join(scratch, 'c.yaml');
    writeFileSync(config, 'agents: [codex, acp]\n');
    const u = await up(['--port', '0', '--verbose', '--config', config], { ...envFor(home), HOOKMAP_CODEX_INSTRUCT: 'true' });
    await until('both hellos', () => (u.stderr().match(/\[(codex|acp)\] relay link up/g) ?? []).length === 2, 30_000);
    const err = u.stderr();
    expect(err).toContain('  agents:   2 ready: codex, acp');
    expect(err).toContain('  opt-ins:  codex instruct (HOOKMAP_CODEX_INSTRUCT) on; 1 off');
    expect(err).toMatch(
      /^ {2}codex: POST http:\/\/127\.0\.0\.1:\d+\/hooks\/codex\[\/<hook>\] {2}logs .*\n {4}instruct: ON \(HOOKMAP_CODEX_INSTRUCT=false to turn it off/m,
    );
    expect(err).toMatch(/^ {4}control: off \(HOOKMAP_ACP_CONTROL=true to turn it on; control\.cancel\)/m);
    expect(err).toMatch(/^\[codex\] relay link up: /m);
    expect(err).toContain('Ctrl-C stops it.\n');
    u.child.kill('SIGTERM');
    expect(await u.exit).toBe(0);
  }, 120_000);

  it('without --verbose, a problem still prints: an agent that could not start', async () => {
    const home = join(scratch, 'd', 'home');
    const config = join(scratch, 'd.yaml');
    writeFileSync(config, 'agents: [codex, nosuch]\n');
    const u = await up(['--port', '0', '--config', config], envFor(home));
    expect(u.stderr()).toMatch(/^agent nosuch NOT started: unknown agent 'nosuch'/m);
    expect(u.stderr()).toContain('  agents:   1 ready: codex; NOT started: nosuch (see above)');
    u.child.kill('SIGINT');
    expect(await u.exit).toBe(0);
  }, 120_000);
});
