// Live: the real Gemini CLI in its ACP mode (`gemini --acp`) behind
// `hookmap tee acp`, driven by a scripted ACP client written with
// @agentclientprotocol/sdk (the editor), against the scripted model server
// (Gemini generateContent). Between the tee and Gemini a byte recorder
// (acp-record.mjs) witnesses what the agent wrote; the client records what it
// read: the two must be identical, with hookmap up and with hookmap down.
// With the operator's opt-in (HOOKMAP_ACP_CONTROL=true on `hookmap up`) the
// editor's permission request is answered from `hookmap answer` while the
// editor's own dialog is still open (its late answer is dropped by the tee),
// and `hookmap cancel` stops a running turn with the editor's own
// session/cancel.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { client, ndJsonStream } from '@agentclientprotocol/sdk';
// (the scripted editor is the SDK's own client: what Zed and other editors speak)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveAgent } from './agents.ts';
import { BIN, hookmap, until } from './harness.ts';
import { Live, unusedPort } from './live.ts';

const ID = 'acp';
const skip = Live.skipReason(ID);
if (skip) console.log(`[live] ${ID}: SKIPPED: ${skip}`);
const { agent } = resolveAgent(ID);
const RECORD = fileURLToPath(new URL('./acp-record.mjs', import.meta.url));

function writeSettings(home: string) {
  mkdirSync(join(home, '.gemini'), { recursive: true });
  writeFileSync(
    join(home, '.gemini', 'settings.json'),
    JSON.stringify(
      {
        security: { auth: { selectedType: 'gemini-api-key' }, folderTrust: { enabled: false } },
        privacy: { usageStatisticsEnabled: false },
        general: { disableAutoUpdate: true, disableUpdateNag: true },
        telemetry: { enabled: false },
      },
      null,
      2,
    ),
  );
}

interface Editor {
  /** Every byte the editor read from its agent command. */
  read(): Buffer;
  /** What the agent itself wrote (the recorder's file). */
  wrote(): Buffer;
  /** Every JSON-RPC message the agent received on its stdin (the recorder's .in file). */
  received(): any[];
  sessionId?: string;
  stop?: string;
  permissions: any[];
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>;
}

/**
 * The scripted editor: spawn `hookmap tee acp -- <recorder> -- gemini --acp`
 * as its agent command, initialize, open a session, send one prompt.
 * `permission` decides how the editor's own dialog answers (and when).
 */
function editor(
  live: Live,
  o: {
    hookmapUrl: string;
    home: string;
    project: string;
    prompt: string;
    permission: (p: any, turnDone: Promise<void>) => Promise<any>;
    during?: (e: Editor) => Promise<void>;
  },
): Promise<Editor> {
  const wroteFile = join(live.s.root, `agent-wrote-${Date.now()}.bin`);
  const env = {
    ...live.baseEnv(o.hookmapUrl),
    HOME: o.home,
    HOOKMAP_HOME: live.s.hookmapHome,
    HOOKMAP_TOKEN: '',
    HOOKMAP_TOKEN_FILE: '',
    GEMINI_API_KEY: 'live-test-not-a-key',
    GOOGLE_GEMINI_BASE_URL: live.model.url,
    GEMINI_CLI_NO_RELAUNCH: 'true',
    NO_BROWSER: '1',
  };
  const p = spawn(process.execPath, [BIN, 'tee', 'acp', '--', process.execPath, RECORD, wroteFile, '--', live.bin, '--acp', '-m', 'gemini-2.5-flash'], {
    cwd: o.project,
    env,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const seen: Buffer[] = [];
  let stderr = '';
  p.stderr.on('data', (c) => (stderr += c));
  const exit = new Promise<any>((resolve) => p.on('close', (code, signal) => resolve({ code, signal, stderr })));
  const input = new ReadableStream<Uint8Array>({
    start(c) {
      p.stdout.on('data', (b: Buffer) => {
        seen.push(b);
        c.enqueue(new Uint8Array(b));
      });
      p.stdout.on('end', () => {
        try {
          c.close();
        } catch {
          /* closed */
        }
      });
    },
  });
  let turnDone!: () => void;
  const done = new Promise<void>((r) => (turnDone = r));
  const received = () =>
    existsSync(`${wroteFile}.in`)
      ? readFileSync(`${wroteFile}.in`, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l))
      : [];
  const e: Editor = {
    read: () => Buffer.concat(seen),
    wrote: () => (existsSync(wroteFile) ? readFileSync(wroteFile) : Buffer.alloc(0)),
    received,
    permissions: [],
    exit,
  };
  const app = client({ name: 'hookmap-live-editor' })
    .onRequest('session/request_permission', async (ctx: any) => {
      e.permissions.push(ctx.params);
      return o.permission(ctx.params, done);
    })
    .onNotification('session/update', async () => {});
  const run = app.connectWith(ndJsonStream(Writable.toWeb(p.stdin) as WritableStream<Uint8Array>, input), async (agentCtx: any) => {
    await agentCtx.request('initialize', { protocolVersion: 1, clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false } });
    const s = await agentCtx.request('session/new', { cwd: o.project, mcpServers: [] });
    e.sessionId = s.sessionId;
    const during = o.during?.(e);
    const r = await agentCtx.request('session/prompt', { sessionId: s.sessionId, prompt: [{ type: 'text', text: o.prompt }] });
    e.stop = r.stopReason;
    turnDone();
    await during;
    // a late dialog answer still in flight reaches the tee before the editor hangs up
    await new Promise((res) => setTimeout(res, 300));
  });
  return run.then(
    async () => {
      p.stdin.end();
      await Promise.race([exit, new Promise((r) => setTimeout(r, 15_000))]);
      if (p.exitCode === null) p.kill('SIGTERM');
      return e;
    },
    (err) => {
      p.kill('SIGKILL');
      throw new Error(`the ACP client failed: ${err.message}\nstderr: ${stderr.slice(-2000)}`);
    },
  );
}

const allowOnce = (p: any) => ({ outcome: { outcome: 'selected', optionId: p.options.find((o: any) => o.kind === 'allow_once').optionId } });
const functionResponses = (reqs: { body: any; step?: number }[]) =>
  reqs
    .filter((r) => r.step !== undefined)
    .flatMap((r) => (r.body?.contents ?? []).flatMap((c: any) => c?.parts ?? []))
    .filter((p: any) => p?.functionResponse)
    .map((p: any) => JSON.stringify(p.functionResponse.response));

describe.skipIf(!!skip)(`${agent.pkg}@${agent.version} --acp behind hookmap tee (live)`, () => {
  const live = new Live(ID, (cmd) => ({ tool: 'run_shell_command', args: { command: cmd, description: `run ${cmd.split(' ')[0]}` } }));
  const before = process.env.HOOKMAP_ACP_CONTROL;

  beforeAll(async () => {
    process.env.HOOKMAP_ACP_CONTROL = 'true'; // the operator's opt-in, read by `hookmap up`
    await live.start(45_000);
    writeSettings(live.s.home);
  }, 90_000);

  afterAll(async () => {
    if (before === undefined) delete process.env.HOOKMAP_ACP_CONTROL;
    else process.env.HOOKMAP_ACP_CONTROL = before;
    await live.finish(agent.version);
  }, 30_000);

  it('the session, the turn and its tool calls on the stream; a permission request answered from `hookmap answer`; every byte unchanged', async () => {
    live.model.play(live.scenario('acp-permission'));
    const r0 = live.model.requests.length;
    let answered: any;
    const e = await editor(live, {
      hookmapUrl: live.up.url,
      home: live.s.home,
      project: live.s.project,
      prompt: live.scenario('acp-permission').prompt,
      // the person at the editor is slow: their dialog answers only after the turn is over (too late: dropped)
      permission: async (p, turnDone) => {
        await Promise.race([turnDone, new Promise((r) => setTimeout(r, 60_000))]);
        return { outcome: { outcome: 'selected', optionId: p.options.find((o: any) => o.kind === 'reject_once').optionId } };
      },
      during: async (ed) => {
        const req = await until(
          'the held permission request',
          () =>
            live.stream.events.find((x) => x.type === 'attention.requested' && x.session === ed.sessionId && (x.data?.respond_via ?? []).includes('control')),
          60_000,
        );
        answered = await live.answer(req.id, ['--allow']);
      },
    });
    expect(e.stop).toBe('end_turn');
    expect(e.read().equals(e.wrote())).toBe(true);
    expect(e.read().length).toBeGreaterThan(0);
    expect(existsSync(join(live.s.project, 'made-by-acp.txt'))).toBe(true);
    expect(functionResponses(live.model.requests.slice(r0)).join('\n')).toContain('hello-from-live');
    expect(answered.lines.some((l: any) => l?.type === 'control.accepted')).toBe(true);
    // Gemini got exactly one answer to its request: hookmap's allow, written as the editor writes it;
    // the editor's own (late, a reject) was dropped by the tee
    expect(e.permissions).toHaveLength(1);
    const askId = JSON.parse(
      e
        .wrote()
        .toString('utf8')
        .split('\n')
        .find((l) => l.includes('"session/request_permission"'))!,
    ).id;
    const allow = e.permissions[0].options.find((o: any) => o.kind === 'allow_once').optionId;
    expect(e.received().filter((m) => m.id === askId && !m.method)).toEqual([
      { jsonrpc: '2.0', id: askId, result: { outcome: { outcome: 'selected', optionId: allow } } },
    ]);
    const events = await until(
      'the turn on the stream',
      async () => {
        const ev = live.stream.events.filter((x) => x.session === e.sessionId);
        return ev.some((x) => x.type === 'run.finished') ? ev : undefined;
      },
      20_000,
    );
    const types = events.map((x) => x.type);
    for (const t of [
      'session.started',
      'run.started',
      'tool.requested',
      'tool.completed',
      'attention.requested',
      'control.accepted',
      'attention.answered',
      'attention.resolved',
      'run.finished',
    ])
      expect(types).toContain(t);
    expect(types.filter((t) => t === 'tool.requested')).toHaveLength(2);
    expect(types.filter((t) => t === 'tool.completed')).toHaveLength(2);
    expect(events.find((x) => x.type === 'attention.answered')?.data).toMatchObject({ answer: { option: 'allow' }, via: 'control' });
    await live.checkSession(e.sessionId!);
    // hookmap's answer is on the wire as the request's answer, not as a stray response
    expect(live.stream.events.filter((x) => x.type === 'x.acp.response.unmatched')).toEqual([]);
  }, 240_000);

  it("`hookmap cancel` stops a running turn with the editor's own session/cancel", async () => {
    live.model.play(live.scenario('acp-slow'));
    let cancelled: any;
    const e = await editor(live, {
      hookmapUrl: live.up.url,
      home: live.s.home,
      project: live.s.project,
      prompt: live.scenario('acp-slow').prompt,
      permission: async (p) => allowOnce(p),
      during: async (ed) => {
        await until('the slow tool to start', () => live.stream.events.find((x) => x.type === 'tool.requested' && x.session === ed.sessionId), 60_000);
        // no token typed: cancel finds the one `up` created in the scratch HOOKMAP_HOME
        cancelled = await hookmap(['cancel', ed.sessionId!, '--url', live.up.url, '--json'], {
          ...process.env,
          HOOKMAP_HOME: live.s.hookmapHome,
          HOOKMAP_TOKEN: '',
          HOOKMAP_TOKEN_FILE: '',
        });
      },
    });
    expect(cancelled.code, cancelled.stdout + cancelled.stderr).toBe(0);
    expect(e.stop).toBe('cancelled');
    expect(e.read().equals(e.wrote())).toBe(true);
    const ended = await until('run.cancelled', () => live.stream.events.find((x) => x.type === 'run.cancelled' && x.session === e.sessionId), 20_000);
    expect(ended.data).toMatchObject({ by: 'control' });
    await live.checkSession(e.sessionId!);
  }, 240_000);

  it('hookmap down: the editor answers its own dialog, the turn completes, every byte unchanged', async () => {
    const port = await unusedPort();
    const home = join(live.s.root, 'home-down');
    const project = join(live.s.root, 'project-down');
    mkdirSync(project, { recursive: true });
    writeSettings(home);
    live.model.play(live.scenario('acp-permission'));
    const t0 = Date.now();
    const e = await editor(live, {
      hookmapUrl: `http://127.0.0.1:${port}`,
      home,
      project,
      prompt: live.scenario('acp-permission').prompt,
      permission: async (p) => allowOnce(p),
    });
    expect(e.stop).toBe('end_turn');
    expect(e.permissions).toHaveLength(1);
    expect(e.read().equals(e.wrote())).toBe(true);
    expect(existsSync(join(project, 'made-by-acp.txt'))).toBe(true);
    expect((await e.exit).code).toBe(0);
    expect(Date.now() - t0).toBeLessThan(90_000);
  }, 180_000);
});
