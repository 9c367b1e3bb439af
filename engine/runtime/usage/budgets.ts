// Budgets (docs/usage.md "Budgets"): spend per budget and scope, derived from
// the stream alone (the usage each event says was spent: engine/person/history/rows.ts
// usageOf; priced with its own cost, else the price book), so every machine
// of a fleet that reads the same stream holds the same spend. The hook path
// asks verdict(): map lookups, no I/O. A share of a cap crossed (the warning,
// the cap) is announced once per budget, scope and window, by the machine
// whose event crossed it, as x.hookmap.budget.warned / .reached; a refused
// tool call is x.hookmap.budget.blocked in the agent's own session. A
// person's "allow more" on an `ask` card is x.hookmap.budget.raised on
// hookmap's own session (who, by how much): every machine folds the same cap;
// its "let this run finish" is x.hookmap.budget.finishing (budget-finish.ts).
import { randomUUID } from 'node:crypto';
import { PROJECT_ATTR } from '../../core/capture/project.ts';
import { usageOf } from './usage-of.ts';
import { lineOf } from '../../core/kernel/fold/index.ts';
import { opens } from '../../core/kernel/lifecycle.ts';
import type { Budget } from './budget-schema.ts';
import type { BudgetView, SpendView } from './budget-view.ts';
import type { PriceBook } from './prices.ts';
import { amount, isoOf, label, NEXT, period, str, touch, untilText, windowOf, type StreamEvent } from './budget-text.ts';
import { BUDGET_FINISHING, LetFinish } from './budget-finish.ts';

export { amount, label } from './budget-text.ts';

export const BUDGET_WARNED = 'x.hookmap.budget.warned';
export const BUDGET_REACHED = 'x.hookmap.budget.reached';
export const BUDGET_BLOCKED = 'x.hookmap.budget.blocked';
export const BUDGET_RAISED = 'x.hookmap.budget.raised';
const ANNOUNCED = new Set([BUDGET_WARNED, BUDGET_REACHED]);
/** Budget, scope and window keys held (the least recently spent go first), sessions remembered, event ids deduplicated. */
export const BUDGET_LIMITS = { keys: 100_000, sessions: 50_000, seen: 100_000 } as const;
/** An event more than this older than the book is read back (a restart, the replay buffer): counted, never announced again. */
const REPLAYED_MS = 5_000;

export type { StreamEvent } from './budget-text.ts';

interface Spend {
  usd: number;
  tokens: number;
  /** Usage events with no known price (counted in tokens, not in USD). */
  unpriced: number;
  /** What people allowed beyond the cap (x.hookmap.budget.raised). */
  raised: number;
  warned: boolean;
  reached: boolean;
}
const fresh = (): Spend => ({ usd: 0, tokens: 0, unpriced: 0, raised: 0, warned: false, reached: false });

/** What a budget at its cap says of a firing, for the hook's reply and its record on the stream. */
export interface BudgetVerdict {
  budget: Budget;
  reason: string;
  /** "project shop-api has spent $10.02 of $10 today (UTC)" (an ask's card). */
  headline: string;
  /** The x.hookmap.budget.blocked payload (every field metadata). */
  data: Record<string, unknown>;
}

/** What a daemon asks at a hook (engine/runtime/daemon/instructions.ts). */
export interface BudgetGate {
  /** `skip`: budgets a person let this run pass (an ask's "let this run finish"). */
  verdict(agent: string, session: string, skip?: (b: Budget) => boolean): BudgetVerdict | undefined;
  /** An ask's "allow more": the cap of the verdict's scope and window raised by the budget's raise_by, said on the stream. */
  raise(v: BudgetVerdict, by: string | undefined, request: string): Record<string, unknown>;
  /** An ask's "let this run finish": the runs let go on past the cap, said on the stream. */
  readonly finishing: LetFinish;
  /** The daemon's own events as it logs them (the stream brings them again: counted once, by id). */
  add?(ev: StreamEvent): void;
}

export type { BudgetView, SpendView } from './budget-view.ts';

/** The scopes listed per budget (the most spent first). */
export const VIEW_MAX = 200;

export interface BudgetBookOptions {
  prices?: PriceBook;
  now?: () => number;
  /** Whether this machine announces the crossings an event causes (its own daemons' events: one announcement per fleet). */
  mine?: (ev: StreamEvent) => boolean;
  /** The agent whose warnings and reached caps count as said (hookmap's own emitter): another's are ignored. */
  announcer?: string;
  /** Publish a warning or a reached cap (hookmap's own session on the stream). */
  announce?: (type: string, data: Record<string, unknown>) => void;
  say?: (line: string) => void;
}

export class BudgetBook implements BudgetGate {
  private readonly spend = new Map<string, Spend>();
  /** session -> its agent and project label (from its session.started). */
  private readonly sessions = new Map<string, { agent?: string; project?: string }>();
  private readonly seen = new Map<string, true>();
  private readonly now: () => number;
  private readonly started: number;
  private readonly blocking: Budget[];
  private readonly raises = new Map<string, true>(); // raises applied here before the stream brings them back (by raise id)
  readonly finishing: LetFinish;

  constructor(
    readonly budgets: readonly Budget[],
    private readonly o: BudgetBookOptions = {},
  ) {
    this.now = o.now ?? Date.now;
    this.started = this.now();
    this.blocking = budgets.filter((b) => b.atCap !== 'notify');
    this.finishing = new LetFinish(o.announce, o.say);
  }

  /** The scope a budget counts an event of (agent, session) under, or undefined when the budget does not count it. */
  private nameFor(b: Budget, agent: string | undefined, session: string | undefined): string | undefined {
    if (b.scope === 'all') return '*';
    if (b.scope === 'session') return session ? lineOf(session) : undefined;
    const name = b.scope === 'agent' ? agent : session ? (this.sessions.get(session) ?? this.sessions.get(lineOf(session)))?.project : undefined;
    if (!name || (b.only !== undefined && b.only !== name)) return undefined;
    return name;
  }

  private key(b: Budget, name: string, window: string): string {
    return `${b.id}\u0000${name}\u0000${window}`;
  }

  /** One event of the stream, in its order; bad input is skipped, never thrown. */
  add(ev: StreamEvent): void {
    const id = str(ev.id);
    const type = str(ev.type);
    if (!id || !type || this.seen.has(id)) return;
    touch(this.seen, id, true, BUDGET_LIMITS.seen);
    const data = ev.data && typeof ev.data === 'object' && !Array.isArray(ev.data) ? (ev.data as Record<string, unknown>) : {};
    const session = str(ev.session);
    if (type === BUDGET_RAISED) return void (ev.agent === (this.o.announcer ?? 'hookmap') && this.noteRaised(data));
    if (type === BUDGET_FINISHING) return void (ev.agent === (this.o.announcer ?? 'hookmap') && this.finishing.note(data));
    if (ANNOUNCED.has(type)) return void (ev.agent === (this.o.announcer ?? 'hookmap') && this.noteAnnounced(type, data));
    if (session && opens(type) === 'session') {
      touch(this.sessions, session, { agent: str(ev.agent), project: str(ev[PROJECT_ATTR]) }, BUDGET_LIMITS.sessions);
      return;
    }
    const u = usageOf(type, data);
    if (!u || !this.budgets.length) return;
    const time = Date.parse(String(ev.time ?? ''));
    if (!Number.isFinite(time)) return;
    const tokens = u.input + u.output;
    const usd = u.cost ?? this.o.prices?.cost(u.model, u)?.total;
    const agent = str(ev.agent);
    const [at, today] = [isoOf(time), isoOf(this.now())];
    const live = time >= this.started - REPLAYED_MS && (this.o.mine?.(ev) ?? true);
    for (const b of this.budgets) {
      const name = this.nameFor(b, agent, session);
      if (name === undefined) continue;
      const window = windowOf(b, at);
      const k = this.key(b, name, window);
      const s = this.spend.get(k) ?? fresh();
      s.tokens += tokens;
      if (usd === undefined || !Number.isFinite(usd) || usd < 0) s.unpriced++;
      else s.usd += usd;
      touch(this.spend, k, s, BUDGET_LIMITS.keys);
      const share = (b.unit === 'usd' ? s.usd : s.tokens) / (b.cap + s.raised);
      const current = window === windowOf(b, today);
      if (share >= b.warnAt && !s.warned) this.crossed(b, name, window, s, 'warned', live && current && share < 1);
      if (share >= 1 && !s.reached) this.crossed(b, name, window, s, 'reached', live && current);
    }
  }

  private crossed(b: Budget, name: string, window: string, s: Spend, kind: 'warned' | 'reached', say: boolean): void {
    s[kind] = true;
    if (kind === 'reached') s.warned = true;
    if (!say || !this.o.announce) return;
    const spent = b.unit === 'usd' ? s.usd : s.tokens;
    const next = b.atCap === 'notify' ? 'nothing is refused (notify)' : NEXT[b.atCap];
    const head = `${label(b, name)} has spent ${amount(b.unit, spent)} of ${amount(b.unit, b.cap + s.raised)}${period(b)}`;
    const text = kind === 'warned' ? `${head} (budget ${b.id}, ${Math.round(b.warnAt * 100)}% warning)` : `${head} (budget ${b.id}): ${next}`;
    try {
      this.o.announce(kind === 'warned' ? BUDGET_WARNED : BUDGET_REACHED, { ...this.record(b, name, window, spent, s.raised), text });
    } catch (e) {
      this.o.say?.(`budget ${b.id}: could not put the ${kind} record on the stream: ${(e as Error).message}`);
    }
  }

  /** A warning or a cap some machine announced: never announced again here. */
  private noteAnnounced(type: string, data: Record<string, unknown>): void {
    const b = this.budgets.find((x) => x.id === data.budget);
    const name = str(data.name);
    if (!b || name === undefined) return;
    const k = this.key(b, name, typeof data.window === 'string' ? data.window : '');
    const s = this.spend.get(k) ?? fresh();
    s.warned = true;
    if (type === BUDGET_REACHED) s.reached = true;
    touch(this.spend, k, s, BUDGET_LIMITS.keys);
  }

  /** A raise some machine said (or this one, already applied): the scope's cap in that window grows by its amount. */
  private noteRaised(data: Record<string, unknown>): void {
    const b = this.budgets.find((x) => x.id === data.budget);
    const [name, id, by] = [str(data.name), str(data.raise), data.amount];
    if (!b || name === undefined || !id || typeof by !== 'number' || !(by > 0) || by > b.raiseBy * 1_000 || this.raises.has(id)) return;
    this.applyRaise(b, this.key(b, name, typeof data.window === 'string' ? data.window : ''), by, id);
  }

  private applyRaise(b: Budget, k: string, by: number, id: string): Spend {
    touch(this.raises, id, true, BUDGET_LIMITS.seen);
    const s = this.spend.get(k) ?? fresh();
    s.raised += by;
    const share = (b.unit === 'usd' ? s.usd : s.tokens) / (b.cap + s.raised);
    [s.reached, s.warned] = [share >= 1, share >= b.warnAt];
    touch(this.spend, k, s, BUDGET_LIMITS.keys);
    return s;
  }

  raise(v: BudgetVerdict, by: string | undefined, request: string): Record<string, unknown> {
    const b = v.budget;
    const [name, window] = [String(v.data.name), typeof v.data.window === 'string' ? v.data.window : ''];
    const id = randomUUID();
    const s = this.applyRaise(b, this.key(b, name, window), b.raiseBy, id);
    const spent = b.unit === 'usd' ? s.usd : s.tokens;
    const who = by ?? '(no authenticated sender)';
    const may = `${label(b, name)} may spend ${amount(b.unit, b.cap + s.raised)}${period(b)}`;
    const text = `${who} allowed ${amount(b.unit, b.raiseBy)} more on budget ${b.id}: ${may}`;
    const data = { ...this.record(b, name, window, spent, s.raised), amount: b.raiseBy, raised: s.raised, by: who, raise: id, request, text };
    try {
      this.o.announce?.(BUDGET_RAISED, data);
    } catch (e) {
      this.o.say?.(`budget ${b.id}: could not put the raise on the stream: ${(e as Error).message}`);
    }
    return data;
  }

  /** `cap`: the cap in force (the budget's, plus what people allowed in this window). */
  private record(b: Budget, name: string, window: string, spent: number, raised = 0): Record<string, unknown> {
    const round = (n: number) => (b.unit === 'usd' ? Math.round(n * 1e6) / 1e6 : Math.round(n));
    return {
      budget: b.id,
      scope: b.scope,
      name,
      ...(window ? { window } : {}),
      unit: b.unit,
      cap: round(b.cap + raised),
      spent: round(spent),
      at_cap: b.atCap,
    };
  }

  /** The first blocking budget at its cap for a firing of `agent` in `session` now, if any: map lookups only. */
  verdict(agent: string, session: string, skip?: (b: Budget) => boolean): BudgetVerdict | undefined {
    if (!this.blocking.length) return undefined;
    const now = isoOf(this.now());
    for (const b of this.blocking) {
      if (skip?.(b)) continue;
      const name = this.nameFor(b, agent, session);
      if (name === undefined) continue;
      const window = windowOf(b, now);
      const s = this.spend.get(this.key(b, name, window));
      const [spent, raised] = s ? [b.unit === 'usd' ? s.usd : s.tokens, s.raised] : [0, 0];
      if (spent < b.cap + raised) continue;
      const until = untilText(b);
      const headline = `${label(b, name)} has spent ${amount(b.unit, spent)} of ${amount(b.unit, b.cap + raised)}${period(b)}`;
      const reason = b.reason ?? `hookmap budget ${b.id}: ${headline}. Tool calls are refused until ${until}: stop here and tell the user.`;
      return { budget: b, reason, headline, data: this.record(b, name, window, spent, raised) };
    }
    return undefined;
  }

  /** Each budget with the spend of every scope it counts in the current window (`hookmap budgets`, GET /budgets). */
  view(): BudgetView[] {
    const now = isoOf(this.now());
    return this.budgets.map((b) => {
      const window = windowOf(b, now);
      const spends: SpendView[] = [];
      const prefix = `${b.id}\u0000`;
      for (const [k, s] of this.spend) {
        if (!k.startsWith(prefix) || !k.endsWith(`\u0000${window}`)) continue;
        const name = k.slice(prefix.length, k.length - window.length - 1);
        const [spent, cap] = [b.unit === 'usd' ? s.usd : s.tokens, b.cap + s.raised];
        const state = spent >= cap ? 'reached' : spent >= cap * b.warnAt ? 'warned' : 'under';
        const next = state !== 'reached' ? 'allowed' : NEXT[b.atCap];
        const share = Math.round((spent / cap) * 1000) / 1000;
        const rec = this.record(b, name, window, spent, s.raised);
        spends.push({ name, spent: rec.spent as number, share, state, next, unpriced: s.unpriced, ...(s.raised ? { raised: rec.cap as number } : {}) });
      }
      spends.sort((x, y) => y.share - x.share);
      return {
        scopes: spends.length,
        id: b.id,
        scope: b.scope,
        ...(b.only ? { only: b.only } : {}),
        ...(b.window ? { window: b.window, current: window } : {}),
        unit: b.unit,
        cap: b.cap,
        warn_at: b.warnAt,
        at_cap: b.atCap,
        ...(b.atCap === 'ask' ? { raise_by: b.raiseBy } : {}),
        spends: spends.slice(0, VIEW_MAX),
      };
    });
  }
}
