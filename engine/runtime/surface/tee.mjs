// `hookmap tee <agent> -- <agent command...>`: the stdio-tee surface
// (descriptor `surface.kind: stdio-tee`). Configured as an editor's agent
// command, it spawns the real agent and stands between the two:
//
//   editor stdin  -> agent stdin    unchanged (engine/runtime/surface/client-pipe.mjs)
//   agent stdout  -> editor stdout  unchanged, written before anything else
//   agent stderr  -> editor stderr  unchanged
//   agent exit    -> our exit       the same code, or the same signal
//
// Every line is also framed off the pass-through (engine/runtime/surface/lines.mjs),
// read as JSON-RPC and joined request <-> response by id
// (engine/runtime/surface/jsonrpc.mjs), and the moments go to the agent's daemon over
// one WebSocket (engine/runtime/surface/tee-link.mjs). A line that is not JSON, too
// long, a response nobody asked for, an agent that exits mid-request: the
// bytes pass untouched and the problem is reported once to the daemon. The
// tee never writes its own words on the editor's streams (only when it cannot
// start the agent at all); its notes go to $HOOKMAP_HOME/logs/tee/<agent>.log.
//
// Plain JS (no TypeScript loader) so an editor pays one Node start-up.
// Design: AEP docs/components/bridge-acp-design.md ("Attach shape: the
// command-substitution tee"; "Id joins and identity").
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { appendFileSync, mkdirSync, renameSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { baseUrl, hookmapHome } from '../shim/plan.mjs';
import { RpcJoin, parseLine } from './jsonrpc.mjs';
import { LineFramer } from './lines.mjs';
import { ClientPipe } from './client-pipe.mjs';
import { TeeLink, findToken, teeUrl } from './tee-link.mjs';

/** Longest line mapped (longer ones pass through, reported once). */
export const DEFAULT_MAX_LINE = 8 * 1024 * 1024;
/** How long an exiting tee waits for its daemon to take the last moments. */
const EXIT_DRAIN_MS = 1_000;
const USAGE = 'usage: hookmap tee <agent> [--url U] [--max-line BYTES] -- <agent command> [args...]';

export function parseTeeArgs(argv) {
  const dash = argv.indexOf('--');
  if (dash < 0) throw new Error(USAGE);
  const own = argv.slice(0, dash);
  const command = argv.slice(dash + 1);
  const out = { agent: undefined, url: undefined, maxLine: DEFAULT_MAX_LINE, command };
  for (let i = 0; i < own.length; i++) {
    const a = own[i];
    if (a === '--url') out.url = own[++i];
    else if (a === '--max-line') out.maxLine = Number(own[++i]);
    else if (a.startsWith('-')) throw new Error(`unknown flag ${a}\n${USAGE}`);
    else if (out.agent === undefined) out.agent = a;
    else throw new Error(`unexpected argument ${a}\n${USAGE}`);
  }
  if (!out.agent || !/^[a-z0-9][a-z0-9-]*$/.test(out.agent)) throw new Error(USAGE);
  if (!command.length) throw new Error(`no agent command after --\n${USAGE}`);
  if (!Number.isSafeInteger(out.maxLine) || out.maxLine < 1) throw new Error('--max-line must be a positive integer');
  return out;
}

/** Notes for the operator, never on the editor's streams. Best effort, capped at ~1 MB (one old file kept). */
function noteWriter(agent, env) {
  const dir = join(hookmapHome(env), 'logs', 'tee');
  const file = join(dir, `${agent}.log`);
  let ok = true;
  return (line) => {
    if (!ok) return;
    try {
      mkdirSync(dir, { recursive: true, mode: 0o700 }); // owner-only, as engine/core/io/paths.ts ensureDir makes every folder under $HOOKMAP_HOME
      try {
        if (statSync(file).size > 1024 * 1024) renameSync(file, `${file}.1`);
      } catch {
        // no file yet
      }
      appendFileSync(file, `${new Date().toISOString()} [${process.pid}] ${line}\n`);
    } catch {
      ok = false; // an unwritable log must not cost anything more
    }
  };
}

/**
 * Run the tee. `io` is the editor side (process streams by default); the
 * returned promise resolves with how the agent ended.
 */
export function runTee(opts, io = {}) {
  const env = io.env ?? process.env;
  const stdin = io.stdin ?? process.stdin;
  const stdout = io.stdout ?? process.stdout;
  const stderr = io.stderr ?? process.stderr;
  const say = io.say ?? noteWriter(opts.agent, env);
  const [cmd, ...args] = opts.command;

  // The agent first: nothing of ours stands before its start.
  const child = spawn(cmd, args, { stdio: ['pipe', 'pipe', 'pipe'], env, cwd: io.cwd });
  const connection = `${Date.now().toString(36)}-${process.pid}-${randomBytes(4).toString('hex')}`;
  const rpc = new RpcJoin();
  const counts = new Map();
  let origin;

  const side = (from) => (from === 'agent' ? 'agent -> editor' : 'editor -> agent');
  // each problem is reported once per direction (the first, in detail); a count follows at exit when it recurred
  const report = (code, message, from) => {
    const key = `${code}\u0000${from}`;
    const n = (counts.get(key) ?? 0) + 1;
    counts.set(key, n);
    if (n === 1) link.send({ t: 'p', code, message: `${side(from)}: ${message}` });
  };
  /** agent -> editor request numbers -> their JSON-RPC id (a held request's answer is written back to the agent) */
  const agentRequests = new Map();

  const frame = (from) => (buf, lineNo) => {
    const p = parseLine(buf);
    if (p.blank) return;
    if (p.problem) return report(p.problem.code, `line ${lineNo}: ${p.problem.message}`, from);
    const { moments, problems } = rpc.accept(from, p.value);
    for (const pr of problems) if (pr.code !== 'unmatched-response') report(pr.code, `line ${lineNo}: ${pr.message}`, from);
    for (const m of moments) {
      if (origin !== undefined && from === 'client') m.origin = origin;
      const n = link.send({ t: 'm', moment: m });
      if (m.kind === 'request' && from === 'agent') {
        agentRequests.set(n, m.id);
        if (agentRequests.size > 4096) agentRequests.delete(agentRequests.keys().next().value);
      }
    }
  };
  const oversize = (from) => (bytes, lineNo) =>
    report('line-too-large', `line ${lineNo}: ${bytes} bytes, over the ${opts.maxLine}-byte mapping bound (passed through, not mapped)`, from);

  const outFramer = new LineFramer(opts.maxLine, frame('agent'), oversize('agent'));
  const inFramer = new LineFramer(opts.maxLine, frame('client'), oversize('client'));
  const pipe = new ClientPipe(child.stdin, inFramer, {
    onPressure: (paused) => (paused ? stdin.pause() : stdin.resume()),
    setOrigin: (o) => (origin = o),
    isResponseTo: (line, ids) => {
      const p = parseLine(line);
      const v = p.value;
      if (!v || typeof v !== 'object' || Array.isArray(v) || 'method' in v || !('result' in v || 'error' in v)) return undefined;
      const key = `${typeof v.id}:${v.id}`;
      return ids.has(key) ? key : undefined;
    },
  });
  child.stdin.on('drain', () => stdin.resume());
  child.stdin.on('error', () => {}); // the agent closed its stdin: its exit tells the rest

  // --- the pass-through: bytes first, framing after ---------------------------------
  stdin.on('data', (c) => pipe.push(c));
  stdin.on('end', () => pipe.end());
  stdin.on('error', () => pipe.end());
  child.stdout.on('data', (c) => {
    if (!stdout.write(c)) child.stdout.pause();
    outFramer.push(c);
  });
  stdout.on('drain', () => child.stdout.resume());
  // the editor went away: the agent's next write fails as it would without us
  stdout.on('error', () => child.stdout.destroy());
  child.stderr.pipe(stderr, { end: false });

  // --- the daemon link: frames queue from the first line; the socket follows -------
  const link = new TeeLink({
    url: teeUrl(opts.url ?? baseUrl(env), opts.agent),
    agent: opts.agent,
    connection,
    token: findToken(env, hookmapHome(env)),
    home: hookmapHome(env), // its hook key (engine/runtime/auth/hook-key.mjs)
    hello: { pid: child.pid, command: cmd },
    WebSocket: io.WebSocket ?? (async () => (await import('ws')).default),
    say,
    onReply: (n, bytes) => {
      const id = agentRequests.get(n);
      agentRequests.delete(n);
      if (id === undefined || bytes === '') return;
      // only a request still waiting gets hookmap's answer: the editor's own answer wins a tie, even one
      // that arrives while this line waits for a line boundary
      const pending = () => rpc.isPending('agent', id);
      if (!pending()) return say(`a decision for request ${JSON.stringify(id)} arrived after the editor answered it: not written`);
      // framed like any line the agent receives (it answers the request), then the editor's late answer is dropped
      pipe.inject(
        bytes.replace(/\n+$/, ''),
        { answered_by: 'hookmap' },
        (ok, why) => {
          if (ok) pipe.swallow(`${typeof id}:${id}`);
          else say(`the decision for request ${JSON.stringify(id)} was not written: ${why}`);
        },
        pending,
      );
    },
    onWrite: (id, bytes) => {
      pipe.inject(bytes.replace(/\n+$/, ''), { command: id }, (ok, why) => link.sendNow({ t: 'written', id, ok, ...(why ? { why } : {}) }));
    },
  });
  link.start();

  const forward = (sig) => () => {
    try {
      child.kill(sig);
    } catch {
      // already gone
    }
  };
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'];
  const handlers = signals.map((s) => [s, forward(s)]);
  if (!io.noSignals) for (const [s, h] of handlers) process.on(s, h);

  return new Promise((resolve) => {
    let done = false;
    const finish = async (how) => {
      if (done) return;
      done = true;
      if (!io.noSignals) for (const [s, h] of handlers) process.off(s, h);
      stdin.pause();
      outFramer.end();
      inFramer.end();
      const exit = { code: how.code ?? null, signal: how.signal ?? null };
      for (const m of rpc.abandon(exit)) link.send({ t: 'm', moment: m });
      link.send({ t: 'm', moment: { kind: 'exit', from: 'agent', ...exit } });
      // the stream had each problem once; how often it recurred goes to the notes file
      for (const [key, n] of counts) {
        const [code, from] = key.split('\u0000');
        if (n > 1) say(`${code} (${side(from)}): ${n} lines in all had this problem (the first went to the daemon as a diagnostic)`);
      }
      // transparency outranks delivery: a short, bounded wait, and none when no daemon answers
      const delivered = await link.drain(EXIT_DRAIN_MS);
      if (!delivered)
        say(`exiting with ${link.pending()} moment(s) the daemon did not take (${link.open ? 'it was slow' : 'not connected'}): they are not in the stream`);
      link.close();
      resolve(how);
    };
    child.on('error', (e) => {
      // the agent never started: the editor is told as it would be by a missing command
      stderr.write(`hookmap tee: cannot start ${cmd}: ${e.message}\n`);
      say(`cannot start ${cmd}: ${e.message}`);
      void finish({ code: e.code === 'ENOENT' ? 127 : 126, spawnError: e.message });
    });
    child.on('close', (code, signal) => void finish({ code, signal }));
  });
}

/** The CLI entry: run, then leave exactly as the agent left. */
export async function main(argv) {
  let opts;
  try {
    opts = parseTeeArgs(argv);
  } catch (e) {
    process.stderr.write(`hookmap tee: ${e.message}\n`);
    process.exit(2);
  }
  const how = await runTee(opts);
  if (how.signal) {
    process.kill(process.pid, how.signal);
    setTimeout(() => process.exit(128), 200).unref();
    return;
  }
  process.exit(how.code ?? 1);
}
