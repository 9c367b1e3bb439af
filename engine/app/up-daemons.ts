// `up`'s daemons opened together: each agent's descriptor loaded and its
// folder taken at once, in order, then every epoch flushed to disk at the
// same time (one fsync after another was most of a start), the operator's
// session with them. A daemon exists only once its epoch is durable, so
// nothing is emitted before (AEP-0001 §7 rule 2). One broken agent is one
// line; a broken operator folder refuses the start, every daemon closed.
import { Daemon, type DaemonOptions } from '../runtime/daemon/daemon.ts';
import { OperatorLog } from '../runtime/daemon/operator-log.ts';
import { loadVendor } from '../core/descriptor/registry.ts';
import type { StreamInstance } from '../runtime/surface/stream-subscriber.ts';
import type { AgentEntry } from './up-config.ts';

export interface OpenedDaemons {
  instances: Map<string, StreamInstance[] | undefined>;
  /** The agents NOT started (said already). */
  failed: string[];
  operator: OperatorLog;
}

/** Open `entries`' daemons into `daemons` (by agent, in the entries' order). */
export async function openDaemons(
  entries: AgentEntry[],
  daemons: Map<string, Daemon>,
  o: {
    /** Each agent's options but its descriptor and log folder. */
    base: (e: AgentEntry, vendor: string) => Omit<DaemonOptions, 'descriptor' | 'logDir'>;
    logDir: (vendor: string) => string;
    operator: { logDir: string; say: (l: string) => void; hostId?: string };
    say: (l: string) => void;
  },
): Promise<OpenedDaemons> {
  const operator = OperatorLog.start(o.operator.logDir, o.operator.say, o.operator.hostId);
  const seen = new Set<string>();
  const opening = entries.map(async (e) => {
    const descriptor = loadVendor(e.descriptor);
    if (seen.has(descriptor.vendor)) throw new Error(`agent ${descriptor.vendor} is enabled twice`);
    seen.add(descriptor.vendor);
    return Daemon.start({ ...o.base(e, descriptor.vendor), descriptor, logDir: o.logDir(descriptor.vendor) });
  });
  const out: OpenedDaemons = { instances: new Map(), failed: [], operator: undefined as unknown as OperatorLog };
  const settled = await Promise.allSettled(opening);
  settled.forEach((r, i) => {
    const e = entries[i];
    if (r.status === 'fulfilled') {
      daemons.set(r.value.vendor, r.value);
      out.instances.set(r.value.vendor, e.instances);
    } else {
      // one broken descriptor must not take every other agent down
      o.say(`agent ${e.descriptor} NOT started: ${(r.reason as Error).message}`);
      out.failed.push(String(e.descriptor));
    }
  });
  try {
    out.operator = await operator;
  } catch (e) {
    for (const d of daemons.values()) await d.close();
    throw e;
  }
  return out;
}
