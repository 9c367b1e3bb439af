// The consumer CLI (tail, answer, cancel) against a live relay, and the
// `hookmap relay` process lifecycle.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { run as answer } from '../../../engine/cli/commands/answer.ts';
import { run as cancel } from '../../../engine/cli/commands/cancel.ts';
import { run as tail } from '../../../engine/cli/commands/tail.ts';
import { ev, post, startRelay, until } from './helpers.ts';

let stop: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const s of stop.reverse()) await s();
  stop = [];
  vi.restoreAllMocks();
});

function captureStdout(): string[] {
  const lines: string[] = [];
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: any) => {
    lines.push(...String(chunk).split('\n').filter(Boolean));
    return true;
  });
  vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
  return lines;
}

const token = 'cli-token';
const ACCEPTS = { control: { accepts: ['control.attention.respond', 'control.cancel'] } };

async function relayWithDaemon() {
  const r = await startRelay({ token });
  stop.push(() => r.relay.close());
  let seq = 0;
  const commands: any[] = [];
  const daemon = r.relay.connect({
    identity: { agent: 'daemon' },
    capabilities: ACCEPTS,
    onCommand: (cmd) => {
      commands.push(cmd);
      const ack = ev('s1', ++seq, { agent: 'daemon', type: 'control.accepted', cause: cmd.id, data: {} });
      daemon.emit(ack);
      if (cmd.type === 'control.attention.respond') {
        daemon.emit(
          ev('s1', ++seq, {
            agent: 'daemon',
            type: 'attention.answered',
            subject: cmd.subject,
            cause: cmd.id,
            data: { answer: cmd.data!.answer, via: 'control' },
          }),
        );
        daemon.emit(ev('s1', ++seq, { agent: 'daemon', type: 'attention.resolved', subject: cmd.subject, cause: cmd.id, data: { resolution: 'answered' } }));
      } else {
        daemon.emit(ev('s1', ++seq, { agent: 'daemon', type: 'run.cancelled', run: cmd.run ?? 'r1', cause: cmd.id, data: {} }));
      }
    },
  });
  const attn = ev('s1', ++seq, { agent: 'daemon', type: 'attention.requested', data: { kind: 'permission', prompt: 'daemon requests permission: Bash' } });
  daemon.emit(attn);
  return { ...r, commands, attn };
}

describe('hookmap answer / cancel', () => {
  it('answers an attention request found by id in the buffer, printing the ack and the outcome', async () => {
    const { url, commands, attn } = await relayWithDaemon();
    const out = captureStdout();
    const code = await answer([attn.id, '--allow', '--url', url, '--token', token]);
    expect(code).toBe(0);
    expect(commands).toHaveLength(1);
    expect(commands[0]).toMatchObject({ type: 'control.attention.respond', session: 's1', subject: attn.id, data: { answer: { option: 'allow' } } });
    expect(commands[0].seq).toBeUndefined(); // foreign emitter: commands omit seq
    expect(out.join('\n')).toMatch(/accepted by the target/);
    expect(out.join('\n')).toMatch(/outcome: attention.resolved \(answered\)/);
  });

  it('cancels a run and reports a relay refusal with its code', async () => {
    const { url, commands } = await relayWithDaemon();
    const out = captureStdout();
    expect(await cancel(['s1', '--run', 'r7', '--url', url, '--token', token])).toBe(0);
    expect(commands[0]).toMatchObject({ type: 'control.cancel', run: 'r7', data: { scope: 'run' } });
    expect(out.join('\n')).toMatch(/outcome: run.cancelled run r7/);
    out.length = 0;
    expect(await cancel(['nobody', '--url', url, '--token', token])).toBe(1);
    expect(out.join('\n')).toMatch(/refused by the relay: no-route/);
  });
});

describe('hookmap tail', () => {
  it('prints raw events with --json and resumes from its state file on a re-run', async () => {
    const r = await startRelay();
    stop.push(() => r.relay.close());
    const dir = mkdtempSync(join(tmpdir(), 'hookmap-tail-'));
    stop.push(() => rmSync(dir, { recursive: true, force: true }));
    const state = join(dir, 'tail.json');
    await post(
      r.url,
      [1, 2, 3].map((i) => ev('s', i)),
    );
    let out = captureStdout();
    expect(await tail(['--url', r.url, '--json', '--from', 'all', '--no-follow', '--state', state])).toBe(0);
    expect(out.map((l) => JSON.parse(l).seq)).toEqual([1, 2, 3]);
    expect((Object.values(JSON.parse(readFileSync(state, 'utf8')))[0] as any).s.slice(0, 2)).toEqual([0, 3]);
    vi.restoreAllMocks();
    await post(
      r.url,
      [4, 5].map((i) => ev('s', i)),
    );
    out = captureStdout();
    expect(await tail(['--url', r.url, '--json', '--no-follow', '--state', state])).toBe(0);
    expect(out.map((l) => JSON.parse(l).seq)).toEqual([4, 5]);
  });

  it('follows live with a readable view, filtered by session, until --count', async () => {
    const r = await startRelay();
    stop.push(() => r.relay.close());
    const out = captureStdout();
    const done = tail(['--url', r.url, '--session', 'b', '--count', '1', '--no-resume', '--state', join(tmpdir(), `hookmap-tail-${process.pid}.json`)]);
    await until(() => r.relay.core.subs.size === 1, 'tail subscribed');
    await post(r.url, [ev('a', 1), ev('b', 1, { type: 'attention.requested', data: { kind: 'permission', prompt: 'p' } })]);
    expect(await done).toBe(0);
    expect(out).toHaveLength(2);
    expect(out[0]).toMatch(/test b#1 attention.requested {2}permission: p/);
    expect(out[1]).toMatch(/hookmap answer e-b-1-\d+ --allow/);
  });
});

describe('hookmap relay (process)', () => {
  it('listens, serves, and exits 0 on SIGTERM after draining', async () => {
    const home = mkdtempSync(join(tmpdir(), 'hookmap-relay-home-'));
    stop.push(() => rmSync(home, { recursive: true, force: true }));
    const env = { ...process.env, HOOKMAP_HOME: home, HOOKMAP_TOKEN: '', HOOKMAP_TOKEN_FILE: '' };
    const child = spawn(process.execPath, ['bin/hookmap.mjs', 'relay', '--port', '0', '--buffer', '5'], {
      cwd: new URL('../../../', import.meta.url).pathname,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    stop.push(() => void child.kill('SIGKILL'));
    let stdout = '';
    child.stdout.on('data', (d) => (stdout += d));
    await until(() => stdout.includes('\n'), 'the relay URL');
    const url = stdout.trim();
    // a token from the first start: created in HOOKMAP_HOME, required to read
    expect((await fetch(`${url}/events`)).status).toBe(401);
    const token = readFileSync(join(home, 'token'), 'utf8').trim();
    const disc = await (await fetch(`${url}/events`, { headers: { authorization: `Bearer ${token}` } })).json();
    expect(disc.capabilities.replay.buffer).toBe(5);
    const exit = new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
    child.kill('SIGTERM');
    expect(await exit).toBe(0);
  });
});
