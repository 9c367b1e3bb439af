// `hookmap record <agent>`: `hookmap serve`, plus every raw payload saved,
// redacted with the strictest settings, as a fixture candidate (0600) under
// $HOOKMAP_HOME/recorded/<agent>/ or --out. `hookmap record promote <agent>`
// copies candidates into fixtures/<agent>/recorded/ after showing the diff;
// `hookmap record scan <path...>` runs the secret scanner (issue 10).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ArgError, intFlag, parseArgs } from '../args.ts';
import { commandHelp, commandNamed } from '../usage.ts';
import { loadVendor } from '../../core/descriptor/registry.ts';
import type { RuntimeConfig } from '../../core/config/schema.ts';
import { resolveConfig } from '../config.ts';
import { DEFAULT_HOST, DEFAULT_SERVE_PORT } from '../../app/serve.ts';
import { waitForSignal } from '../../app/signals.ts';
import { formatFindings, SecretScanner } from '../../core/capture/redaction/scanner.ts';
import { candidates, promote, recordedDir, startRecord } from '../../tools/record/recorder.ts';
import { discoverToken } from '../../runtime/auth/discover.ts';
import { followTokenFile } from '../../runtime/auth/tokens.ts';
import { tokenSources } from '../config.ts';

/**
 * The token for --relay, found like every client finds it (engine/runtime/auth/discover.ts); read from a file, the file
 * is followed (a replaced token is used from the next reconnect).
 */
function relayToken(flags: Record<string, unknown>, say: (l: string) => void): string | (() => string | undefined) | undefined {
  const url = flags.relay as string | undefined;
  if (!url) return undefined;
  const t = discoverToken({
    url,
    flagToken: flags.token as string | undefined,
    tokenFile: flags['token-file'] as string | undefined,
    from: tokenSources(process.env),
  });
  if (t.warning) say(`warning: ${t.warning}`);
  return t.token && t.file ? followTokenFile(t.file, t.token, (m) => say(`${m}: still presenting the token read before`)) : t.token;
}

const SPEC = {
  port: { type: 'string' },
  host: { type: 'string' },
  out: { type: 'string' },
  relay: { type: 'string' },
  token: { type: 'string' },
  'token-file': { type: 'string' },
  'log-dir': { type: 'string' },
  'agent-version': { type: 'string' },
  'dry-run': { type: 'boolean' },
  from: { type: 'string' },
} as const;

function scanPaths(paths: string[], config: RuntimeConfig): number {
  const scanner = new SecretScanner({ secretNames: config.redaction.secretNames, env: process.env });
  const files: string[] = [];
  for (const p of paths) {
    if (!existsSync(p)) throw new ArgError(`${p}: no such file or folder`);
    if (statSync(p).isDirectory()) {
      const walk = (d: string): void => {
        for (const f of readdirSync(d)) {
          const q = join(d, f);
          if (statSync(q).isDirectory()) walk(q);
          else if (/\.(ya?ml|json|jsonl|txt)$/.test(f)) files.push(q);
        }
      };
      walk(p);
    } else files.push(p);
  }
  let found = 0;
  for (const f of files) {
    const fs = scanner.scan(readFileSync(f, 'utf8'));
    if (fs.length) process.stdout.write(`${formatFindings(f, fs)}\n`);
    found += fs.length;
  }
  process.stderr.write(`hookmap record scan: ${files.length} file(s), ${found} finding(s)\n`);
  return found ? 1 : 0;
}

const COMMAND = commandNamed('record');

export async function run(argv: string[], config: RuntimeConfig = resolveConfig(process.env)): Promise<number> {
  let flags;
  let positionals;
  try {
    ({ flags, positionals } = parseArgs(argv, SPEC));
    if (positionals[0] === 'scan') {
      if (positionals.length < 2) throw new ArgError('record scan takes one or more files or folders');
      return scanPaths(positionals.slice(1), config);
    }
    if (positionals[0] === 'promote') {
      if (positionals.length < 2) throw new ArgError('record promote takes an agent id (and optionally candidate files)');
      const agent = loadVendor(positionals[1]).vendor;
      const from = (flags.from as string | undefined) ?? recordedDir(config.home, agent);
      const files = positionals.length > 2 ? positionals.slice(2) : candidates(from);
      if (!files.length) {
        process.stderr.write(`hookmap record promote: no candidates in ${from}\n`);
        return 0;
      }
      const dryRun = !!flags['dry-run'];
      const results = promote(agent, files, { dryRun, env: process.env });
      for (const r of results) {
        if (r.status === 'refused') process.stderr.write(`refused ${r.file}: the secret scanner finds\n${formatFindings(r.file, r.findings)}\n`);
        else if (r.status === 'same') process.stderr.write(`unchanged ${r.target}\n`);
        else process.stdout.write(r.diff);
      }
      const n = (s: string) => results.filter((r) => r.status === s).length;
      process.stderr.write(
        `hookmap record promote: ${n('new')} new, ${n('changed')} changed, ${n('same')} unchanged, ${n('refused')} ` +
          `refused${dryRun ? ' (dry run: nothing written)' : ''}\n`,
      );
      return n('refused') ? 1 : 0;
    }
    if (positionals.length !== 1) throw new ArgError('record takes exactly one agent id or descriptor path (or: record promote <agent>, record scan <path>)');
  } catch (e) {
    if (e instanceof ArgError) {
      process.stderr.write(`hookmap record: ${e.message}\n${commandHelp(COMMAND)}`);
      return 2;
    }
    process.stderr.write(`hookmap record: ${(e as Error).message}\n`);
    return 2;
  }
  const say = (l: string) => process.stderr.write(`${l}\n`);
  let rec;
  try {
    rec = await startRecord({
      descriptor: loadVendor(positionals[0]),
      host: (flags.host as string | undefined) ?? DEFAULT_HOST,
      port: intFlag(flags.port, 'port', DEFAULT_SERVE_PORT),
      out: flags.out as string | undefined,
      relay: flags.relay as string | undefined,
      token: relayToken(flags, say),
      logDir: flags['log-dir'] as string | undefined,
      attentionTimeoutMs: config.attentionTimeoutMs,
      agentVersion: (flags['agent-version'] as string | undefined) ?? config.agentVersion,
      home: config.home,
      env: process.env,
      secretNames: config.redaction.secretNames,
      say,
    });
  } catch (e) {
    process.stderr.write(`hookmap record: ${(e as Error).message}\n`);
    return e instanceof ArgError ? 2 : 1;
  }
  process.stdout.write(`${rec.url}\n`);
  return waitForSignal(async () => {
    await rec.close();
    say(
      `recorded ${rec.files.length} payload(s) into ${rec.out}${rec.refused ? `; refused ${rec.refused} the scanner still flagged` : ''}; ` +
        `next: hookmap record promote ${rec.daemon.vendor} --dry-run`,
    );
  });
}
