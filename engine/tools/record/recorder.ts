// `hookmap record`: the daemon, plus every raw payload it receives saved as a
// fixture candidate (`kind: recorded`), redacted with the strictest settings
// (Redactor strict: every secret rule, secret-named keys and maybe-secret
// names whatever their value, PII, home paths, the values of secret-named
// environment variables) before it touches disk. One YAML file per firing,
// mode 0600 in a 0700 folder, by default under $HOOKMAP_HOME/recorded/<agent>/
// (outside the repository: copying into fixtures/ is `hookmap record
// promote`, which shows the diff). A file in which the secret scanner still
// finds anything is refused, not written (issue 10). Reuses the daemon and
// its hook routes unchanged: the agent gets exactly the replies
// `hookmap serve` gives.
import Fastify, { type FastifyInstance } from 'fastify';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { basename, join } from 'node:path';
import { stringify } from 'yaml';
import { Redactor } from '../../core/capture/redact.ts';
import { formatFindings, SecretScanner, type Finding } from '../../core/capture/redaction/scanner.ts';
import { Daemon } from '../../runtime/daemon/daemon.ts';
import { hookFrameworkErrors, parseHookPath, registerHookRoutes } from '../../runtime/daemon/http.ts';
import { defaultHome } from '../../core/io/paths.ts';
import { urlOf } from '../../core/io/address.ts';
import { FIXTURES_DIR } from '../../core/descriptor/registry.ts';
import type { Descriptor } from '../../core/descriptor/types.ts';
import { unifiedDiff } from '../../core/text/diff.ts';
import { OTLP_KIND, registerOtlpRoutes } from '../../runtime/surface/otlp-receiver.ts';

export interface RecordOptions {
  descriptor: Descriptor;
  host?: string;
  port?: number;
  /** Where candidates go (default $HOOKMAP_HOME/recorded/<agent>). */
  out?: string;
  relay?: string;
  /** The relay token, or where to get it on each reconnect (a followed token file). */
  token?: string | (() => string | undefined);
  logDir?: string;
  attentionTimeoutMs?: number;
  /** The agent's version when the payload does not say (HOOKMAP_AGENT_VERSION). */
  agentVersion?: string;
  now?: () => Date;
  say?: (line: string) => void;
  /** $HOOKMAP_HOME (default ~/.hookmap): recorded/<agent> and logs/<agent> under it. */
  home?: string;
  /** The environment whose secret-looking variables' values are scrubbed (the CLI edge hands its own down). */
  env?: Readonly<Record<string, string | undefined>>;
  /** HOOKMAP_SECRET_NAMES (RuntimeConfig.redaction.secretNames): more names whose values are scrubbed. */
  secretNames?: string[];
}

export interface Recording {
  url: string;
  port: number;
  out: string;
  daemon: Daemon;
  files: string[];
  refused: number;
  close(): Promise<void>;
}

/** Where `hookmap record <agent>` writes by default: outside any repository. */
export function recordedDir(home: string, agent: string): string {
  return join(home, 'recorded', agent.replace(/[^A-Za-z0-9._-]/g, '_'));
}

/**
 * A version the payload states about its agent: the first `version` / `*_version` / `*.version` (OTel's
 * service.version; never an SDK's: telemetry.sdk.version) string field (breadth-first, shallow).
 */
export function versionOf(payload: unknown, maxDepth = 4): string | undefined {
  let level: unknown[] = [payload];
  for (let depth = 0; depth <= maxDepth && level.length; depth++) {
    const next: unknown[] = [];
    for (const v of level) {
      if (!v || typeof v !== 'object') continue;
      for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
        if (typeof x === 'string' && /(^|[_.])version$/i.test(k) && !/sdk/i.test(k) && x.trim()) return x;
        if (x && typeof x === 'object') next.push(x);
      }
    }
    level = next;
  }
  return undefined;
}

const slug = (s: string) => s.replace(/[^A-Za-z0-9_.-]+/g, '_').slice(0, 60) || 'hook';

/** Write a file only this user can read (0600), in a folder only this user can list (0700). */
export function writePrivate(file: string, text: string): void {
  mkdirSync(join(file, '..'), { recursive: true, mode: 0o700 });
  writeFileSync(file, text, { mode: 0o600 });
  chmodSync(file, 0o600); // an existing file keeps its old mode otherwise
}

export class Recorder {
  readonly files: string[] = [];
  refused = 0;
  private seq = 0;
  private readonly redactor: Redactor;
  private readonly scanner: SecretScanner;
  constructor(
    private readonly d: Descriptor,
    readonly out: string,
    private readonly opts: {
      agentVersion?: string;
      now?: () => Date;
      say?: (l: string) => void;
      env?: Readonly<Record<string, string | undefined>>;
      secretNames?: string[];
    } = {},
  ) {
    const secretNames = [...d.capture.secretNames, ...(opts.secretNames ?? [])];
    this.redactor = new Redactor({ secretNames, strict: true, env: opts.env });
    this.scanner = new SecretScanner({ secretNames, env: opts.env });
  }

  /** The file text for one raw body (redacted), or the scanner's findings when it still holds a secret. */
  render(hookArg: string | undefined, raw: Buffer | undefined, hook: string | undefined, at: Date): { text: string; findings: Finding[] } {
    const text = raw?.toString('utf8') ?? '';
    let payload: unknown;
    let parsed = true;
    try {
      payload = JSON.parse(text);
    } catch {
      parsed = false;
      payload = text;
    }
    const version = (parsed ? versionOf(payload) : undefined) ?? this.opts.agentVersion;
    const doc: Record<string, unknown> = {
      kind: 'recorded',
      agent: this.d.vendor,
      recorded_at: at.toISOString(),
      provenance:
        `hookmap record, ${this.d.vendor}${version ? ` ${version}` : ''}, ` +
        `${at.toISOString().slice(0, 10)}; redacted (strict: secrets, secret-named keys, PII, home ` +
        `paths)`,
    };
    if (version) doc.agent_version = version;
    if (hook ?? hookArg) doc.hook = hook ?? hookArg;
    doc.payload = this.redactor.deep(payload);
    if (!parsed) doc.note = 'the body was not JSON: kept as redacted text';
    const out = `# Recorded by \`hookmap record ${this.d.vendor}\`: a fixture candidate, not yet a case.\n${stringify(doc, { lineWidth: 0 })}`;
    return { text: out, findings: this.scanner.scan(out) };
  }

  /** Save one raw body; never throws (recording must not break the agent). */
  async save(hookArg: string | undefined, raw: Buffer | undefined, mapperHookName: (p: unknown) => Promise<string | undefined>): Promise<string | undefined> {
    try {
      let hook = hookArg;
      if (!hook) {
        try {
          hook = await mapperHookName(JSON.parse(raw?.toString('utf8') ?? '')).catch(() => undefined);
        } catch {
          hook = undefined;
        }
      }
      const at = (this.opts.now ?? (() => new Date()))();
      const { text, findings } = this.render(hookArg, raw, hook, at);
      const name = `${at.toISOString().replace(/[:.]/g, '-')}-${String(++this.seq).padStart(4, '0')}-${slug(hook ?? 'unknown')}.yaml`;
      if (findings.length) {
        this.refused++;
        this.opts.say?.(
          `record: refused to write ${name}: the secret scanner still finds ${findings.length} secret(s) after redaction:\n${formatFindings(name, findings)}`,
        );
        return undefined;
      }
      const file = join(this.out, name);
      writePrivate(file, text);
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
  const home = o.home ?? defaultHome();
  const out = o.out ?? recordedDir(home, d.vendor);
  const daemon = Daemon.open({
    descriptor: d,
    // its own log (and lock) beside the candidates: never `up`'s (which keeps running for the same agent), never the history's
    logDir: o.logDir ?? recordingLogDir(out),
    attentionTimeoutMs: o.attentionTimeoutMs,
    say: (l) => say(`[${d.vendor}] ${l}`),
  });
  const rec = new Recorder(d, out, { agentVersion: o.agentVersion, now: o.now, say, env: o.env, secretNames: o.secretNames });
  const daemons = new Map([[d.vendor, daemon]]);
  const app = Fastify({ logger: false, frameworkErrors: hookFrameworkErrors(daemons, say) });
  const { Mapper } = await import('../../core/map/mapper.ts');
  const names = new Mapper(d);
  if (d.surface.kind === OTLP_KIND) {
    // an OTel channel: every flattened LogRecord is one candidate, as the descriptor's rules read it
    const saveAll = async (_v: string, recs: unknown[]) => {
      for (const r of recs) await rec.save(undefined, Buffer.from(JSON.stringify(r)), (p) => names.hookNameOf(p));
    };
    registerOtlpRoutes(app, { daemons, say, onRecords: saveAll });
  } else {
    mountRecorder(app, d.vendor, rec, (p) => names.hookNameOf(p));
    registerHookRoutes(app, { daemons, say });
  }
  app.get('/healthz', async () => ({ ok: true, relay: daemon.relayReady, recording: out }));
  try {
    await app.listen({ host: o.host ?? '127.0.0.1', port: o.port ?? 8788 });
  } catch (e) {
    await daemon.close();
    throw e;
  }
  const { url } = urlOf(app.server.address() as AddressInfo);
  if (o.relay) daemon.connectRelay(o.relay, o.token);
  say(
    `${d.vendor} recording daemon on ${url}/${d.surface.kind === OTLP_KIND ? `otlp/${d.vendor}/v1/logs` : `hooks/${d.vendor}`}: ` +
      `every payload, redacted, -> ${out} (0600); copy into fixtures with \`hookmap record ` +
      `promote ${d.vendor}\``,
  );
  let closing: Promise<void> | undefined;
  return {
    url,
    port: (app.server.address() as AddressInfo).port,
    out,
    daemon,
    files: rec.files,
    get refused() {
      return rec.refused;
    },
    close: () =>
      (closing ??= (async () => {
        await daemon.close();
        await app.close();
      })()),
  };
}

export interface PromoteResult {
  file: string;
  target: string;
  status: 'new' | 'changed' | 'same' | 'refused';
  diff: string;
  findings: Finding[];
}

/**
 * Copy recorded candidates into fixtures/<agent>/recorded/: each is scanned
 * again (a finding refuses it) and its diff against the fixture it would
 * create or replace is returned; nothing is written under `dryRun`.
 */
export function promote(
  agent: string,
  files: string[],
  opts: { fixtures?: string; dryRun?: boolean; env?: Readonly<Record<string, string | undefined>> } = {},
): PromoteResult[] {
  const targetDir = join(opts.fixtures ?? FIXTURES_DIR, agent, 'recorded');
  const scanner = new SecretScanner({ env: opts.env });
  const out: PromoteResult[] = [];
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    const target = join(targetDir, basename(file));
    const findings = scanner.scan(text);
    const before = existsSync(target) ? readFileSync(target, 'utf8') : undefined;
    const diff = unifiedDiff(before ?? '', text, before === undefined ? '/dev/null' : target, target);
    const status: PromoteResult['status'] = findings.length ? 'refused' : before === undefined ? 'new' : before === text ? 'same' : 'changed';
    if (!opts.dryRun && (status === 'new' || status === 'changed')) {
      mkdirSync(targetDir, { recursive: true });
      writeFileSync(target, text);
    }
    out.push({ file, target, status, diff, findings });
  }
  return out;
}

/** Where a recording's daemon logs what it mapped: inside the recording folder, out of `up`'s logs/ and so out of the history. */
export const recordingLogDir = (out: string): string => join(out, 'log');

/** The candidate files of a recording folder, oldest first. */
export function candidates(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => /\.ya?ml$/.test(f))
    .sort()
    .map((f) => join(dir, f));
}
