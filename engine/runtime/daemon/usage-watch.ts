// Token usage from the agent's own transcript (the descriptor's `transcript`,
// docs/usage.md): after the reply of a hook the descriptor names, the file
// the payload points at is checked (inside the agent's own folders, symlinks
// resolved), the lines appended since the last read are read (bounded in
// bytes and time), each new line's usage counted once (its id), and one
// x.hookmap.usage.reported event per model is published in the session;
// where a new line says the agent stopped on a rate or usage limit (the
// descriptor's `transcript.limits`: a 429 in a rollout), the newest such line
// is one x.hookmap.limit.reached beside them (kernel/limits.ts). It runs
// after the agent was answered, one read at a time, and never throws into a
// firing.
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { CompiledTranscript } from '../../core/descriptor/types.ts';
import { evaluate, type Expr } from '../../core/expr/compile.ts';
import type { AepEvent } from '../../core/map/envelope.ts';
import { PRICE_TABLE, PriceBook } from '../usage/prices.ts';
import { ReadState } from '../usage/read-state.ts';
import { Tally, tokensOf, USAGE_GATES, USAGE_TYPE, usageData } from '../usage/tally.ts';
import { readAppended, resolveTranscript, TranscriptRefused } from '../usage/transcript-file.ts';
import type { DaemonCore } from './core.ts';
import { closes } from '../../core/kernel/lifecycle.ts';
import { LIMIT_REACHED } from '../../core/kernel/limits.ts';
import { limitData } from '../../core/map/limits.ts';

/** A read stops taking new lines after this long; the rest waits for the next read. */
export const READ_BUDGET_MS = 2_000;
/** At most this many parts (sub-agents' files) per session are read again; more are read once, at the hook that names them. */
export const MAX_PARTS = 64;
/** Parts are remembered for this many sessions (the most recently named). */
const MAX_SESSIONS = 1000;

export interface UsageWatchOptions {
  /** The user's home (`~/` in transcript folders, `$home`). */
  home?: string;
  prices?: PriceBook;
  /** Also read after each firing that ends a tool call (budgets in force: spend known within a turn, not only at its end). */
  atToolCalls?: boolean;
  /** Called when a read is done (tests, bench). */
  onRead?: (r: { session: string; events: number; refused?: string }) => void;
}

export class UsageWatch {
  private readonly state: ReadState;
  private readonly home: string;
  private readonly prices: PriceBook;
  private chain: Promise<void> = Promise.resolve();
  /** Per session, the parts with files of their own (a sub-agent's transcript -> its name), read again at each read. */
  private readonly parts = new Map<string, Map<string, string>>();
  private pending = 0;

  constructor(
    private readonly core: DaemonCore,
    private readonly t: CompiledTranscript,
    logDir: string,
    private readonly o: UsageWatchOptions = {},
  ) {
    this.state = new ReadState(logDir);
    this.home = o.home ?? homedir();
    this.prices = o.prices ?? new PriceBook();
  }

  /** A firing was answered: read its transcript later when its hook is one the descriptor names. */
  after(hook: string | undefined, payload: unknown, session: string | undefined, events: readonly AepEvent[]): void {
    if (!hook || !session || this.core.closed) return;
    if (!this.t.readOn.has(hook) && !(this.o.atToolCalls && events.some((e) => closes(e.type) === 'tool'))) return;
    const run = [...events].reverse().find((e) => typeof e.run === 'string')?.run;
    this.pending++;
    this.chain = this.chain
      .then(() => new Promise<void>((r) => setImmediate(r)))
      .then(() => this.read(hook, payload, session, run))
      .catch((e: unknown) => this.core.say(`transcript usage not read (session ${session}): ${(e as Error).message}`))
      .finally(() => this.pending--);
  }

  /** Resolves once every read asked for so far is done. */
  idle(): Promise<void> {
    return this.chain;
  }

  get busy(): boolean {
    return this.pending > 0;
  }

  private async value(e: Expr | undefined, input: unknown): Promise<unknown> {
    if (!e) return undefined;
    try {
      return await evaluate(e, input, { agent: this.core.vendor, config: this.core.config, home: this.home });
    } catch {
      return undefined;
    }
  }

  private async folders(): Promise<string[]> {
    const out: string[] = [];
    for (const f of this.t.folders) {
      const v = typeof f === 'string' ? f : await this.value(f, {});
      if (typeof v !== 'string' || !v) continue;
      out.push(v.startsWith('~/') ? join(this.home, v.slice(2)) : v);
    }
    return out;
  }

  private async read(hook: string, payload: unknown, session: string, run: string | undefined): Promise<void> {
    if (this.core.closed) return;
    const path = await this.value(this.t.path, payload);
    if (path === undefined) return;
    const named = await this.value(this.t.part, payload);
    const part = typeof named === 'string' && named ? named.slice(0, 128) : undefined;
    // a part's own file (a sub-agent's) is read again at each later read of the session: lines it gets after the hook that named it
    const parts = this.parts.get(session) ?? new Map<string, string>();
    if (part && typeof path === 'string' && (parts.has(path) || parts.size < MAX_PARTS)) {
      this.parts.delete(session);
      this.parts.set(session, parts.set(path, part));
      if (this.parts.size > MAX_SESSIONS) this.parts.delete(this.parts.keys().next().value!); // the session seen longest ago
    }
    await this.readFile(path, { hook, session, run, part });
    for (const [p, name] of parts) if (p !== path) await this.readFile(p, { hook, session, run, part: name });
  }

  private async readFile(path: unknown, read: Read): Promise<void> {
    const { session } = read;
    let real: string;
    let chunk: ReturnType<typeof readAppended>;
    try {
      real = resolveTranscript(path, await this.folders());
      chunk = readAppended(real, this.state.position(real), this.t.maxBytes, this.t.maxLineBytes);
    } catch (e) {
      if (!(e instanceof TranscriptRefused)) throw e;
      this.core.say(`transcript refused [${e.code}] session ${session}: ${e.message}`);
      this.o.onRead?.({ session, events: 0, refused: e.code });
      return;
    }
    const tally = new Tally();
    const deadline = this.core.now() + READ_BUDGET_MS;
    let model = this.state.position(real)?.model;
    let at = this.state.position(real)?.ino === chunk.next.ino ? this.state.position(real)!.pos : 0;
    let skipped = chunk.skippedLong;
    let all = true;
    let limit: Record<string, unknown> | undefined;
    for (const line of chunk.lines) {
      if (this.core.now() > deadline) {
        all = false;
        break;
      }
      at = line.end;
      let v: unknown;
      try {
        v = JSON.parse(line.text);
      } catch {
        skipped++;
        continue;
      }
      limit = (await this.limitOf(v, read.hook)) ?? limit; // the newest line that says the agent stopped on a limit
      if (this.t.when && (await this.value(this.t.when, v)) !== true) continue;
      const m = await this.value(this.t.model, v);
      const tokens = tokensOf(await this.value(this.t.usage, v));
      if (typeof m === 'string' && m) model = m;
      if (!tokens) continue;
      const id = await this.value(this.t.id, v);
      if (id !== undefined && id !== null && !this.state.firstTime(session, String(id))) continue;
      tally.add(typeof m === 'string' && m ? m : model, tokens);
    }
    const next = all ? chunk.next : { pos: at, ino: chunk.next.ino };
    this.state.advance(real, { ...next, ...(model ? { model } : {}) });
    const events = await this.publish(tally, read, skipped, limit);
    // logged first, then the position: a crash between the two can count one read again, never lose it
    this.state.save();
    this.o.onRead?.({ session, events });
  }

  /** A transcript line's limit sign (the descriptor's `transcript.limits`): the event's data, or undefined. */
  private async limitOf(line: unknown, hook: string): Promise<Record<string, unknown> | undefined> {
    for (const l of this.t.limits) {
      try {
        const data = await limitData(l, line, { agent: this.core.vendor, config: this.core.config, home: this.home }, hook, this.core.now());
        if (data) return { ...data, transcript: true };
      } catch {
        continue; // a line it cannot read says no limit
      }
    }
    return undefined;
  }

  private async publish(tally: Tally, read: Read, skipped: number, limit?: Record<string, unknown>): Promise<number> {
    const { session, run, part } = read;
    if (tally.empty && !limit) {
      if (skipped) this.core.say(`transcript of session ${session}: ${skipped} line(s) skipped (not JSON or over the length limit)`);
      return 0;
    }
    const table = `${PRICE_TABLE.name} ${PRICE_TABLE.version} (${PRICE_TABLE.published})`;
    return this.core.serial.run(() => {
      if (this.core.closed) return 0;
      const evs = [...tally.byModel.values()].map((m) => {
        const data = usageData(m, this.prices.cost(m.model, m.tokens), table);
        if (skipped) data.skipped_lines = skipped;
        if (part) data.part = part;
        return this.core.events.make({ type: USAGE_TYPE, session, run, data, gates: USAGE_GATES });
      });
      if (limit) evs.push(this.core.events.make({ type: LIMIT_REACHED, session, run, data: limit, gates: LIMIT_GATES }));
      return this.core.publish(evs).length;
    });
  }
}

/** One read: the hook after which it happens, the session, its run, and the part whose file it is. */
interface Read {
  hook: string;
  session: string;
  run: string | undefined;
  part: string | undefined;
}

const LIMIT_GATES: Record<string, 'metadata'> = {
  kind: 'metadata',
  hook: 'metadata',
  resets_at: 'metadata',
  agent_retries: 'metadata',
  transcript: 'metadata',
};
