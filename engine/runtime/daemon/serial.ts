// One critical section per daemon: mapping a firing (which allocates seqs),
// appending its events and registering/settling holds happen in order, so a
// session log is always in seq order even when an agent fires hooks in
// parallel. Held hooks wait OUTSIDE it; only the bookkeeping is serialized.
export class Serial {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(fn: () => T | Promise<T>): Promise<T> {
    const next = this.tail.then(fn, fn);
    this.tail = next.catch(() => undefined);
    return next;
  }
}
