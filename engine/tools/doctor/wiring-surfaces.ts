// Wiring checks of the surfaces beyond a hook config (engine/tools/doctor/wiring.ts runs them): the stdio
// tee an editor starts, a launcher that points into a checkout, and a generated plugin file.

import { HOOK_KEY_HEADER } from '../../runtime/auth/hook-key.mjs';
import type { Target } from '../../core/io/target.ts';
import { existsSync, readFileSync } from 'node:fs';
import type { Descriptor } from '../../core/descriptor/types.ts';
import { launcherArgv, stampedPlugin } from '../../runtime/setup/apply.ts';
import { descriptorFile } from '../../runtime/shim/generate.ts';
import { descriptorHash, SHIM_VERSION } from '../../runtime/shim/plan.mjs';
import { readPluginStamp } from '../../runtime/setup/formats/plugin-file.ts';
import type { Entry } from '../../runtime/setup/formats/types.ts';
import { splitCommand } from '../../runtime/setup/registrations.ts';
import type { Handler } from '../../runtime/setup/recognize.ts';
import type { Scope } from '../../runtime/setup/spec.ts';
import type { Finding } from './types.ts';
import type { AgentWiring } from './wiring.ts';

/** A path under the home as ~/... (what a fix hint shows). */
export const tilde = (p: string, target: Target) => {
  const home = target.userHome;
  return p.startsWith(`${home}/`) ? `~${p.slice(home.length)}` : p;
};

/** An editor's agent entries wrapped in `hookmap tee`: which, and does the hookmap they run still exist? */
export function inspectTee(
  mine: Entry[],
  where: string,
  add: (f: Omit<Finding, 'area' | 'subject'>) => void,
  out: AgentWiring,
  scope: Scope,
  path: string,
  fix: string,
  target: Target,
): void {
  if (!mine.length) {
    add({ status: 'info', message: `${where}: config present, no agent entry runs hookmap tee`, fix: `${fix} --wrap "<agent command>"` });
    return;
  }
  out.wired = true;
  out.wiredAt.push({ scope, path });
  add({
    status: 'ok',
    message: `${where}: ${mine.length} agent entr${mine.length === 1 ? 'y runs' : 'ies run'} behind hookmap tee: ${mine.map((e) => e.hook).join(', ')}`,
  });
  for (const e of mine) {
    const p = launcherProblem(e.handler, 'tee', target);
    if (p) add({ ...p, message: `${where}: "${e.hook}" ${p.message}`, fix: `${fix} --wrap "<agent command>"` });
  }
}

/**
 * A Node shim or tee entry's launcher (the words before `hook`/`tee`): the
 * launcher in $HOOKMAP_HOME/bin/hookmap is what setup writes (it follows
 * upgrades and moves); anything else is a path into a checkout or package
 * an older setup named (warn), or gone (problem: every firing fails).
 */
export function launcherProblem(h: Handler, verb: 'hook' | 'tee', target: Target): { status: 'warn' | 'problem'; message: string } | undefined {
  const argv =
    Array.isArray(h.args) && typeof h.command === 'string'
      ? [h.command, ...h.args.map(String)]
      : typeof h.command === 'string'
        ? splitCommand(h.command)
        : undefined;
  const i = argv?.indexOf(verb) ?? -1;
  if (!argv || i < 1) return undefined;
  const words = argv.slice(0, i);
  const stable = launcherArgv(target)[0];
  const gone = words.filter((w) => w.startsWith('/') && !existsSync(w));
  if (gone.length)
    return {
      status: 'problem',
      message:
        `runs ${gone.map((g) => tilde(g, target)).join(' and ')}, which does not exist: ` +
        `${verb === 'hook' ? "the agent's hook fails on every firing" : 'the editor cannot start that agent'}`,
    };
  if (words.length === 1 && words[0] === stable) return undefined;
  if (!words.some((w) => /(^|\/)hookmap(\.mjs)?$/.test(w) && w.startsWith('/'))) return undefined; // `hookmap` on PATH, npx: the user's choice
  return {
    status: 'warn',
    message:
      `runs ${words.map((w) => tilde(w, target)).join(' ')} (a path into a checkout or package, ` +
      `which an upgrade or a move breaks); setup now writes the launcher ${tilde(stable, target)}`,
  };
}

/** A generated plugin/extension file: ours? current? */
export function inspectPlugin(
  d: Descriptor,
  scope: Scope,
  path: string,
  where: string,
  target: Target,
  add: (f: Omit<Finding, 'area' | 'subject'>) => void,
  out: AgentWiring,
  wiredIn: Map<string, Scope[]>,
  fix: string,
): void {
  const text = readFileSync(path, 'utf8');
  const stamp = readPluginStamp(text);
  if (!stamp || stamp.agent !== d.vendor) {
    add({
      status: 'warn',
      message:
        `${where}: a file of hookmap's plugin name exists but is not hookmap's${stamp ? ` (stamped for ${stamp.agent})` : ''}; ` +
        `setup will not overwrite it`,
    });
    return;
  }
  out.wired = true;
  out.wiredAt.push({ scope, path });
  wiredIn.set('(plugin)', [...(wiredIn.get('(plugin)') ?? []), scope]);
  const want = descriptorHash(readFileSync(descriptorFile(d)));
  if (stamp.descriptor !== want || stamp.version !== String(SHIM_VERSION)) {
    add({
      status: 'problem',
      message: `${where}: the plugin is stale (v${stamp.version} descriptor=${stamp.descriptor}; want v${SHIM_VERSION} descriptor=${want})`,
      fix,
    });
    return;
  }
  if (!text.includes(HOOK_KEY_HEADER)) {
    add({ status: 'problem', message: `${where}: the plugin predates the hook key: the daemon refuses every moment it sends`, fix });
    return;
  }
  if (text !== stampedPlugin(d)) {
    add({ status: 'warn', message: `${where}: the plugin differs from what setup generates today (edited by hand, or an older hookmap)`, fix });
    return;
  }
  add({ status: 'ok', message: `${where}: plugin installed (descriptor ${want.slice(0, 12)})` });
  void target;
}
