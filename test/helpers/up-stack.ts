// `hookmap up` in-process the way a new user gets it, for the tests that
// drive a whole stack (e2e, mcp, security): a fresh temp HOOKMAP_HOME with the
// owner token file the CLI would create there (ensureOwnerToken), logs, audit
// and bridge state inside it, an ephemeral port, what up says kept in
// `lines`; done() closes up and removes the home. Also a consumer socket
// subscribed to everything (AEP-0002 subscribe from `all`), the way the
// e2e tests read the stream.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureOwnerToken } from '../../engine/runtime/auth/tokens.ts';
import { readHookKey } from '../../engine/runtime/auth/hook-key.mjs';
import { startUp, type Up, type UpOptions } from '../../engine/app/up.ts';
import { openSocket, type SocketSession } from '../../engine/runtime/relay/client.ts';
import { until } from '../runtime/daemon/helpers.ts';

export interface UpStack {
  up: Up;
  url: string;
  /** The temp HOOKMAP_HOME. */
  home: string;
  /** The owner token ('' with noAuth). */
  token: string;
  /** Per-agent logs: <logDir>/<agent>/. */
  logDir: string;
  /** Every line up said. */
  lines: string[];
  /** The home's hook key ('' unless `key`). */
  hookKey: string;
  done(): Promise<void>;
}

export interface UpStackOptions extends Partial<UpOptions> {
  /** The temp home's name prefix. */
  prefix?: string;
  /** Wait until every daemon's hello reached the relay (healthz `relay: true`). */
  hello?: boolean;
  /** Called with the new home before up starts (write a policy or config file there); what it returns is merged into the options. */
  setup?: (home: string) => Partial<UpOptions>;
  /**
   * Require the home's hook key as the CLI's `up` does (created in the temp home; `hookKey` in the stack). Default
   * off: the tests that predate the key post hooks without it (engine/runtime/auth/hook-key.mjs).
   */
  key?: boolean;
}

/** `hookmap up` on an ephemeral port with a fresh home and its owner token file; one agent (codex) unless `agents` says otherwise. */
export async function upStack(o: UpStackOptions = {}): Promise<UpStack> {
  const { prefix = 'hookmap-up-', hello = false, setup, key = false, ...opts } = o;
  const home = mkdtempSync(join(tmpdir(), prefix));
  const logDir = join(home, 'logs');
  const owner = opts.noAuth ? undefined : ensureOwnerToken(home);
  const lines: string[] = [];
  let up: Up;
  try {
    const more = setup?.(home) ?? {};
    up = await startUp({
      port: 0,
      home,
      logDir,
      stateDir: join(home, 'state'),
      tokenFile: owner?.path,
      auditFile: join(home, 'audit.jsonl'),
      agents: [{ descriptor: 'codex' }],
      say: (l) => lines.push(l),
      hookKey: key ? undefined : false,
      ...opts,
      ...more,
    });
  } catch (e) {
    rmSync(home, { recursive: true, force: true });
    throw e;
  }
  const token = owner?.token ?? '';
  if (hello) {
    const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
    await until("the daemons' hello", async () => (await (await fetch(`${up.url}/healthz`, { headers })).json()).relay === true);
  }
  return {
    up,
    url: up.url,
    home,
    token,
    logDir,
    lines,
    hookKey: key ? (readHookKey(home) ?? '') : '',
    async done() {
      await up.close();
      rmSync(home, { recursive: true, force: true });
    },
  };
}

export interface Watcher {
  socket: SocketSession;
  /** Every sequenced event seen, in order. */
  stream: any[];
  /** The first event seen that matches (waits for it). */
  seen(pred: (e: any) => boolean, what: string): Promise<any>;
  close(): void;
}

/** A consumer socket subscribed to every session from the start. */
export async function watchAll(url: string, token: string): Promise<Watcher> {
  const socket = await openSocket(url, token, 'consumer');
  const stream: any[] = [];
  socket.on((m) => {
    if (typeof m.type === 'string' && m.seq !== undefined) stream.push(m);
  });
  await new Promise<void>((resolve) => {
    const off = socket.on((m) => m.type === 'subscribed' && (off(), resolve()));
    socket.send({ type: 'subscribe', id: 'all', from: 'all' });
  });
  return { socket, stream, seen: (pred, what) => until(what, () => stream.find(pred)), close: () => socket.close() };
}
