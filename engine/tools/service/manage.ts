// `hookmap service install|uninstall|status`: where the unit or agent file
// goes, writing and removing exactly that one file, and asking the service
// manager (systemctl --user, launchctl) to enable, start, stop it when it is
// there. A manager that is missing or refuses is reported, never fatal for
// the file: the user can start it by hand.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Target } from '../../core/io/target.ts';
import { BANNER, LAUNCHD_LABEL, launchdPlist, SYSTEMD_UNIT, systemdUnit, type ServicePlatform, type ServiceSpec } from './units.ts';

export interface ServiceContext {
  platform: ServicePlatform;
  /** The user's home and XDG_CONFIG_HOME (engine/core/io/target.ts): where the unit file goes. */
  target: Pick<Target, 'userHome' | 'vars'>;
  /** The user id launchctl addresses (gui/<uid>). */
  uid: number;
}

export interface ManagerCall {
  argv: string[];
  ok: boolean;
  missing: boolean;
  output: string;
}

export function servicePath(c: ServiceContext): string {
  const home = c.target.userHome;
  if (c.platform === 'darwin') return join(home, 'Library', 'LaunchAgents', `${LAUNCHD_LABEL}.plist`);
  return join(c.target.vars.XDG_CONFIG_HOME || join(home, '.config'), 'systemd', 'user', SYSTEMD_UNIT);
}

export function render(c: ServiceContext, s: ServiceSpec): string {
  return c.platform === 'darwin' ? launchdPlist(s) : systemdUnit(s);
}

/** Is the file at `path` one we wrote (its banner in the first lines)? */
export function ours(text: string): boolean {
  return text
    .split('\n')
    .slice(0, 4)
    .some((l) => l.includes(BANNER));
}

function call(c: ServiceContext, argv: string[]): ManagerCall {
  const r = spawnSync(argv[0], argv.slice(1), { encoding: 'utf8', timeout: 20_000 });
  const missing = (r.error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';
  return { argv, ok: !r.error && r.status === 0, missing, output: `${r.stdout ?? ''}${r.stderr ?? ''}`.trim() };
}

/** Runs the manager's commands in order, stopping at the first one missing or failing. */
function steps(c: ServiceContext, list: string[][], all = false): ManagerCall[] {
  const out: ManagerCall[] = [];
  for (const argv of list) {
    const r = call(c, argv);
    out.push(r);
    if (!r.ok && (!all || r.missing)) break;
  }
  return out;
}

export class ServiceError extends Error {}

export interface InstallResult {
  path: string;
  text: string;
  changed: boolean;
  calls: ManagerCall[];
}

export function install(c: ServiceContext, s: ServiceSpec): InstallResult {
  const path = servicePath(c);
  const text = render(c, s);
  const before = existsSync(path) ? readFileSync(path, 'utf8') : null;
  if (before !== null && !ours(before)) throw new ServiceError(`${path} exists and was not written by hookmap: left as it is (move it away first)`);
  const changed = before !== text;
  if (changed) {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text, { mode: 0o644 });
  }
  const calls =
    c.platform === 'darwin'
      ? steps(
          c,
          [
            ...(before !== null && changed ? [['launchctl', 'bootout', `gui/${c.uid}/${LAUNCHD_LABEL}`]] : []),
            ['launchctl', 'bootstrap', `gui/${c.uid}`, path],
          ],
          true,
        )
      : steps(c, [
          ['systemctl', '--user', 'daemon-reload'],
          ['systemctl', '--user', 'enable', SYSTEMD_UNIT],
          [...(changed ? ['systemctl', '--user', 'restart'] : ['systemctl', '--user', 'start']), SYSTEMD_UNIT],
        ]);
  return { path, text, changed, calls };
}

export interface UninstallResult {
  path: string;
  removed: boolean;
  calls: ManagerCall[];
}

export function uninstall(c: ServiceContext): UninstallResult {
  const path = servicePath(c);
  if (!existsSync(path)) return { path, removed: false, calls: [] };
  if (!ours(readFileSync(path, 'utf8'))) throw new ServiceError(`${path} was not written by hookmap: left as it is`);
  // stop and disable first (the manager removes its own links), then the file, then tell the manager it is gone
  const calls =
    c.platform === 'darwin'
      ? steps(c, [['launchctl', 'bootout', `gui/${c.uid}/${LAUNCHD_LABEL}`]])
      : steps(c, [['systemctl', '--user', 'disable', '--now', SYSTEMD_UNIT]]);
  rmSync(path, { force: true });
  if (c.platform === 'linux' && !calls.some((x) => x.missing)) calls.push(call(c, ['systemctl', '--user', 'daemon-reload']));
  return { path, removed: true, calls };
}

export interface StatusResult {
  path: string;
  installed: boolean;
  ours: boolean;
  runs?: string;
  state?: ManagerCall;
}

export function status(c: ServiceContext): StatusResult {
  const path = servicePath(c);
  if (!existsSync(path)) return { path, installed: false, ours: false };
  const text = readFileSync(path, 'utf8');
  const runs = c.platform === 'darwin' ? [...text.matchAll(/^ {4}<string>(.*)<\/string>$/gm)].map((m) => m[1]).join(' ') : /^ExecStart=(.*)$/m.exec(text)?.[1];
  const state =
    c.platform === 'darwin' ? call(c, ['launchctl', 'print', `gui/${c.uid}/${LAUNCHD_LABEL}`]) : call(c, ['systemctl', '--user', 'is-active', SYSTEMD_UNIT]);
  return { path, installed: true, ours: ours(text), runs, state };
}
