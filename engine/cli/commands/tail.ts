// `hookmap tail`: watch the relay's stream over SSE. Positions are kept per
// (url, filter, capture) in a small state file, so a re-run resumes where
// the last one stopped (AEP-0003 §7). When the stream ends (the relay
// restarted, or closed this reader for falling past its pending bound,
// §8.4) tail says so on stderr, reconnects and resumes: everything the
// relay holds, minus what it already printed (ResumeState), so nothing is
// lost and nothing printed twice. The state file lives under
// $HOOKMAP_HOME/state/ (config.stateDir) like every piece of client state;
// `--from` given explicitly always wins over a saved position. The readable
// view names each session's project once it saw its start, says who
// answered what, prints the `answer:` hint only for requests still open,
// and after a run's end what became of each call that reported no outcome
// (engine/person/bridge/call-watch.ts); --json prints the events alone.
import { TYPE, ATTENTION_TERMINALS, isAttentionTerminal, isSessionTerminal } from '../../core/kernel/lifecycle.ts';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { ArgError, intFlag, parseArgs } from '../args.ts';
import { resolveConfig } from '../config.ts';
import type { RuntimeConfig } from '../../core/config/schema.ts';
import { answerOf, answerWords } from '../../person/bridge/call-outcome.ts';
import { CallWatch } from '../../person/bridge/call-watch.ts';
import { sessionLabel } from '../../person/bridge/session-label.ts';
import { followSse } from '../../runtime/relay/client-sse-follow.ts';
import { ResumeState } from '../../runtime/relay/client-resume.ts';
import type { AepEvent } from '../../runtime/relay/store.ts';
import { ENDPOINT_FLAGS, endpoint, explainRefusal, type Endpoint } from './command-common.ts';
import { replayHeld } from './held.ts';
import { resolveSessionOrAsGiven } from './id-prefix.ts';
import { ensureParent } from '../../core/io/paths.ts';
import { isQueryAnswer } from '../../core/kernel/event.ts';

const SPEC = {
  ...ENDPOINT_FLAGS,
  filter: { type: 'string', multiple: true },
  session: { type: 'string' },
  capture: { type: 'string' },
  json: { type: 'boolean' },
  from: { type: 'string' },
  'no-resume': { type: 'boolean' },
  'no-follow': { type: 'boolean' },
  count: { type: 'string' },
  state: { type: 'string' },
} as const;

const MAX_POSITIONS = 500; // the relay's default maxFrom
type Positions = Record<string, [number, number, number]>; // session -> [epoch, seq, last-touched]

export async function run(argv: string[], config: RuntimeConfig = resolveConfig(process.env)): Promise<number> {
  let flags, filter: Record<string, unknown>, count: number;
  try {
    flags = parseArgs(argv, SPEC).flags;
    filter = buildFilter((flags.filter as string[] | undefined) ?? [], flags.session as string | undefined);
    count = intFlag(flags.count, 'count', 0);
    if (flags.from !== undefined && flags.from !== 'all' && flags.from !== 'now')
      throw new ArgError(`--from '${flags.from}': use all (everything the relay holds) or now (only what comes next)`);
  } catch (e) {
    if (e instanceof ArgError) {
      process.stderr.write(`hookmap tail: ${e.message}\n`);
      return 2;
    }
    throw e;
  }
  let ep;
  try {
    ep = endpoint(flags, 'hookmap tail');
    // --session takes any unique prefix of a session the relay holds (a session yet to come: as given)
    if (typeof flags.session === 'string') filter.session = await resolveSessionOrAsGiven(ep, flags.session);
  } catch (e) {
    process.stderr.write(`hookmap tail: ${(e as Error).message}\n`);
    return 2;
  }
  const capture = flags.capture as string | undefined;
  const follow = !flags['no-follow'];
  const statePath = (flags.state as string | undefined) ?? join(config.stateDir, 'tail.json');
  const stateKey = JSON.stringify([ep.url, filter, capture ?? null]);
  // an explicit --from says where to start; a saved position only stands in for it
  const resume = !flags['no-resume'] && flags.from === undefined;
  const saved: Positions = resume ? (loadState(statePath)[stateKey] ?? (flags.state === undefined ? legacyState()[stateKey] : undefined) ?? {}) : {};
  const state = new ResumeState({
    history: flags.from === 'all',
    positions: Object.fromEntries(Object.entries(saved).map(([s, [epoch, seq]]) => [s, { epoch, seq }])),
  });
  let printed = 0;
  let dirty = false;
  const save = () => {
    if (!dirty) return;
    dirty = false;
    const out: Positions = {};
    for (const { session, epoch, seq } of state.list(MAX_POSITIONS)) out[session] = [epoch, seq, state.positions.get(session)!.touched];
    saveState(statePath, stateKey, out);
  };
  const saver = setInterval(save, 500);
  const abort = new AbortController();
  const onSignal = () => abort.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const view = new View();
  // history is replayed in order, so a request comes before whatever settled it: learn those first
  if (!flags.json && (flags.from === 'all' || Object.keys(saved).length)) await view.learnSettled(ep, filter).catch(() => undefined);
  let outage: string | undefined;
  let closedBecause: string | undefined;
  let code = 0;
  const say = (line: string) => process.stderr.write(`hookmap tail: ${line}\n`);
  try {
    await followSse({
      url: ep.url,
      token: ep.token,
      filter,
      capture,
      state,
      signal: abort.signal,
      live: follow,
      // after a drop: everything held, minus what was already printed (new sessions included)
      from: (resumed) => {
        const from = state.list(MAX_POSITIONS);
        return resumed || flags.from === 'all' ? 'all' : from.length ? JSON.stringify(from) : undefined;
      },
      onComment: (comment, resumed) => {
        if (comment === 'subscribed' && resumed) {
          say(`connected again; resuming from ${state.positions.size} session position(s)`);
          outage = undefined;
        }
        if (comment.startsWith('replay-exhausted')) say(`${comment} (older events are gone from the relay's buffer; the agents' logs keep them)`);
        if (comment.startsWith('closing')) closedBecause = comment.slice('closing'.length).trim();
        if (comment === 'shutting-down') closedBecause = 'the relay is shutting down';
      },
      onEvent: (ev, m) => {
        if (ev.session !== undefined && ev.seq !== undefined) dirty = true;
        // --json is the raw stream; the view leaves out a control query's answer (for who asked, not the session's story)
        if (flags.json) process.stdout.write(`${m.data}\n`);
        else if (!isQueryAnswer(ev)) process.stdout.write(view.lines(ev));
        else return true;
        if (count && ++printed >= count) return false;
      },
      next: ({ error }) => {
        const because = closedBecause;
        closedBecause = undefined;
        if (error) {
          if (/ 4\d\d/.test(error.message)) {
            say(explainRefusal(ep, error.message));
            code = 2;
            return 'stop';
          }
          // one line per outage, not one per retry
          const why = error.message === 'fetch failed' ? `the relay at ${ep.url} is not reachable` : `the relay connection dropped (${error.message})`;
          if (outage !== why) say(`${why}; retrying every second, resuming where this stopped`);
          outage = why;
        }
        if (!follow) return 'stop';
        if (!outage) {
          say(`the stream ended${because ? ` (${because})` : ''}; reconnecting to resume from ${state.positions.size} session position(s)`);
          outage = 'ended';
        }
        return 1000; // then reconnect and resume
      },
    });
    return code;
  } finally {
    clearInterval(saver);
    save();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

/** --filter takes attr-match JSON or key=value (comma-separated values become an any-of list). */
export function buildFilter(specs: string[], session: string | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const s of specs) {
    if (s.trim().startsWith('{')) {
      let v: unknown;
      try {
        v = JSON.parse(s);
      } catch {
        throw new ArgError(`--filter '${s}' is not valid JSON`);
      }
      Object.assign(out, v);
      continue;
    }
    const eq = s.indexOf('=');
    if (eq <= 0) throw new ArgError(`--filter '${s}' must be JSON or key=value`);
    const key = s.slice(0, eq);
    const vals = s
      .slice(eq + 1)
      .split(',')
      .map((v) => (/^\d+$/.test(v) && key === 'epoch' ? Number(v) : v));
    out[key] =
      key === 'severity' && vals.length === 1 && /^[a-z]+\+$/.test(String(vals[0]))
        ? { gte: String(vals[0]).slice(0, -1) }
        : vals.length === 1
          ? vals[0]
          : vals;
  }
  if (session) out.session = session;
  return out;
}

/** Where tail kept its positions before they moved under $HOOKMAP_HOME (read once, when the new file has none; never written). */
function legacyState(): Record<string, Positions> {
  if (process.env.HOOKMAP_STATE_DIR) return {};
  const old = join(process.env.XDG_STATE_HOME || join(homedir(), '.local', 'state'), 'hookmap', 'tail.json');
  return existsSync(old) ? loadState(old) : {};
}

function loadState(path: string): Record<string, Positions> {
  try {
    const v = JSON.parse(readFileSync(path, 'utf8'));
    return v && typeof v === 'object' ? v : {};
  } catch {
    return {};
  }
}

function saveState(path: string, key: string, positions: Positions): void {
  try {
    const all = loadState(path);
    all[key] = positions;
    ensureParent(path); // $HOOKMAP_HOME and its state/ are the user's alone (0700)
    const tmp = `${path}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(all), { mode: 0o600 });
    renameSync(tmp, path); // atomic: a crash never leaves a torn state file
  } catch (e) {
    process.stderr.write(`hookmap tail: could not save resume state: ${(e as Error).message}\n`);
  }
}

const SEV_MARK: Record<string, string> = { notice: '!', warning: '!!', error: 'E', critical: 'E!' };

const MAX_SETTLED = 10_000;

/** The readable view of a list of events, as `tail` prints it live (no relay: nothing known settled beforehand). */
export function tailText(events: Iterable<AepEvent>): string {
  const view = new View();
  return [...events].map((ev) => view.lines(ev)).join('');
}

/** The readable view: one line per event, plus what a run's end leaves unsaid about its calls. */
class View {
  private readonly labels = new Map<string, string>();
  private readonly settled = new Set<string>();
  private readonly calls = new CallWatch();

  /** The requests already answered, timed out or resolved in what the relay holds (no hint for those). */
  async learnSettled(ep: Endpoint, filter: Record<string, unknown>): Promise<void> {
    const f: Record<string, unknown> = { type: [...ATTENTION_TERMINALS] };
    if (filter.session !== undefined) f.session = filter.session;
    await replayHeld(ep, f, (ev) => void (ev.subject && this.settled.add(ev.subject)));
  }

  lines(ev: AepEvent): string {
    if (ev.type === TYPE.sessionStarted && ev.session !== undefined) {
      const l = sessionLabel(ev);
      if (l) this.labels.set(ev.session, l);
    }
    // the one fold (engine/core/kernel/fold/) first: what a request is and what its answer means, which calls an end leaves unsaid
    const unsaid = this.calls.add(ev);
    const out = [this.format(ev)];
    if (isAttentionTerminal(ev.type) && ev.subject) {
      this.settled.add(ev.subject);
      if (this.settled.size > MAX_SETTLED) this.settled.delete(this.settled.values().next().value!);
    }
    for (const c of unsaid) out.push(`${this.head(ev, false)}   ↳ tool ${c.tool}${c.callId ? ` ${c.callId}` : ''}: ${c.outcome}`);
    if (isSessionTerminal(ev.type) && ev.session !== undefined) this.labels.delete(ev.session);
    return `${out.join('\n')}\n`;
  }

  /** Time, agent, [project] session#seq (a derived line has no seq of its own). */
  private head(ev: AepEvent, seq = true): string {
    const t = typeof ev.time === 'string' ? ev.time.slice(11, 19) : '--:--:--';
    const label = ev.session !== undefined ? this.labels.get(ev.session) : undefined;
    const where = ev.session !== undefined ? `${label ? `[${label}] ` : ''}${ev.session}${seq && ev.seq !== undefined ? `#${ev.seq}` : ''}` : '(agent)';
    return `${t} ${ev.agent} ${where}`;
  }

  private format(ev: AepEvent): string {
    const sev = SEV_MARK[ev.severity ?? ''] ? ` [${SEV_MARK[ev.severity!]}]` : '';
    const subject = ev.subject ? ` ${ev.subject}` : '';
    let extra = '';
    const d = ev.data ?? {};
    if (ev.type === TYPE.attentionRequested) {
      extra = `  ${d.kind ?? ''}: ${d.prompt ?? ''}`;
      if (!this.settled.has(ev.id)) extra += `\n    answer: hookmap answer ${ev.id} --allow | --deny | --text "..."`;
    } else if (ev.type === TYPE.attentionAnswered) {
      // the request's kind and option effects, as the fold holds them (a text-only answer to a permission is a deny with guidance)
      const q = ev.subject ? this.calls.fold.request(ev, ev.subject) : undefined;
      const a = answerOf(ev);
      extra = `  ${answerWords({ ...a, kind: q?.req?.data?.kind as string | undefined, effects: { ...q?.effects, ...a.effects } })}`;
    } else if (ev.type === TYPE.controlRejected) extra = `  ${d.reason ?? ''}`;
    else if (typeof d.status === 'string') extra = `  ${d.status}`;
    return `${this.head(ev)} ${ev.type}${sev}${subject}${extra}`;
  }
}
