// Is hookmap's MCP server (`hookmap mcp --agent <agent>`: ask_human,
// emit_event) registered in the agent's own MCP config, and would it start?
// Read from the descriptor's `setup.mcp` exactly as `hookmap setup --mcp`
// writes it: registered as setup writes it today (ok), registered but
// different (another hookmap checkout, URL or HOOKMAP_HOME: warn), its
// command gone (problem: the agent cannot start the server), a server of
// hookmap's name that is not hookmap's (warn), or not registered while the
// hooks are wired (info: the model cannot ask a human through hookmap).
import type { Target } from '../../core/io/target.ts';
import { existsSync, readFileSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import type { Descriptor } from '../../core/descriptor/types.ts';
import { formatOptions, launcherArgv } from '../../runtime/setup/apply.ts';
import { expandPath } from '../../runtime/setup/expand.ts';
import { mcpArgv, mcpEntry, mcpFormat, registeredArgv } from '../../runtime/setup/mcp.ts';
import { setupSpec, type Scope } from '../../runtime/setup/spec.ts';
import type { Finding } from './types.ts';
import { tilde } from './wiring-surfaces.ts';

/** `setupCommand`: the hooks' own setup command where they are wired (engine/tools/doctor/wiring.ts), else undefined. */
export function inspectMcp(d: Descriptor, target: Target, dir: string, setupCommand: string | undefined): Finding[] {
  const hooksWired = setupCommand !== undefined;
  const agent = d.vendor;
  const spec = setupSpec(d);
  const m = spec?.mcp;
  if (!spec || !m) return [];
  const out: Finding[] = [];
  const add = (f: Omit<Finding, 'area' | 'subject'>) => out.push({ area: 'agent', subject: agent, ...f });
  const opts = formatOptions(d, spec);
  const format = mcpFormat(d, m, mcpEntry(m, mcpArgv(agent, launcherArgv(target), target), target));
  const none = () => false;
  const registered: Scope[] = [];
  for (const scope of ['user', 'project'] as Scope[]) {
    const template = m.scopes[scope];
    if (!template) continue;
    const path = expandPath(template, target, scope === 'project' ? dir : target.userHome);
    if (!existsSync(path)) continue;
    const where = `${scope} ${tilde(path, target)}`;
    const fix = `hookmap setup ${agent} --mcp${scope === 'project' ? ' --project' : ' --user'}`;
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
      if (format.remove(text, none, opts) === text) {
        // not ours here; a server of our name that is someone else's makes setup --mcp refuse
        format.install(text, [], none, opts);
        continue;
      }
    } catch (err) {
      add({ status: 'warn', message: `${where}: ${(err as Error).message}`, fix: 'rename or remove that server by hand: hookmap never overwrites it' });
      continue;
    }
    registered.push(scope);
    const argv = registeredArgv(m, agent, text);
    // the launcher part (node, the script): the words before `mcp` that name files
    const launcher = argv ? argv.slice(0, Math.max(0, argv.indexOf('mcp'))) : [];
    const gone = launcher.filter((a) => isAbsolute(a) && !existsSync(a));
    if (gone.length) {
      add({
        status: 'problem',
        message:
          `${where}: the MCP server "${m.name}" runs ${gone.map((g) => tilde(g, target)).join(' and ')}, ` +
          `which does not exist: the agent cannot start it (ask_human fails)`,
        fix,
      });
      continue;
    }
    let current: boolean;
    try {
      current = format.install(text, [], none, opts) === text;
    } catch {
      current = false;
    }
    if (current) add({ status: 'ok', message: `${where}: MCP server "${m.name}" registered (ask_human, emit_event)` });
    else if (launcher.length && !launcher.includes(launcherArgv(target)[0]) && launcher.some((a) => /(^|\/)hookmap\.mjs$/.test(a))) {
      // an older setup named the checkout or package itself: an upgrade, a move or a removed clone breaks it
      add({
        status: 'warn',
        message:
          `${where}: MCP server "${m.name}" runs ${launcher.map((a) => tilde(a, target)).join(' ')} ` +
          `directly (a path into a checkout or package, which an upgrade or a move breaks); setup now ` +
          `registers the launcher ${tilde(launcherArgv(target)[0], target)}`,
        fix,
      });
    } else
      add({
        status: 'warn',
        message:
          `${where}: MCP server "${m.name}" registered, but not as setup writes it today (another ` +
          `hookmap checkout, HOOKMAP_URL or HOOKMAP_HOME): ${argv?.join(' ') ?? 'unreadable entry'}`,
        fix,
      });
  }
  if (registered.length > 1)
    add({ status: 'info', message: `MCP server "${m.name}" registered in both the user and the project config; the agent may start it twice` });
  if (!registered.length && hooksWired)
    add({ status: 'info', message: 'MCP server not registered: the model cannot ask a human through hookmap (ask_human)', fix: `${setupCommand} --mcp` });
  return out;
}
