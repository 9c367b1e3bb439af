// Generates an agent's shims into $HOOKMAP_HOME/shims: `<agent>.sh` (the sh +
// curl shim, 0755) and `<agent>.json` (the plan table the portable Node shim
// reads, so it never parses YAML on a firing). Writes only what changed.
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { ROOT } from '../../core/descriptor/registry.ts';
import { nextTurnCommand, type Descriptor } from '../../core/descriptor/types.ts';
import { descriptorHash, shimPaths, shimPlan, type PlanInput, type ShimPlan } from './plan.mjs';
import type { Target } from '../../core/io/target.ts';
import { renderShShim } from './sh.ts';
import { ensureDir } from '../../core/io/paths.ts';
import { shimIoDir } from '../../core/io/shim-scratch.ts';
import { hookmapVersion } from '../../core/io/version.ts';

/** The descriptor's file on disk (`file` is shown relative to the repo for its own vendors). */
export function descriptorFile(d: Descriptor): string {
  return isAbsolute(d.file) ? d.file : join(ROOT, d.file);
}

/** What the plan needs, from the compiled descriptor. */
export function planInput(d: Descriptor): PlanInput {
  return {
    vendor: d.vendor,
    name: d.name,
    hookTimeoutMs: d.surface.hookTimeoutMs,
    neutral: d.replies.neutral,
    boundMs: d.shim.boundMs,
    connectTimeoutMs: d.shim.connectTimeoutMs,
    marginMs: d.shim.marginMs,
    timeoutUnit: d.setup?.timeoutUnit.command,
    timeouts: d.setup?.timeouts ?? {},
    hooks: [...d.hooks.values()].map((h) => ({
      name: h.name,
      holdTimeouts: h.holds.map((x) => x.timeoutMs),
      reply: h.reply,
      failOpen: h.failOpen,
      failClosed: h.failClosed,
    })),
    hookName: d.surface.hookNameText,
    nextTurn: shimCarrier(d),
  };
}

/** The descriptor's next-turn carrier when the shim is it (an exit code and a stream; a plugin carrier is shim.plugin.next_turn). */
function shimCarrier(d: Descriptor): PlanInput['nextTurn'] {
  const nt = nextTurnCommand(d)?.nextTurn;
  return nt?.exit === undefined ? undefined : { waitMs: nt.waitMs, exit: nt.exit, stream: nt.stream ?? 'stderr', whenEnv: nt.whenEnv };
}

/** Where the shims live and point: hookmap's home and the daemon address (engine/core/io/target.ts). */
export type ShimTarget = Pick<Target, 'home' | 'url'>;

export function planFor(d: Descriptor, t: ShimTarget): ShimPlan {
  return shimPlan(planInput(d), { hash: descriptorHash(readFileSync(descriptorFile(d))), url: t.url });
}

export function renderTable(plan: ShimPlan): string {
  return `${JSON.stringify(plan, null, 2)}\n`;
}

/** The sh shim `hookmap setup` writes today for this target (doctor compares what is on disk with it). */
export function currentShShim(d: Descriptor, t: ShimTarget): string {
  return renderShShim(planFor(d, t), { home: t.home, version: hookmapVersion() });
}

export interface ShimFiles {
  sh: string;
  table: string;
  changed: string[];
}

export function writeShims(d: Descriptor, t: ShimTarget, opts: { dryRun?: boolean } = {}): ShimFiles {
  const plan = planFor(d, t);
  const paths = shimPaths(plan.agent, t.home);
  const changed: string[] = [];
  const put = (path: string, text: string, mode: number) => {
    if (existsSync(path) && readFileSync(path, 'utf8') === text) return;
    changed.push(path);
    if (opts.dryRun) return;
    ensureDir(paths.dir);
    writeFileSync(path, text, { mode });
    chmodSync(path, mode); // writeFileSync's mode applies only on create
  };
  put(paths.sh, currentShShim(d, t), 0o755);
  put(paths.table, renderTable(plan), 0o644);
  if (!opts.dryRun) ensureDir(shimIoDir(t.home)); // the sh shim's scratch (it makes it too, when gone)
  return { sh: paths.sh, table: paths.table, changed };
}
