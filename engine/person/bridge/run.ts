// One bridge run: an input (the relay, live, or a JSONL file), a target
// (otlp | cloudevents | ocsf), batching (by count and time), delivery with
// bounded retries, and — live — a checkpoint after each delivered batch.
// Used by `hookmap bridge` and by `hookmap up --bridge`.
import type { AepEvent } from './projection/common.ts';
import { loadCheckpoint, saveCheckpoint } from './checkpoint.ts';
import { HttpDelivery, type DeliveryOptions, type DeliveryStats } from './delivery.ts';
import { readEventFile, type FileSourceStats, type LineProblem } from './file-source.ts';
import { Positions } from './positions.ts';
import { RelaySource, type RelaySourceStats } from './relay-source.ts';
import type { BridgeTarget } from './targets.ts';
import type { CaptureLevel } from '../../core/aep/schemas.ts';
import type { SseTrust } from '../../runtime/relay/client.ts';
import { redactUrl } from '../../runtime/relay/auth.ts';

export type BridgeInput =
  | {
      kind: 'relay';
      url: string;
      token?: string;
      tls?: SseTrust;
      filter?: Record<string, unknown>;
      capture?: CaptureLevel;
      start?: 'all' | 'live';
      statePath?: string;
    }
  | { kind: 'file'; path: string };

export interface BridgeRunOptions {
  target: BridgeTarget;
  input: BridgeInput;
  batchMax?: number;
  batchMs?: number;
  /** Events buffered from the relay before it stops reading (backpressure). */
  queueMax?: number;
  tickMs?: number;
  delivery?: DeliveryOptions;
  /** stdout mode: where each JSONL line goes. */
  out?: (line: string) => void;
  say?: (line: string) => void;
  onProblem?: (p: LineProblem) => void;
}

export interface BridgeStats {
  events: number;
  items: number;
  batches: number;
  droppedItems: number;
  checkpoints: number;
  source?: RelaySourceStats;
  file?: FileSourceStats;
  delivery?: DeliveryStats;
}

export interface BridgeHandle {
  done: Promise<BridgeStats>;
  stop(): Promise<BridgeStats>;
  stats: BridgeStats;
  /** Live only: the relay source (its buffer, reconnects, pauses). */
  source?: RelaySource;
}

export function runBridge(o: BridgeRunOptions): BridgeHandle {
  const say = o.say ?? (() => {});
  const stats: BridgeStats = { events: 0, items: 0, batches: 0, droppedItems: 0, checkpoints: 0 };
  const stopCtl = new AbortController();
  const delivery = o.target.endpoint ? new HttpDelivery({ ...o.delivery, say: o.delivery?.say ?? say, signal: stopCtl.signal }) : undefined;
  if (delivery) stats.delivery = delivery.stats;
  const batchMax = o.batchMax ?? 512;
  const batchMs = o.batchMs ?? 1000;
  const tickMs = o.tickMs ?? 30_000;
  let batch: unknown[] = [];
  let batchEvents = 0;
  let batchStarted = 0;

  async function flush(): Promise<void> {
    const items = batch;
    batch = [];
    batchEvents = 0;
    if (!items.length) return;
    stats.batches++;
    if (!delivery) {
      for (const l of o.target.lines(items)) (o.out ?? ((s) => process.stdout.write(`${s}\n`)))(l);
      stats.items += items.length;
      return;
    }
    for (const req of o.target.requests(items)) {
      const r = await delivery.send(req);
      if (r.ok) stats.items += req.items;
      else {
        stats.droppedItems += req.items;
        say(`sink ${redactUrl(req.url)}: ${req.items} item(s) NOT delivered: ${r.reason}`);
      }
    }
  }

  function add(items: unknown[]): void {
    if (!items.length) return;
    if (!batch.length) batchStarted = Date.now();
    batch.push(...items);
  }

  let source: RelaySource | undefined;
  let done: Promise<BridgeStats>;
  if (o.input.kind === 'file') {
    const input = o.input;
    stats.file = { lines: 0, events: 0, duplicates: 0, problems: 0 };
    done = (async () => {
      const problem = o.onProblem ?? ((p: LineProblem) => say(`${input.path}:${p.line}: ${p.code}: ${p.detail}`));
      for await (const ev of readEventFile(input.path, problem, stats.file)) {
        if (stopCtl.signal.aborted) break;
        take(ev);
        if (batch.length >= batchMax || batchEvents >= batchMax) await flush();
      }
      add(o.target.end());
      await flush();
      return stats;
    })();
  } else {
    const input = o.input;
    const cp = input.statePath ? loadCheckpoint(input.statePath) : undefined;
    if (cp && cp.target !== o.target.kind) throw new Error(`${input.statePath}: checkpoint of a ${cp.target} bridge, not ${o.target.kind}`);
    const consumed = new Positions(cp?.positions ?? {});
    if (cp) o.target.restore(cp.target_state);
    let fatal: Error | undefined;
    source = new RelaySource({
      url: input.url,
      token: input.token,
      tls: input.tls,
      filter: input.filter,
      capture: input.capture,
      start: input.start,
      positions: consumed,
      highWater: o.queueMax ?? 2048,
      say,
      onFatal: (e) => (fatal = e),
    });
    stats.source = source.stats;
    const src = source;
    let dirty = false;
    const commit = () => {
      if (!input.statePath || !dirty) return;
      saveCheckpoint(input.statePath, { target: o.target.kind, positions: consumed.toJSON(), target_state: o.target.snapshot() });
      stats.checkpoints++;
      dirty = false;
    };
    done = (async () => {
      let lastTick = Date.now();
      for (;;) {
        const wait = batch.length ? Math.max(0, batchStarted + batchMs - Date.now()) : Math.max(0, lastTick + tickMs - Date.now());
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([src.ready(), new Promise<void>((r) => (timer = setTimeout(r, wait)))]);
        clearTimeout(timer);
        while (src.buffered > 0 && batchEvents < batchMax) {
          const ev = (await src.next())!;
          consumed.advance(ev);
          dirty = true;
          take(ev);
        }
        const now = Date.now();
        if (now - lastTick >= tickMs) {
          lastTick = now;
          const before = batch.length;
          add(o.target.tick(now));
          if (batch.length > before) dirty = true;
        }
        if (batch.length >= batchMax || batchEvents >= batchMax || (batch.length && now - batchStarted >= batchMs)) await flush();
        if (!batch.length) commit();
        if (stopCtl.signal.aborted || src.finished) break;
      }
      await flush();
      commit();
      if (fatal) throw fatal;
      return stats;
    })();
  }

  function take(ev: AepEvent): void {
    stats.events++;
    batchEvents++;
    add(o.target.project(ev, Date.now()));
  }

  let stopping: Promise<BridgeStats> | undefined;
  return {
    done,
    stats,
    source,
    stop() {
      return (stopping ??= (async () => {
        source?.close();
        // give in-flight delivery a moment, then cut it (the checkpoint keeps what was not delivered)
        const cut = setTimeout(() => stopCtl.abort(), 5_000);
        try {
          return await done.catch(() => stats);
        } finally {
          clearTimeout(cut);
        }
      })());
    },
  };
}
