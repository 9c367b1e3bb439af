// Is an agent wired, and wired well? Reads the agent's own hook config in
// each scope and compares hookmap's entries with what `hookmap setup` would
// write today: missing or extra hooks, duplicates (in one file or across
// scopes: each firing would reach the daemon twice), other products' hooks
// on the same events, shims that vanished or came from an older descriptor.
import { HOOK_KEY_FILE, HOOK_KEY_HEADER, hookKeyMatches, hookKeyPath, readHookKey } from '../../runtime/auth/hook-key.mjs';
import type { Target } from '../../core/io/target.ts';
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { nextTurnCommand, type Descriptor } from '../../core/descriptor/types.ts';
import { configPathFor, formatOptions, readEntries } from '../../runtime/setup/apply.ts';
import { FORMATS } from '../../runtime/setup/formats/index.ts';
import type { Entry } from '../../runtime/setup/formats/types.ts';
import { anyHookmap, commandOf, hookmapMatcher, shimPathOf, type Handler } from '../../runtime/setup/recognize.ts';
import { checkRequirements } from '../../runtime/setup/requirements.ts';
import { setupSpec, type Scope } from '../../runtime/setup/spec.ts';
import type { Wiring } from '../../runtime/setup/wirings.ts';
import { currentShShim, planFor } from '../../runtime/shim/generate.ts';
import { SHIM_VERSION } from '../../runtime/shim/plan.mjs';
import { stampLine, WRITTEN_BY } from '../../runtime/shim/sh.ts';
import { hookmapVersion } from '../../core/io/version.ts';
import { DETAIL_LINES, type Finding } from './types.ts';
import { unifiedDiff } from '../../core/text/diff.ts';
import { inspectPlugin, inspectTee, launcherProblem, tilde } from './wiring-surfaces.ts';

/** A shim's text without the line naming who wrote it (a version bump alone changes nothing it does). */
const shimBody = (text: string) =>
  text
    .split('\n')
    .filter((l) => !l.startsWith(WRITTEN_BY))
    .join('\n');

export interface AgentWiring {
  agent: string;
  wired: boolean;
  usesShShim: boolean;
  findings: Finding[];
  /** Where hookmap entries were found, by scope. */
  wiredAt: { scope: Scope; path: string }[];
  /** The setup command of the first scope found wired (its --project --dir included): fix hints build on it. */
  setupCommand?: string;
}

/** A path as one shell word in a fix hint (quoted only when it must be). */
const shellWord = (p: string) => (/^[\w./~:@%+-]+$/.test(p) ? p : `'${p.replace(/'/g, `'\\''`)}'`);

const describe = (h: Handler, fields: readonly string[]) => String(commandOf(h, fields) ?? h.url ?? JSON.stringify(h)).slice(0, 80);

/**
 * `dir` is the folder doctor runs in (its project configs are checked);
 * `recorded` are the wirings `hookmap setup` remembered for this agent
 * (engine/runtime/setup/wirings.ts): their project folders are checked too, from
 * wherever doctor runs, and a recorded config that vanished is said.
 */
export function inspectAgent(d: Descriptor, target: Target, dir: string, recorded: Wiring[] = []): AgentWiring {
  const agent = d.vendor;
  const out: AgentWiring = { agent, wired: false, usesShShim: false, findings: [], wiredAt: [] };
  const add = (f: Omit<Finding, 'area' | 'subject'>) => out.findings.push({ area: 'agent', subject: agent, ...f });
  const spec = setupSpec(d)!;
  const format = FORMATS[spec.strategy];
  const opts = formatOptions(d, spec);
  const owned = format.kind === 'text' && !!format.owned;
  const setupCmdAt = (scope: Scope, at = dir) =>
    `hookmap setup ${agent}${scope === 'project' ? ` --project${resolve(at) === resolve(dir) ? '' : ` --dir ${shellWord(tilde(at, target))}`}` : ' --user'}`;
  const fields = spec.handler.recognize;
  const ours = hookmapMatcher(agent, fields);
  const wanted = [...d.hooks.values()].filter((h) => h.register).map((h) => h.name);
  const wiredIn = new Map<string, Scope[]>();
  const expectedStamp = stampLine(planFor(d, target));
  const base = target.url;
  const targets: { scope: Scope; dir: string; path: string; recorded?: Wiring }[] = [];
  const seen = new Set<string>();
  const consider = (scope: Scope, at: string, rec?: Wiring) => {
    const path = configPathFor(d, scope, at, target);
    if (!path || seen.has(resolve(path))) return;
    seen.add(resolve(path));
    targets.push({ scope, dir: at, path, recorded: rec });
  };
  consider('user', dir);
  consider('project', dir);
  for (const w of recorded) if (w.agent === agent) consider(w.scope, w.scope === 'project' && w.dir ? w.dir : dir, w);
  for (const t of targets) {
    const { scope, path } = t;
    const setupCmd = (s: Scope) => setupCmdAt(s, t.dir);
    if (!existsSync(path)) {
      if (t.recorded)
        add({
          status: 'warn',
          message: `${scope} ${tilde(path, target)}: \`hookmap setup\` wired it on ${t.recorded.at.slice(0, 10)}; the file is gone now`,
          fix: setupCmd(scope),
        });
      continue;
    }
    const where = `${scope} ${tilde(path, target)}`;
    if (owned) {
      inspectPlugin(d, scope, path, where, target, add, out, wiredIn, setupCmd(scope));
      continue;
    }
    let entries: Entry[];
    try {
      entries = readEntries(format, path, opts);
    } catch (err) {
      add({ status: 'problem', message: `${where}: ${(err as Error).message}`, fix: 'fix the file by hand; hookmap never rewrites what it cannot parse' });
      continue;
    }
    const mine = entries.filter((e) => ours(e.handler));
    if (d.surface.kind === 'stdio-tee') {
      inspectTee(mine, where, add, out, scope, path, setupCmd(scope), target);
      continue;
    }
    if (!mine.length) {
      add({ status: 'info', message: `${where}: config present, no hookmap entries`, fix: setupCmd(scope) });
      continue;
    }
    out.wired = true;
    out.wiredAt.push({ scope, path });
    const perHook = new Map<string, number>();
    // a next-turn carrier's background waiter (`<shim> next-turn`) sits beside its hook's own handler: counted apart
    const waiter = (e: Entry) => / next-turn$/.test(String(commandOf(e.handler, fields) ?? ''));
    for (const e of mine) if (!waiter(e)) perHook.set(e.hook, (perHook.get(e.hook) ?? 0) + 1);
    nextTurnWiring(d, mine.filter(waiter), where, setupCmd(scope), add);
    for (const h of perHook.keys()) wiredIn.set(h, [...(wiredIn.get(h) ?? []), scope]);
    const missing = wanted.filter((h) => !perHook.has(h));
    const extra = [...perHook.keys()].filter((h) => !wanted.includes(h));
    const dups = [...perHook].filter(([, n]) => n > 1).map(([h, n]) => `${h} x${n}`);
    add({ status: 'ok', message: `${where}: ${wanted.length - missing.length}/${wanted.length} hooks wired` });
    if (dups.length)
      add({
        status: 'problem',
        message: `${where}: duplicate hookmap entries (each firing reaches the daemon more than once): ${dups.join(', ')}`,
        fix: `${setupCmd(scope)} (keeps one)`,
      });
    if (missing.length) add({ status: 'warn', message: `${where}: hooks not wired: ${missing.join(', ')}`, fix: setupCmd(scope) });
    if (extra.length)
      add({ status: 'warn', message: `${where}: hookmap entries for hooks the descriptor no longer registers: ${extra.join(', ')}`, fix: setupCmd(scope) });
    const foreign = entries.filter((e) => !ours(e.handler) && perHook.has(e.hook));
    const otherAgents = foreign.filter((e) => anyHookmap(e.handler, fields));
    const products = foreign.filter((e) => !anyHookmap(e.handler, fields));
    if (otherAgents.length)
      add({
        status: 'problem',
        message: `${where}: hookmap entries of another agent: ${otherAgents.map((e) => `${e.hook}: ${describe(e.handler, fields)}`).join('; ')}`,
        fix: 'remove them by hand',
      });
    if (products.length)
      add({
        status: 'warn',
        message:
          `${where}: other hooks share hookmap's events (they run too; their replies may compete): ` +
          `${products.map((e) => `${e.hook}: ${describe(e.handler, fields)}`).join('; ')}`,
      });
    const shims = new Set<string>();
    keyedHttp(mine, where, target, scope, setupCmd(scope), add);
    for (const e of mine) {
      if (typeof e.handler.url === 'string' && !e.handler.url.startsWith(`${base}/`)) {
        add({ status: 'warn', message: `${where}: ${e.hook} posts to ${e.handler.url}, not to the daemon at ${base}`, fix: setupCmd(scope) });
      }
      const cmd = commandOf(e.handler, fields);
      const shim = cmd === undefined ? undefined : shimPathOf(cmd);
      if (shim) shims.add(shim);
    }
    const nodeShim = mine.map((e) => launcherProblem(e.handler, 'hook', target)).find(Boolean);
    if (nodeShim) add({ ...nodeShim, message: `${where}: the Node shim ${nodeShim.message}`, fix: `${setupCmd(scope)} --shim node` });
    for (const shim of shims) {
      out.usesShShim = true;
      if (!existsSync(shim)) {
        add({
          status: 'problem',
          message: `${where}: the shim ${tilde(shim, target)} does not exist: the agent's hook fails on every firing`,
          fix: setupCmd(scope),
        });
        continue;
      }
      const text = readFileSync(shim, 'utf8');
      let now: string;
      const stamp = text.split('\n').find((l) => l.startsWith('# hookmap-shim:'));
      if (!text.includes(`/${HOOK_KEY_FILE}`)) {
        add({
          status: 'problem',
          message: `${where}: the shim ${tilde(shim, target)} predates the hook key: the daemon refuses every hook it sends (neutral bytes)`,
          fix: setupCmd(scope),
        });
      } else if (stamp !== expectedStamp) {
        add({
          status: 'problem',
          message:
            `${where}: the shim ${tilde(shim, target)} is stale (${stamp ? stamp.replace('# hookmap-shim: ', '') : 'no stamp'}; ` +
            `want v${SHIM_VERSION} from the current descriptor)`,
          fix: setupCmd(scope),
        });
      } else if (shimBody(text) !== shimBody((now = currentShShim(d, target)))) {
        // same plan, other lines: written by another hookmap (an upgrade since), or edited by hand
        const by = text
          .split('\n')
          .find((l) => l.startsWith(WRITTEN_BY))
          ?.slice(WRITTEN_BY.length);
        add({
          status: 'warn',
          message:
            `${where}: the shim ${tilde(shim, target)} was written by ${by ? `hookmap ${by}` : 'an older hookmap'} ` +
            `(this is ${hookmapVersion()}) and setup would change it:`,
          fix: setupCmd(scope),
          detail: boundedDiff(shimBody(text), shimBody(now), tilde(shim, target), `${setupCmd(scope)} --dry-run`),
        });
      }
    }
  }
  // the user scope and a project both: a session in that project fires twice (two projects apart are fine)
  const both = [...wiredIn].filter(([, scopes]) => scopes.includes('user') && scopes.includes('project')).map(([h]) => h);
  const projectDir = targets.find((t) => t.scope === 'project' && out.wiredAt.some((w) => w.path === t.path))?.dir;
  const first = targets.find((t) => out.wiredAt.some((w) => w.path === t.path));
  if (first) out.setupCommand = setupCmdAt(first.scope, first.dir);
  // (a plugin counts as its one pseudo-hook)
  if (both.length)
    add({
      status: 'problem',
      message: `wired in both the user and the project config (each firing reaches the daemon twice): ${both.join(', ')}`,
      fix: `${setupCmdAt('project', projectDir)} --uninstall (or --user)`,
    });
  if (out.wired && !readHookKey(target.home))
    add({
      status: 'problem',
      message:
        `the hook key ${tilde(hookKeyPath(target.home), target)} is missing or not a key: ` +
        `the daemon refuses every hook until \`hookmap setup\` (or \`up\`) creates it`,
      fix: `hookmap setup ${agent}`,
    });
  if (out.wired) {
    for (const r of checkRequirements(spec, target)) if (!r.met) add({ status: 'warn', message: `${tilde(r.path, target)}: ${r.req.hint}` });
  } else if (!out.findings.length) {
    add({
      status: 'info',
      message: 'not wired (no hook config found in the user scope, this folder, or any folder `hookmap setup` wired)',
      fix: `hookmap setup ${agent}`,
    });
  }
  return out;
}

/** The next-turn carrier's background waiters: one on each of its hooks (else idle sessions cannot be reached), never two. */
function nextTurnWiring(d: Descriptor, waiters: Entry[], where: string, fix: string, add: (f: Omit<Finding, 'area' | 'subject'>) => void): void {
  const nt = nextTurnCommand(d)?.nextTurn;
  const on = nt?.exit === undefined ? [] : nt.on; // a plugin carrier has no handler of its own
  const count = (h: string) => waiters.filter((e) => e.hook === h).length;
  const missing = on.filter((h) => count(h) === 0);
  const dups = [...new Set(waiters.map((e) => e.hook))].filter((h) => count(h) > 1 || !on.includes(h));
  if (missing.length)
    add({ status: 'warn', message: `${where}: the next-turn waiter is not wired on ${missing.join(', ')} (idle sessions cannot be reached)`, fix });
  if (dups.length)
    add({ status: 'problem', message: `${where}: next-turn waiters beyond one per carrier hook: ${dups.join(', ')}`, fix: `${fix} (keeps one)` });
}

/**
 * Native HTTP hooks (engine/runtime/setup/registrations.ts): each must present the home's hook key in its headers; one
 * that predates the key (none), carries another home's, or sits in a project config (which may be committed:
 * setup wires the shim there) is refused or out of place, and `hookmap setup` rewrites it.
 */
function keyedHttp(mine: Entry[], where: string, target: Target, scope: Scope, fix: string, add: (f: Omit<Finding, 'area' | 'subject'>) => void): void {
  const http = mine.filter((e) => typeof e.handler.url === 'string');
  if (!http.length) return;
  const key = readHookKey(target.home);
  const sent = (e: Entry) => {
    const h = e.handler.headers;
    return h && typeof h === 'object' ? (h as Record<string, unknown>)[HOOK_KEY_HEADER] : undefined;
  };
  const none = http.filter((e) => sent(e) === undefined).map((e) => e.hook);
  const other = http.filter((e) => sent(e) !== undefined && !(key && hookKeyMatches(key, sent(e)))).map((e) => e.hook);
  if (none.length)
    add({ status: 'problem', message: `${where}: native HTTP hooks that predate the hook key (the daemon refuses them): ${none.join(', ')}`, fix });
  if (other.length)
    add({
      status: 'problem',
      message: `${where}: native HTTP hooks carrying a hook key that is not this home's (the daemon refuses them): ${other.join(', ')}`,
      fix,
    });
  if (scope === 'project' && http.length > none.length)
    add({ status: 'warn', message: `${where}: the hook key is written into a project config (it may be committed); setup now wires the shim there`, fix });
}

/** What setup would change in a file, as a unified diff of at most DETAIL_LINES lines (the rest counted, with where to see it). */
export function boundedDiff(before: string, after: string, name: string, whole: string): string[] {
  const lines = unifiedDiff(before, after, name, `${name} (setup)`, 1).replace(/\n$/, '').split('\n');
  if (lines.length <= DETAIL_LINES) return lines;
  return [...lines.slice(0, DETAIL_LINES - 1), `… ${lines.length - DETAIL_LINES + 1} more lines (${whole} shows the whole change)`];
}
