// One alert for one moment. A run that failed on a rate or usage limit is
// said by the limit's alert ("paused until 15:04"), not by a second "a run
// failed" beside it: the daemon publishes the firing's run.failed before the
// limit sign's x.hookmap.limit.reached (engine/runtime/daemon/waiting-sign.ts),
// so a run failure's alert waits COALESCE_MS for a limit in its session, and
// one that comes after a limit's alert in that session is not said again.
// Bounded: at most MAX_SESSIONS sessions remembered each way.
export const COALESCE_MS = 1_000;
export const MAX_SESSIONS = 1_000;

export class FailureCoalescer {
  private readonly pending = new Map<string, ReturnType<typeof setTimeout>>();
  /** Sessions whose limit alert went out, and when. */
  private readonly limited = new Map<string, number>();

  constructor(
    private readonly now: () => number,
    private readonly ms = COALESCE_MS,
  ) {}

  /** A run failed in `session`: its alert fires after the wait, unless a limit in the session says it. */
  failed(session: string | undefined, fire: () => void): void {
    if (!session) return fire();
    const at = this.limited.get(session);
    if (at !== undefined && this.now() - at <= this.ms) return; // the limit's alert said it
    clearTimeout(this.pending.get(session));
    if (this.pending.size >= MAX_SESSIONS && !this.pending.has(session)) return fire(); // full: said at once rather than lost
    const t = setTimeout(() => {
      this.pending.delete(session);
      fire();
    }, this.ms);
    t.unref?.();
    this.pending.set(session, t);
  }

  /** A limit's alert goes out in `session`: a run failure waiting there is not said. */
  limit(session: string | undefined): void {
    if (!session) return;
    clearTimeout(this.pending.get(session));
    this.pending.delete(session);
    this.limited.delete(session);
    this.limited.set(session, this.now());
    if (this.limited.size > MAX_SESSIONS) this.limited.delete(this.limited.keys().next().value!);
  }

  close(): void {
    for (const t of this.pending.values()) clearTimeout(t);
    this.pending.clear();
    this.limited.clear();
  }
}
