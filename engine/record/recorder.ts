// `hookmap record`: the daemon, plus every raw payload it receives saved as a
// fixture candidate (`kind: recorded`), redacted (Redactor.deep: secrets,
// tokens, home paths) before it touches disk. One YAML file per firing under
// fixtures/<agent>/recorded/ (or --out). Reuses the daemon and its hook
// routes unchanged: the agent gets exactly the replies `hookmap serve` gives.
import Fastify, { type FastifyInstance } from 'fastify';
import { mkdirSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { Redactor } from '../capture/redact.ts';
import { Daemon } from '../daemon/daemon.ts';
import { hookFrameworkErrors, parseHookPath, registerHookRoutes } from '../daemon/http.ts';
import { urlOf } from '../daemon/serve.ts';
import { FIXTURES_DIR } from '../descriptor/registry.ts';
import type { Descriptor } from '../descriptor/types.ts';

export interface RecordOptions {
  descriptor: Descriptor;
  host?: string;
  port?: number;
  /** Where candidates go (default fixtures/<agent>/recorded). */
  out?: string;
  relay?: string;
  token?: string;
  logDir?: string;
  attentionTimeoutMs?: number;
  /** The agent's version when the payload does not say (HOOKMAP_AGENT_VERSION). */
  agentVersion?: string;
  now?: () => Date;
  say?: (line: string) => void;
}

export interface Recording { url: string; port: number; out: string; daemon: Daemon; files: string[]; close(): Promise<void> }

/** A version the payload states about its agent: the first `version` / `*_version` string field (breadth-first, shallow). */
export function versionOf(payload: unknown, maxDepth = 4): string | undefined {
  let level: unknown[] = [payload];
  for (let depth = 0; depth <= maxDepth && level.length; depth++) {
    const next: unknown[] = [];
    for (const v of level) {
      if (!v || typeof v !== 'object') continue;
      for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
        if (typeof x === 'string' && /(^|_)version$/i.test(k) && x.trim()) return x;
        if (x && typeof x === 'object') next.push(x);
      }
    }
    level = next;
  }
  return undefined;
}

const slug = (s: string) => s.replace(/[^A-Za-z0-9_.-]+/g, '_').slice(0, 60) || 'hook';

export class Recorder {
  readonly files: string[] = [];
  private seq = 0;
  private readonly redactor: Redactor;
  constructor(private readonly d: Descriptor, readonly out: string, private readonly opts: { agentVersion?: string; now?: () => Date; say?: (l: string) => void } = {}) {
    this.redactor = new Redactor({ secretNames: d.capture.secretNames });
  }

  /** Save one raw body; never throws (recording must not break the agent). */
  async save(hookArg: string | undefined, raw: Buffer | undefined, mapperHookName: (p: unknown) => Promise<string | undefined>): Promise<string | undefined> {
    try {
      const text = raw?.toString('utf8') ?? '';
      let payload: unknown;
      let parsed = true;
      try { payload = JSON.parse(text); } catch { parsed = false; payload = text; }
      const hook = hookArg ?? (parsed ? await mapperHookName(payload).catch(() => undefined) : undefined);
      const at = (this.opts.now ?? (() => new Date()))();
      const version = (parsed ? versionOf(payload) : undefined) ?? this.opts.agentVersion;
      const doc: Record<string, unknown> = {
        kind: 'recorded',
        agent: this.d.vendor,
        recorded_at: at.toISOString(),
        provenance: `hookmap record, ${this.d.vendor}${version ? ` ${version}` : ''}, ${at.toISOString().slice(0, 10)}; redacted (Redactor.deep)`,
      };
      if (version) doc.agent_version = version;
      if (hook) doc.hook = hook;
      doc.payload = this.redactor.deep(payload);
      if (!parsed) doc.note = 'the body was not JSON: kept as redacted text';
      mkdirSync(this.out, { recursive: true });
      const name = `${at.toISOString().replace(/[:.]/g, '-')}-${String(++this.seq).padStart(4, '0')}-${slug(hook ?? 'unknown')}.yaml`;
      const file = join(this.out, name);
      writeFileSync(file, `# Recorded by \`hookmap record ${this.d.vendor}\`: a fixture candidate, not yet a case.\n${stringify(doc, { lineWidth: 0 })}`);
      this.files.push(file);
      return file;
    } catch (e) {
      this.opts.say?.(`record: could not save a payload: ${(e as Error).message}`);
      return undefined;
    }
  }
}

/** Mount the recorder in front of the daemon's hook routes of `app` (before registerHookRoutes). */
export function mountRecorder(app: FastifyInstance, agent: string, rec: Recorder, hookNameOf: (p: unknown) => Promise<string | undefined>): void {
  app.addHook('preHandler', async (req) => {
    if (req.method !== 'POST') return;
    const path = parseHookPath(req.url);
    if (path.agent !== agent) return;
    const body = req.body as { buf?: Buffer } | undefined;
    await rec.save(path.hook, body?.buf, hookNameOf);
  });
}

export async function startRecord(o: RecordOptions): Promise<Recording> {
  const say = o.say ?? (() => {});
  const d = o.descriptor;
  const out = o.out ?? join(FIXTURES_DIR, d.vendor, 'recorded');
  const daemon = Daemon.open({ descriptor: d, logDir: o.logDir, attentionTimeoutMs: o.attentionTimeoutMs, say: (l) => say(`[${d.vendor}] ${l}`) });
  const rec = new Recorder(d, out, { agentVersion: o.agentVersion, now: o.now, say });
  const daemons = new Map([[d.vendor, daemon]]);
  const app = Fastify({ logger: false, frameworkErrors: hookFrameworkErrors(daemons, say) });
  const { Mapper } = await import('../map/mapper.ts');
  const names = new Mapper(d);
  mountRecorder(app, d.vendor, rec, (p) => names.hookNameOf(p));
  registerHookRoutes(app, { daemons, say });
  app.get('/healthz', async () => ({ ok: true, relay: daemon.relayReady, recording: out }));
  try {
    await app.listen({ host: o.host ?? '127.0.0.1', port: o.port ?? 8788 });
  } catch (e) {
    await daemon.close();
    throw e;
  }
  const { url } = urlOf(app.server.address() as AddressInfo);
  if (o.relay) daemon.connectRelay(o.relay, o.token);
  say(`${d.vendor} recording daemon on ${url}/hooks/${d.vendor}: every payload -> ${out}`);
  let closing: Promise<void> | undefined;
  return {
    url,
    port: (app.server.address() as AddressInfo).port,
    out,
    daemon,
    files: rec.files,
    close: () => (closing ??= (async () => { await daemon.close(); await app.close(); })()),
  };
}
