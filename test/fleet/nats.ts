// A real nats-server (Debian's package) for the fleet tests: JetStream on,
// loopback, an ephemeral port (-p -1: the server picks it and logs it), a
// temp store dir; restartable on the same port and store (the stream
// survives), killed at the end; optionally with a config file (`conf`:
// authorization, tls blocks: test/fleet/auth.test.ts) and a fixed port (a
// server that comes up where a relay already looks for it). Tests skip
// with a clear message when the binary is absent (.ci/run installs it).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, connect as tcpConnect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { found, NATS_TOOL, skipReason } from '../helpers/optional-tools.ts';

// where it is looked for ($NATS_SERVER: only there), and why the tests skip: test/helpers/optional-tools.ts
export const NATS_BIN = found(NATS_TOOL);
const NOT_FOUND = `nats-server not found (looked at ${NATS_TOOL.candidates.join(', ')}): the fleet tests need it (apt-get install nats-server)`;
/** Why the fleet tests skip ('' = they run); with HOOKMAP_REQUIRE_NATS (CI) they never skip: a missing server fails them. */
export const NATS_MISSING = skipReason(NATS_TOOL) ? NOT_FOUND : '';

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

function accepting(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const c = tcpConnect(port, '127.0.0.1');
    c.once('connect', () => {
      c.destroy();
      resolve(true);
    });
    c.once('error', () => resolve(false));
  });
}

export class NatsServer {
  private proc?: ChildProcess;
  private constructor(
    public port: number,
    readonly dir: string,
    readonly jetstream: boolean,
    readonly conf?: string,
  ) {}

  get url(): string {
    return `nats://127.0.0.1:${this.port}`;
  }

  /** `conf`: nats-server config text (authorization, tls); `port`: listen there instead of an ephemeral port. */
  static async start(o: { jetstream?: boolean; conf?: string; port?: number } = {}): Promise<NatsServer> {
    if (!NATS_BIN) throw new Error(NOT_FOUND);
    const s = new NatsServer(o.port ?? -1, mkdtempSync(join(tmpdir(), 'hookmap-nats-')), o.jetstream !== false, o.conf);
    await s.up();
    return s;
  }

  async up(): Promise<void> {
    const args = ['-a', '127.0.0.1', '-p', String(this.port)];
    if (this.conf !== undefined) {
      writeFileSync(join(this.dir, 'nats.conf'), this.conf);
      args.push('-c', join(this.dir, 'nats.conf'));
    }
    if (this.jetstream) args.push('-js', '-sd', this.dir);
    const proc = spawn(NATS_BIN!, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    this.proc = proc;
    let log = '';
    proc.stderr!.on('data', (d) => {
      log += d;
      if (this.port !== -1) return;
      const m = /Listening for client connections on [^\s]*:(\d+)/.exec(log);
      if (m) this.port = Number(m[1]);
    });
    for (let i = 0; i < 500; i++) {
      if (this.port !== -1 && (await accepting(this.port))) return;
      if (this.proc.exitCode !== null) throw new Error(`nats-server exited with ${this.proc.exitCode}: ${log.slice(-500)}`);
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error('nats-server did not start listening');
  }

  /** Rewrite the config and have the running server reload it (SIGHUP): changed authorization applies to connected clients too. */
  async reload(conf: string): Promise<void> {
    // a reload applies the file as the whole config: JetStream (given as -js at start) must be in it or it is switched off
    writeFileSync(join(this.dir, 'nats.conf'), this.jetstream ? `${conf}\njetstream { store_dir: ${JSON.stringify(this.dir)} }\n` : conf);
    this.proc!.kill('SIGHUP');
  }

  /** Stop it (SIGTERM: JetStream flushes its store) and wait for the exit. */
  async down(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    const p = this.proc;
    this.proc = undefined;
    if (!p || p.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      p.once('exit', () => resolve());
      p.kill(signal);
    });
  }

  async stop(): Promise<void> {
    await this.down('SIGKILL');
    rmSync(this.dir, { recursive: true, force: true });
  }
}
