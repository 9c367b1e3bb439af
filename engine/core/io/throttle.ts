// A log line anyone on the network can provoke (a refused action, a forged
// button) must not let them fill the operator's log: said at most once per
// window, the lines held back in between counted into the next one said.

export function throttledSay(say: ((line: string) => void) | undefined, windowMs = 60_000, now: () => number = Date.now): (line: string) => void {
  let last = -Infinity;
  let held = 0;
  return (line) => {
    if (!say) return;
    const t = now();
    if (t - last < windowMs) {
      held++;
      return;
    }
    say(held ? `${line} (${held} more like it since the last one said, not logged)` : line);
    last = t;
    held = 0;
  };
}
