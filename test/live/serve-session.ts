// OpenCode and its fork Kilo Code driven the same way in the live suite:
// `<bin> serve` on a loopback port (the plugin loads inside it), a session
// per prompt over its HTTP API, one message to its end, then the last bus
// moments (session.idle) through the plugin and the run they close on the
// stream; and `<bin> run --format json` for the one-shot paths.
import { spawn, type ChildProcess } from 'node:child_process';
import { run, sleep, until, type Run } from './harness.ts';
import { unusedPort, type Live } from './live.ts';

export interface Served {
  api(method: string, path: string, body?: unknown, timeoutMs?: number): Promise<{ status: number; text: string; json: () => any }>;
  /** One non-interactive prompt through `<bin> serve`: a new session, one message, to its end (bounded). */
  prompt(text: string, o?: { onSession?: (id: string) => void; timeoutMs?: number }): Promise<Run & { session: string; reply: any }>;
  /** `<bin> run --format json -m scripted/scripted TEXT` with the agent's quiet variables. */
  oneShot(text: string, env: NodeJS.ProcessEnv, cwd: string, timeoutMs?: number): Promise<Run>;
  start(): Promise<void>;
  stop(): Promise<void>;
}

export function served(live: Live, name: string, quiet: Record<string, string>): Served {
  let server: ChildProcess | undefined;
  let serverUrl = '';
  let serverErr = '';
  const api: Served['api'] = async (method, path, body, timeoutMs = 15_000) => {
    const r = await fetch(`${serverUrl}${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await r.text();
    return { status: r.status, text, json: () => JSON.parse(text) };
  };
  return {
    api,
    async prompt(text, o = {}) {
      const t0 = Date.now();
      const s = (await api('POST', '/session', {}, 60_000)).json(); // the first request boots the instance
      o.onSession?.(s.id);
      let status = -1;
      let out: string;
      let timedOut = false;
      try {
        const r = await api(
          'POST',
          `/session/${s.id}/message`,
          { parts: [{ type: 'text', text }], model: { providerID: 'scripted', modelID: 'scripted' } },
          o.timeoutMs ?? 90_000,
        );
        status = r.status;
        out = r.text;
      } catch (e) {
        timedOut = true;
        out = String(e);
      }
      // the loop's last bus moments (session.idle) reach the daemon after the reply
      await until(
        'session.idle through the plugin',
        () => live.tap.hooks.some((h) => h.body?.event?.type === 'session.idle' && h.body.event.properties?.sessionID === s.id),
        30_000,
      ).catch(() => undefined);
      // ...and the run it closes is mapped, logged and on the stream before anyone reads them
      await until(
        'the run closed on the stream',
        () => live.stream.events.some((e: any) => e.session === s.id && ['run.finished', 'run.failed', 'run.cancelled'].includes(e.type)),
        15_000,
      ).catch(() => undefined);
      let reply: any;
      try {
        reply = JSON.parse(out);
      } catch {}
      return {
        code: status === 200 ? 0 : status,
        signal: null,
        stdout: out,
        stderr: serverErr.slice(-3000),
        ms: Date.now() - t0,
        timedOut,
        session: s.id,
        reply,
      };
    },
    oneShot: (text, env, cwd, timeoutMs = 90_000) =>
      run(live.bin, ['run', '--format', 'json', '-m', 'scripted/scripted', text], { cwd, env: { ...env, ...quiet }, timeoutMs }),
    async start() {
      const port = await unusedPort();
      server = spawn(live.bin, ['serve', '--hostname', '127.0.0.1', '--port', String(port)], {
        cwd: live.s.project,
        env: live.agentEnv,
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      server.stdout!.on('data', (c) => (out += c));
      server.stderr!.on('data', (c) => (serverErr = (serverErr + c).slice(-20_000)));
      serverUrl = await until(`${name} serve listening`, () => out.match(/listening on (http:\/\/\S+)/)?.[1], 60_000);
    },
    async stop() {
      if (!server?.pid) return;
      try {
        process.kill(-server.pid, 'SIGTERM');
      } catch {}
      await sleep(500);
      try {
        process.kill(-server.pid, 'SIGKILL');
      } catch {}
    },
  };
}
