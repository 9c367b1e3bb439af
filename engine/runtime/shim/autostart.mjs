// Start on demand: a shim that finds no daemon (connection refused) starts
// `hookmap up` in the background, once, and answers the current hook with
// its neutral bytes as usual; the next hooks reach the daemon. Plain JS so
// the Node shim and `hookmap autostart` (what the sh shim and the plugins
// run) never load TypeScript.
//
// Files in $HOOKMAP_HOME:
//   autostart.lock/     a directory (mkdir is atomic, in sh too): whoever
//                       creates it starts `up`; the others do nothing. Older
//                       than LOCK_STALE_MS counts as left behind by a crash.
//   autostart.failed    the last start failed: time, URL, why. While it is
//                       younger than BACKOFF_MS no shim tries again (doctor
//                       shows it; a start that works, by hand or not, removes it).
//   up.log              what the started `up` prints (moved to up.log.1 past
//                       UP_LOG_ROTATE_BYTES at each start).
//   autostart.off       `hookmap setup --no-autostart`: no shim starts `up`.
//   bin/hookmap         the launcher: this Node + this bin/hookmap.mjs, so a
//                       shim in $HOOKMAP_HOME finds the current hookmap
//                       (written by `hookmap setup` and refreshed by `up`).
import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, statSync, writeFileSync, appendFileSync, chmodSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../../core/io/package-root.mjs';

export const LOCK_DIR = 'autostart.lock';
/** `hookmap setup --no-autostart` leaves this file: no shim of this home starts `up`. */
export const OFF_FILE = 'autostart.off';
export const BACKOFF_FILE = 'autostart.failed';
export const UP_LOG = 'up.log';
export const LAUNCHER = join('bin', 'hookmap');
export const LOCK_STALE_MS = 60_000;
export const BACKOFF_MS = 5 * 60_000;
export const UP_LOG_ROTATE_BYTES = 1024 * 1024;
/** How long a started `up` may take to answer /healthz before the start counts as failed. */
const READY_MS = 30_000;

const BIN = join(PACKAGE_ROOT, 'bin', 'hookmap.mjs');

/** HOOKMAP_AUTOSTART=0 (or off/false/no) turns it off for this firing. */
export function autostartOff(env) {
  return /^(0|off|false|no)$/i.test(String(env.HOOKMAP_AUTOSTART ?? ''));
}

/**
 * Is start on demand on for this home: `hookmap setup` wrote the launcher
 * (a home only a test or a hand made has none) and nobody turned it off.
 */
export function autostartEnabled(home) {
  return existsSync(join(home, LAUNCHER)) && !existsSync(join(home, OFF_FILE));
}

/** `hookmap setup` (on) / `--no-autostart` (off): the opt-out file. */
export function setAutostart(home, on) {
  const file = join(home, OFF_FILE);
  if (on) rmSync(file, { force: true });
  else
    writeFileSync(file, 'hookmap setup --no-autostart: shims of this home never start hookmap up (hookmap setup <agent> --autostart turns it back on)\n', {
      mode: 0o600,
    });
}

/** The address a started `up` listens on: a plain-http loopback URL only (anything else was not ours to start). */
export function listenAddress(url) {
  let u;
  try {
    u = new URL(url);
  } catch {
    return null;
  }
  const host = u.hostname.replace(/^\[|\]$/g, '');
  if (u.protocol !== 'http:' || !['127.0.0.1', 'localhost', '::1'].includes(host)) return null;
  return { host: host === 'localhost' ? '127.0.0.1' : host, port: u.port ? Number(u.port) : 80 };
}

/** The back-off record while it holds (younger than BACKOFF_MS), else null. */
export function readBackoff(home, now = Date.now()) {
  const file = join(home, BACKOFF_FILE);
  try {
    const st = statSync(file);
    const [time, url, why] = readFileSync(file, 'utf8').split('\n')[0].split('\t');
    const until = st.mtimeMs + BACKOFF_MS;
    return { file, time, url, why: why ?? '', until, active: now < until };
  } catch {
    return null;
  }
}

export function clearBackoff(home) {
  rmSync(join(home, BACKOFF_FILE), { force: true });
}

function writeBackoff(home, url, why) {
  const t = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
  writeFileSync(join(home, BACKOFF_FILE), `${t}\t${url}\t${String(why).replace(/[\t\r\n]+/g, ' ')}\n`, { mode: 0o600 });
}

/** Takes the lock (true) unless someone holds a fresh one; a stale one is broken first. */
export function takeLock(home, now = Date.now()) {
  const dir = join(home, LOCK_DIR);
  try {
    mkdirSync(dir);
    return true;
  } catch (e) {
    if (e?.code !== 'EEXIST') return false;
  }
  try {
    if (now - statSync(dir).mtimeMs < LOCK_STALE_MS) return false;
    // left by a start that died: move it aside (one breaker wins the rename), then take it
    const aside = `${dir}.stale-${process.pid}`;
    renameSync(dir, aside);
    rmSync(aside, { recursive: true, force: true });
    mkdirSync(dir);
    return true;
  } catch {
    return false;
  }
}

export function releaseLock(home) {
  rmSync(join(home, LOCK_DIR), { recursive: true, force: true });
}

/** The launcher script: this Node and this bin/hookmap.mjs; moved or gone, the `hookmap` on PATH. */
export function launcherText(node, bin, version) {
  const q = (s) => `'${String(s).replace(/'/g, `'\\''`)}'`;
  return [
    '#!/bin/sh',
    `# GENERATED by hookmap ${version} (hookmap setup, refreshed by hookmap up): how the shims in this folder find hookmap.`,
    `node=${q(node)}`,
    `bin=${q(bin)}`,
    '[ -x "$node" ] || node=$(command -v node) || node=',
    'if [ -n "$node" ] && [ -f "$bin" ]; then exec "$node" "$bin" "$@"; fi',
    '# the checkout or package moved: the hookmap on PATH',
    'exec hookmap "$@"',
    '',
  ].join('\n');
}

/** Writes $home/bin/hookmap when it differs; returns its path. */
export function writeLauncher(home, version, node = process.execPath, bin = BIN) {
  const file = join(home, LAUNCHER);
  const text = launcherText(node, bin, version);
  try {
    if (readFileSync(file, 'utf8') === text) return file;
  } catch {
    // not there yet
  }
  mkdirSync(join(home, 'bin'), { recursive: true, mode: 0o700 });
  writeFileSync(file, text, { mode: 0o755 });
  chmodSync(file, 0o755);
  return file;
}

async function answers(url) {
  try {
    const r = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(1000) });
    return r.ok && (await r.json())?.ok === true;
  } catch {
    return false;
  }
}

function logLine(home, line) {
  const t = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
  appendFileSync(join(home, UP_LOG), `${t} autostart: ${line}\n`, { mode: 0o600 });
}

function rotate(home) {
  const file = join(home, UP_LOG);
  try {
    if (statSync(file).size > UP_LOG_ROTATE_BYTES) renameSync(file, `${file}.1`);
  } catch {
    // no log yet
  }
}

function lastLine(home) {
  try {
    const lines = readFileSync(join(home, UP_LOG), 'utf8')
      .trim()
      .split('\n')
      .filter((l) => !/^\S+ autostart: /.test(l));
    return lines.at(-1) ?? '';
  } catch {
    return '';
  }
}

/** How long a hook waits for a start already under way (the first hook that found nothing listening started it). */
export const START_WAIT_MS = 15_000;

/** The wait that leaves a hook its own bound and a second below the agent's hook timeout. */
export function startWaitMs(agentTimeoutMs, boundMs) {
  return Math.max(0, Math.min(START_WAIT_MS, (agentTimeoutMs ?? 0) - boundMs - 1000));
}

/**
 * A start under way (its lock): wait until it ends (up answers, or the start
 * failed) or `maxMs` passed, so this hook is not missed too. Returns the ms
 * waited (0: no start under way, or turned off for this firing).
 */
export async function waitForStart(home, env, maxMs) {
  if (autostartOff(env) || maxMs <= 0 || !existsSync(join(home, LOCK_DIR))) return 0;
  const t0 = Date.now();
  while (existsSync(join(home, LOCK_DIR)) && Date.now() - t0 < maxMs) await new Promise((r) => setTimeout(r, 100));
  return Date.now() - t0;
}

/**
 * The Node shim's part: unless turned off, backed off or already under way,
 * take the lock and leave `hookmap autostart --locked` running detached
 * (it owns the lock from then on). Never throws, never waits.
 */
export function kickAutostart(home, url, env) {
  try {
    if (autostartOff(env) || !autostartEnabled(home) || !listenAddress(url)) return false;
    if (readBackoff(home)?.active || !takeLock(home)) return false;
    const child = spawn(process.execPath, [BIN, 'autostart', '--locked'], {
      detached: true,
      stdio: 'ignore',
      env: { ...env, HOOKMAP_URL: url, HOOKMAP_HOME: home },
    });
    child.on('error', () => releaseLock(home));
    child.unref();
    return true;
  } catch {
    return false;
  }
}

/**
 * `hookmap autostart [--locked]`: start `hookmap up` for HOOKMAP_URL and
 * HOOKMAP_HOME unless one answers, wait until it answers /healthz (or
 * fails: then the back-off file says why), release the lock. --locked: the
 * caller already holds the lock.
 */
export async function main(argv, env = process.env) {
  // what it writes in the home (the lock, the log, the backoff note) is its owner's alone, whatever the umask
  process.umask(0o077);
  const home = env.HOOKMAP_HOME || join((await import('node:os')).homedir(), '.hookmap');
  const url = String(env.HOOKMAP_URL || 'http://127.0.0.1:8787').replace(/\/+$/, '');
  const locked = argv.includes('--locked');
  const addr = listenAddress(url);
  const off = autostartOff(env)
    ? 'HOOKMAP_AUTOSTART turns it off'
    : !autostartEnabled(home)
      ? `off for ${home} (no ${LAUNCHER}: run hookmap setup, or ${OFF_FILE} is there)`
      : !addr
        ? `${url} is not a plain-http loopback address`
        : '';
  if (off) {
    if (locked) releaseLock(home);
    process.stderr.write(`hookmap autostart: ${off}: nothing started\n`);
    return 0;
  }
  mkdirSync(home, { recursive: true, mode: 0o700 });
  if (!locked && (readBackoff(home)?.active || !takeLock(home))) return 0;
  try {
    if (await answers(url)) {
      clearBackoff(home);
      return 0;
    }
    rotate(home);
    logLine(home, `starting hookmap up on ${url} (no daemon answered a hook)`);
    const fd = openSync(join(home, UP_LOG), 'a', 0o600);
    const child = spawn(process.execPath, [BIN, 'up', '--host', addr.host, '--port', String(addr.port)], {
      detached: true,
      stdio: ['ignore', fd, fd],
      env: { ...env, HOOKMAP_HOME: home, HOOKMAP_AUTOSTARTED: '1' },
    });
    closeSync(fd);
    let exited = null;
    child.on('exit', (code, signal) => (exited = signal ?? `exit ${code}`));
    child.on('error', (e) => (exited = e.message));
    child.unref();
    const deadline = Date.now() + READY_MS;
    while (exited === null && Date.now() < deadline) {
      if (await answers(url)) {
        clearBackoff(home);
        logLine(home, `hookmap up answers at ${url} (pid ${child.pid})`);
        return 0;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    if (exited === null) child.kill();
    const why = exited === null ? `did not answer ${url}/healthz within ${READY_MS / 1000} s` : `hookmap up ended (${exited}): ${lastLine(home)}`;
    writeBackoff(home, url, why);
    logLine(home, `start failed, no retry for ${BACKOFF_MS / 60_000} min: ${why}`);
    return 1;
  } finally {
    releaseLock(home);
  }
}
