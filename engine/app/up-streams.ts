// `up`'s stream-subscriber agents: each daemon of that surface attaches to every instance the config
// names (an instance's event stream, resumed from its state file).
import type { Daemon } from '../runtime/daemon/daemon.ts';
import { StreamSubscriber, streamStateFile, type StreamInstance } from '../runtime/surface/stream-subscriber.ts';

export function startSubscribers(
  daemons: Map<string, Daemon>,
  instances: Map<string, StreamInstance[] | undefined>,
  say: (line: string) => void,
  detail: (line: string) => void,
): { agent: string; sub: StreamSubscriber }[] {
  const out: { agent: string; sub: StreamSubscriber }[] = [];
  for (const d of daemons.values()) {
    if (d.surfaceKind !== 'stream-subscriber') continue;
    const list = instances.get(d.vendor);
    if (!list?.length) {
      detail(`  ${d.vendor}: no instances configured: nothing to subscribe to (hookmap up --config: agents.${d.vendor}.instances)`);
      continue;
    }
    for (const inst of list) {
      const sub = new StreamSubscriber({
        daemon: d,
        spec: d.streamSpec!,
        instance: inst,
        stateFile: streamStateFile(d.logDir),
        say: (l) => say(`[${d.vendor}] ${l}`),
      });
      out.push({ agent: d.vendor, sub });
      sub.start();
    }
  }
  return out;
}
