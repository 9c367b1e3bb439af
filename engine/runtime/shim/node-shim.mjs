// The portable shim, `hookmap hook <agent> [hook]`: stdin -> daemon ->
// stdout + exit code, for machines without sh/curl or for agents that run a
// Node command anyway. Plain JS, loaded by bin/hookmap.mjs without tsx, so a
// firing costs one Node start-up and nothing more.
//
// Fail-open like the sh shim: any failure (daemon refused, hung past the
// bound, non-200, junk exit or stream header, unknown agent, our own bug)
// gives this hook's fail-open reply (its fail_open, else its neutral bytes
// on stdout, exit 0); under a launch's gate (HOOKMAP_GATE=1) its refusing
// answer (fail_closed) where it has one.
import { existsSync, readFileSync } from 'node:fs';
import { join, sep } from 'node:path';
import { request } from 'node:http';
import {
  SHIM_VERSION,
  baseUrl,
  boundFor,
  closedFor,
  descriptorHash,
  endpointFor,
  failOpenFor,
  gated,
  hookmapHome,
  planInputFromSpec,
  shimPaths,
  shimPlan,
} from './plan.mjs';
import { traceFailedOpen } from '../../core/io/failed-open-trace.mjs';
import { kickAutostart, LOCK_DIR, startWaitMs, waitForStart } from './autostart.mjs';
import { nextTurnWaiter } from './node-next-turn.mjs';
import { hookKeyHeaders } from '../auth/hook-key.mjs';
import { PACKAGE_ROOT } from '../../core/io/package-root.mjs';

const VENDORS_DIR = join(PACKAGE_ROOT, 'vendors') + sep;

function readOrNull(path) {
  try {
    return readFileSync(path);
  } catch {
    return null;
  }
}

/**
 * The plan: the table `hookmap setup` generated when it matches the
 * descriptor on disk (hash stamp), else computed from the YAML (slower: loads
 * the yaml package; only when no fresh table exists).
 */
async function loadPlan(agent) {
  if (!/^[a-z0-9][a-z0-9-]*$/.test(agent)) return null; // an id, never a path
  const bytes = readOrNull(`${VENDORS_DIR}${agent}.yaml`) ?? readOrNull(`${VENDORS_DIR}${agent}.yml`);
  const hash = bytes ? descriptorHash(bytes) : null;
  const tableBytes = readOrNull(shimPaths(agent, hookmapHome(process.env)).table);
  if (tableBytes) {
    try {
      const t = JSON.parse(tableBytes.toString('utf8'));
      if (t.v === SHIM_VERSION && t.agent === agent && (!hash || t.descriptor === hash)) return t;
    } catch {
      // a broken table is as good as none
    }
  }
  if (!bytes) return null;
  const { parse } = await import('yaml');
  return shimPlan(planInputFromSpec(parse(bytes.toString('utf8'))), { hash, url: baseUrl(process.env) });
}

function readStdin() {
  return new Promise((resolve, reject) => {
    const chunks = [];
    process.stdin.on('data', (c) => chunks.push(c));
    process.stdin.on('end', () => resolve(Buffer.concat(chunks)));
    process.stdin.on('error', reject);
  });
}

function envBound() {
  const v = process.env.HOOKMAP_SHIM_TIMEOUT_MS;
  return v && /^[0-9]+$/.test(v) && Number(v) > 0 ? Number(v) : undefined;
}

export async function main(argv) {
  // Bounds count from process start: Node's own start-up is part of the agent's wait.
  let t0 = Date.now() - Math.round(process.uptime() * 1000);
  const agent = argv[0] ?? '';
  let hook = argv[1];
  let plan = null;
  let done = false;
  const finish = (bytes, code, stream = 'stdout') => {
    if (done) return;
    done = true;
    (stream === 'stderr' ? process.stderr : process.stdout).write(bytes, () => process.exit(code));
  };
  // why (down | timeout | error): hookmap did not answer; leave a trace (engine/core/io/failed-open.ts)
  const failOpen = (why) => {
    if (done) return;
    if (hook === 'next-turn') return finish(Buffer.alloc(0), 0); // a waiter that fails wakes nothing: no bytes, no trace
    if (plan && typeof why === 'string') traceFailedOpen(hookmapHome(process.env), plan.agent, hook, why);
    // nothing listening: start `up` in the background for the next hooks (engine/runtime/shim/autostart.mjs)
    if (plan && why === 'down') kickAutostart(hookmapHome(process.env), base(), process.env);
    // under a launch's gate the agent's own asking is off: a hook with a refusing answer gives it, never the neutral bytes
    const fo = (plan && gated(process.env) && closedFor(plan, hook)) || (plan ? failOpenFor(plan, hook) : { bytes: '', exit: 0, stream: 'stdout' });
    finish(Buffer.from(fo.bytes, 'utf8'), fo.exit, fo.stream);
  };
  const base = () => (process.env.HOOKMAP_URL || plan.url).replace(/\/+$/, '');
  let timer;
  let armedMs = 0;
  const arm = (ms) => {
    armedMs = ms;
    clearTimeout(timer);
    timer = setTimeout(() => failOpen('timeout'), Math.max(0, t0 + ms - Date.now()));
  };
  try {
    plan = await loadPlan(agent);
    if (!plan) return failOpen();
    // the next-turn carrier's background waiter (node-next-turn.mjs): its own bound (the daemon's wait), not a hook's
    if (hook === 'next-turn') {
      setTimeout(() => failOpen('timeout'), (plan.next_turn?.bound_ms ?? 0) + 10_000);
      const r = await nextTurnWaiter(plan, base(), await readStdin(), process.env, hookKeyHeaders(hookmapHome(process.env)));
      if (!r.text?.length) return finish(Buffer.alloc(0), r.code);
      done = true;
      return void (r.stream === 'stderr' ? process.stderr : process.stdout).write(r.text, () => process.exit(r.code));
    }
    const forced = envBound();
    const bound = (h) => forced ?? boundFor(plan, h);
    // Until the hook is known, the longest bound any hook may need applies.
    arm(hook ? bound(hook) : Math.max(plan.bound_ms, ...Object.values(plan.hooks).map((h) => h.bound_ms)));
    const body = await readStdin();
    if (!hook && plan.hook_field) {
      try {
        const named = JSON.parse(body.toString('utf8'))?.[plan.hook_field];
        if (typeof named === 'string') hook = named;
      } catch {
        // not JSON: the daemon will say so; neutral bytes stay the default
      }
      arm(bound(hook));
    }
    // a start on demand under way (another hook found nothing listening): wait for it, bounded, then the bound starts again
    if (!forced && existsSync(join(hookmapHome(process.env), LOCK_DIR))) {
      clearTimeout(timer);
      t0 += await waitForStart(hookmapHome(process.env), process.env, startWaitMs(plan.agent_timeout_ms, armedMs));
      arm(armedMs);
    }
    const req = request(endpointFor(plan, base(), hook), {
      method: 'POST',
      agent: false,
      // the home's hook key, read now (never from argv or the agent's config): without it the daemon refuses
      headers: {
        'content-type': 'application/json',
        'content-length': body.length,
        ...hookKeyHeaders(hookmapHome(process.env)),
        ...(gated(process.env) ? { 'x-hookmap-gate': '1' } : {}),
      },
    });
    const connectTimer = setTimeout(() => failOpen('timeout'), Math.min(plan.connect_ms, forced ?? Infinity));
    req.on('socket', (s) => s.once('connect', () => clearTimeout(connectTimer)));
    req.on('error', (e) => failOpen(e?.code === 'ECONNREFUSED' ? 'down' : 'error'));
    req.on('response', (res) => {
      if (res.statusCode !== 200) return failOpen('error');
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('error', () => failOpen('error'));
      res.on('aborted', () => failOpen('error'));
      res.on('end', () => {
        const raw = res.headers['x-hookmap-exit'];
        const code = raw === undefined || raw === '' ? 0 : /^[0-9]{1,3}$/.test(String(raw)) ? Number(raw) : -1;
        const stream = res.headers['x-hookmap-stream'] ?? 'stdout';
        if (code < 0 || code > 255 || !res.complete || (stream !== 'stdout' && stream !== 'stderr')) return failOpen('error');
        clearTimeout(timer);
        finish(Buffer.concat(chunks), code, stream);
      });
    });
    req.end(body);
  } catch {
    failOpen('error');
  }
}
