// Renders the POSIX sh shim of one agent from its shim plan. One sh and one
// request per firing (bash's /dev/tcp where it can, else curl: sh-http.ts)
// and no Node start-up: the whole point of this shim is to cost no more than
// a bare curl.
//
// Contract with the daemon: POST the payload (stdin, never argv), status 200
// means "print the body exactly, on stderr when x-hookmap-stream says so, and
// exit with x-hookmap-exit"; anything else (refused, hung past the bound,
// non-200, curl missing, a junk exit or stream header) is the fail-open path:
// this hook's fail-open reply (its fail_open, else its neutral bytes, exit 0).
import { SHIM_VERSION, type ShimPlan } from './plan.mjs';
import { FAILED_OPEN_LOG, FAILED_OPEN_ROTATE_BYTES } from '../../core/io/failed-open-trace.mjs';
import { HOOK_KEY_FILE } from '../auth/hook-key.mjs';
import { SHIM_IO_DIR } from '../../core/io/shim-scratch.ts';
import { requestLines } from './sh-http.ts';
import { OFF_FILE, BACKOFF_FILE, BACKOFF_MS, LAUNCHER, LOCK_DIR, LOCK_STALE_MS, startWaitMs } from './autostart.mjs';

/** A body up to this many bytes is printed by the shell's own read loop (a byte a syscall); a longer one by one `cat` exec. */
const INLINE_BODY_MAX = 4096;

/** Single-quote for sh: every byte literal, `'` spelled `'\''`. */
export function shQuote(s: string): string {
  if (s.includes('\0')) throw new Error('a NUL byte cannot pass through a shell string');
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** An exit code written into shell code (checked again: the plan may come from a table on disk). */
function exitCode(n: number): number {
  if (!Number.isInteger(n) || n < 0 || n > 255) throw new Error(`fail_open.exit: ${n} is not an exit code (0..255)`);
  return n;
}

/** Milliseconds as curl's decimal seconds (curl accepts fractions). */
function secs(ms: number): string {
  return `${Math.floor(ms / 1000)}.${String(ms % 1000).padStart(3, '0')}`;
}

/** The stamp line doctor reads back: shim version, agent, descriptor hash. */
export function stampLine(plan: ShimPlan): string {
  return `# hookmap-shim: v${SHIM_VERSION} agent=${plan.agent} descriptor=${plan.descriptor}`;
}

/**
 * The sh lines that leave a fail-open trace (engine/core/io/failed-open.ts): one
 * `date` and one append, on the failure path only. `home` is where
 * `hookmap setup` put the shims; HOOKMAP_HOME at firing time wins.
 */
function traceLines(plan: ShimPlan, home: string): string[] {
  return [
    '# Leave a trace that this hook got no answer (hookmap doctor, up and the inbox report it).',
    'trace() {',
    `  d=\${HOOKMAP_HOME:-${shQuote(home)}}`,
    `  [ -d "$d" ] || return 0`,
    `  f=$d/${FAILED_OPEN_LOG}`,
    `  if [ -f "$f" ] && [ "$(wc -c <"$f" 2>/dev/null || echo 0)" -gt ${FAILED_OPEN_ROTATE_BYTES} ]; then mv -f "$f" "$f.1" 2>/dev/null; fi`,
    `  printf '%s\t%s\t%s\t%s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" ${shQuote(plan.agent)} "\${hook:--}" "$1" >>"$f" 2>/dev/null`,
    '}',
  ];
}

/**
 * The sh lines that start `hookmap up` when nothing listens (engine/runtime/shim/autostart.mjs):
 * on the refused path only, the lock taken with one mkdir, the start left
 * running detached through $HOOKMAP_HOME/bin/hookmap, never waited for.
 */
function autostartLines(plan: ShimPlan, home: string): string[] {
  const mins = (ms: number) => Math.max(1, Math.round(ms / 60_000));
  // how long a hook waits for a start under way (autostart.mjs startWaitMs: long enough for a cold `up`, within the agent's timeout)
  const tenths = (bound: number) => Math.floor(startWaitMs(plan.agent_timeout_ms, bound) / 100);
  const plain = tenths(plan.bound_ms);
  const waits = Object.entries(plan.hooks)
    .filter(([, h]) => tenths(h.bound_ms) !== plain)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([n, h]) => `    ${shQuote(n)}) w=${tenths(h.bound_ms)} ;;`);
  return [
    '# A start under way (its lock): wait for it, bounded (tenths of a second), rather than miss this hook too; then connect as usual.',
    'waitstart() {',
    `  case \${HOOKMAP_AUTOSTART-} in 0|off|false|no) return 0 ;; esac`,
    `  d=\${HOOKMAP_HOME:-${shQuote(home)}}`,
    `  [ -d "$d/${LOCK_DIR}" ] || return 0`,
    '  case $hook in',
    ...waits,
    `    *) w=${plain} ;;`,
    '  esac',
    '  n=0',
    `  while [ -d "$d/${LOCK_DIR}" ] && [ $n -lt $w ]; do sleep 0.1 2>/dev/null || sleep 1; n=$((n + 1)); done`,
    '}',
    '# Nothing listens: start `hookmap up` in the background, once (a lock; a failed start backs off). HOOKMAP_AUTOSTART=0 turns it off.',
    'autostart() {',
    `  case \${HOOKMAP_AUTOSTART-} in 0|off|false|no) return 0 ;; esac`,
    `  d=\${HOOKMAP_HOME:-${shQuote(home)}}`,
    `  l=$d/${LAUNCHER}`,
    `  [ -x "$l" ] && [ ! -e "$d/${OFF_FILE}" ] || return 0`,
    `  [ -f "$d/${BACKOFF_FILE}" ] && [ -n "$(find "$d/${BACKOFF_FILE}" -mmin -${mins(BACKOFF_MS)} 2>/dev/null)" ] && return 0`,
    `  if ! mkdir "$d/${LOCK_DIR}" 2>/dev/null; then`,
    `    [ -n "$(find "$d/${LOCK_DIR}" -maxdepth 0 -mmin +${mins(LOCK_STALE_MS)} 2>/dev/null)" ] || return 0`,
    `    rm -rf "$d/${LOCK_DIR}"; mkdir "$d/${LOCK_DIR}" 2>/dev/null || return 0`,
    '  fi',
    '  if command -v setsid >/dev/null 2>&1; then',
    '    HOOKMAP_URL=$base HOOKMAP_HOME=$d setsid "$l" autostart --locked </dev/null >/dev/null 2>&1 &',
    '  else',
    '    HOOKMAP_URL=$base HOOKMAP_HOME=$d nohup "$l" autostart --locked </dev/null >/dev/null 2>&1 &',
    '  fi',
    '}',
  ];
}

/** The line naming the hookmap that wrote a shim (doctor reads it back; it alone never makes a shim stale). */
export const WRITTEN_BY = '# written by hookmap ';

/** A variable name as the descriptor schema allows it (checked again: it is written into shell code). */
function envName(k: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(k)) throw new Error(`next_turn.when_env: '${k}' is not a variable name`);
  return k;
}

/**
 * A next-turn carrier's background waiter (`<shim> next-turn`, engine/runtime/daemon/next-turn.ts): it waits on the daemon
 * (bounded); with an instruction it acks it, and only on a yes writes the text and exits with the carrier's code.
 * Anything else (released, daemon down, ack refused) is exit 0 and no bytes: nothing wakes.
 */
function nextTurnLines(plan: ShimPlan, agentPath: string): { neutral: string[]; block: string[] } {
  const nt = plan.next_turn;
  if (!nt) return { neutral: [], block: [] };
  const fd = nt.stream === 'stderr' ? ' >&2' : '';
  const curl =
    `curl -q -s --noproxy 127.0.0.1,localhost,::1 -H 'content-type: application/json' -H 'Expect:' -H @"$key" ` + `--connect-timeout ${secs(plan.connect_ms)}`;
  return {
    neutral: ['  [ "$hook" = next-turn ] && exit 0  # a waiter released with nothing: no bytes, no trace'],
    block: [
      '# The next-turn waiter: the daemon answers when an instruction can wake the idle session; ack it, then deliver.',
      'if [ "$hook" = next-turn ]; then',
      '  command -v curl >/dev/null 2>&1 || exit 0',
      ...Object.entries(nt.when_env ?? {}).map(([k, v]) => `  [ "\${${envName(k)}-}" = ${shQuote(v)} ] || exit 0  # nobody at the prompt: nothing to wait for`),
      `  out=$(${curl} --max-time ${secs(nt.bound_ms)} --data-binary @- \\`,
      `    -w '\\n%{http_code} %header{x-hookmap-exit} %header{x-hookmap-ack}' "$base/next-turn/${agentPath}" 2>/dev/null) || exit 0`,
      '  meta=${out##*"$nl"}',
      '  body=${out%"$nl"*}',
      `  ack=\${meta#'200 ${nt.exit} '}`,
      `  case $ack in "$meta"|''|*[!0-9a-f]*) exit 0 ;; esac`,
      `  [ "$(${curl} --max-time 5 --data-binary '{}' -o /dev/null -w '%{http_code}' "$base/next-turn/${agentPath}/ack/$ack" 2>/dev/null)" = 200 ] || exit 0`,
      `  printf '%s' "$body"${fd}`,
      `  exit ${nt.exit}`,
      'fi',
    ],
  };
}

export function renderShShim(plan: ShimPlan, opts: { home?: string; version?: string } = {}): string {
  const hooks = Object.entries(plan.hooks).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const boundCases = hooks.filter(([, h]) => h.bound_ms !== plan.bound_ms).map(([n, h]) => `  ${shQuote(n)}) max=${secs(h.bound_ms)} ;;`);
  // a hook's fail-open reply: its bytes (the plan's neutral unless its own), on stderr and with an exit code when it says so
  const neutralCases = hooks
    .filter(([, h]) => h.neutral !== undefined || h.fail_exit || h.fail_stream)
    .map(([n, h]) => {
      const tail = `${h.fail_stream === 'stderr' ? ' >&2' : ''}${h.fail_exit ? `; exit ${exitCode(h.fail_exit)}` : ''}`;
      return `  ${shQuote(n)}) printf '%s' ${shQuote(h.neutral ?? plan.neutral)}${tail} ;;`;
    });
  // under a launch's gate (HOOKMAP_GATE=1, set by `hookmap run`): a hook with a refusing answer gives it instead, whatever failed
  const closedCases = hooks.filter(([, h]) => h.closed).map(([n, h]) => `    ${shQuote(n)}) printf '%s' ${shQuote(h.closed!.bytes)}; exit 0 ;;`);
  const closed = closedCases.length ? ['  if [ "${HOOKMAP_GATE-}" = 1 ]; then', '    case $hook in', ...closedCases, '    esac', '  fi'] : [];
  const agentPath = encodeURIComponent(plan.agent);
  const url = plan.path_hook
    ? [
        '# The payload does not name its hook: the URL path carries it.',
        `case $hook in ''|*[!A-Za-z0-9_.-]*) neutral ;; esac`,
        `url=$base/hooks/${agentPath}/$hook`,
      ]
    : [`url=$base/hooks/${agentPath}`];
  const nt = nextTurnLines(plan, agentPath);
  return [
    '#!/bin/sh',
    `# hookmap sh shim for ${plan.agent} (${plan.name.replace(/[\r\n]/g, ' ')}): hook payload on stdin -> hookmap daemon -> stdout + exit code.`,
    `# Generated by \`hookmap setup ${plan.agent}\` from its descriptor; regenerate, do not edit.`,
    stampLine(plan),
    ...(opts.version ? [`${WRITTEN_BY}${opts.version}`] : []),
    '#',
    `# Fail-open: daemon refused, hung, erroring, or curl missing -> this hook's`,
    `# fail-open reply (its neutral bytes and exit 0 unless it declares one), within a bound below the agent's own hook`,
    `# timeout (${plan.agent_timeout_ms} ms). HOOKMAP_URL overrides the daemon; HOOKMAP_SHIM_TIMEOUT_MS the bound.`,
    'hook=${1-}',
    '',
    ...(opts.home ? traceLines(plan, opts.home) : []),
    ...(opts.home ? autostartLines(plan, opts.home) : []),
    '',
    '# neutral [why]: the fail-open answer; a why (down|timeout|error) leaves a trace.',
    'neutral() {',
    ...nt.neutral,
    ...(opts.home ? ['  [ -n "${1-}" ] && trace "$1"'] : []),
    ...(opts.home ? ['  [ "${1-}" = down ] && autostart'] : []),
    ...closed,
    '  case $hook in',
    ...neutralCases,
    `  *) printf '%s' ${shQuote(plan.neutral)} ;;`,
    '  esac',
    '  exit 0',
    '}',
    '',
    'case $hook in',
    ...boundCases,
    `  *) max=${secs(plan.bound_ms)} ;;`,
    'esac',
    'case ${HOOKMAP_SHIM_TIMEOUT_MS-} in',
    "  ''|*[!0-9]*|0|00*) ;;  # not a positive integer: keep the generated bound",
    '  *) f=$((1000 + HOOKMAP_SHIM_TIMEOUT_MS % 1000)); max=$((HOOKMAP_SHIM_TIMEOUT_MS / 1000)).${f#1} ;;',
    'esac',
    '',
    `base=\${HOOKMAP_URL:-${shQuote(plan.url)}}`,
    'base=${base%/}',
    "# The home's hook key (its one line is the header): curl reads it from the file, so it is never on a command line.",
    `h=\${HOOKMAP_HOME:-${opts.home ? shQuote(opts.home) : '$HOME/.hookmap'}}`,
    `key=$h/${HOOK_KEY_FILE}`,
    ...url,
    ...(opts.home ? ['waitstart'] : []),
    '',
    '# A newline, for splitting what a capture holds.',
    "nl='",
    "'",
    ...nt.block,
    // -q first: ignore ~/.curlrc. `Expect:` off: no 1 s 100-continue stall on big payloads.
    "# A launch's gate (HOOKMAP_GATE=1) is said to the daemon; an empty header is not sent.",
    'gate=; [ "${HOOKMAP_GATE-}" = 1 ] && gate=\' 1\'',
    "# The reply goes to files named by this shell's pid (no two running shims share one) in the home's shims/io, owner-only:",
    '# the request runs as a plain command then, with no `$(...)` subshell to fork. The body is emptied once printed; `up` sweeps the rest.',
    'umask 077',
    `io=$h/${SHIM_IO_DIR}`,
    '[ -d "$io" ] || { [ -d "$h" ] && mkdir -p "$io" 2>/dev/null; }  # no home, no key either: the daemon would refuse',
    'f=$io/$$',
    ...requestLines(
      `curl -q -s --noproxy 127.0.0.1,localhost,::1 -H 'content-type: application/json' -H 'Expect:' -H @"$key" -H "x-hookmap-gate:$gate" ` +
        `--connect-timeout ${secs(plan.connect_ms)} --max-time "$max" --data-binary @- -o "$f.b" ` +
        `-w '%{http_code} %header{x-hookmap-exit} %header{x-hookmap-stream} %{size_download}'`,
    ),
    '# "<status> <x-hookmap-exit> <x-hookmap-stream> <body bytes>"',
    'IFS= read -r meta <"$f"',
    'case $meta in',
    "  '200 '*) rest=${meta#200 } ;;",
    '  *) neutral error ;;',
    'esac',
    'code=${rest%% *}',
    'rest=${rest#"$code" }',
    'stream=${rest%% *}',
    'size=${rest#"$stream" }',
    '[ -n "$code" ] || code=0',
    'case $code in *[!0-9]*|????*) neutral error ;; esac',
    '[ "$code" -le 255 ] || neutral error',
    "case $size in ''|*[!0-9]*) neutral error ;; esac",
    'case $stream in',
    "  ''|stdout) ;;",
    '  stderr) exec >&2 ;;',
    '  *) neutral error ;;',
    'esac',
    '# The body byte for byte (a NUL, which no JSON or text reply holds, aside): read line by line with builtins when small, else cat.',
    'if [ "$size" -gt 0 ]; then',
    `  if [ "$size" -le ${INLINE_BODY_MAX} ]; then`,
    '    l=; while IFS= read -r l; do printf \'%s\\n\' "$l"; done <"$f.b"; printf \'%s\' "$l"',
    '  else',
    '    cat "$f.b"',
    '  fi',
    '  : >"$f.b"',
    'fi',
    'exit "$code"',
    '',
  ].join('\n');
}
