// The Node shim's next-turn waiter, `hookmap hook <agent> next-turn`: what
// the sh shim's waiter mode does (engine/runtime/shim/sh.ts nextTurnLines), for a
// machine wired with the Node shim. The hook's payload goes to the daemon's
// POST /next-turn/<agent> (engine/runtime/daemon/next-turn.ts), which answers when an
// instruction can wake the idle session (200, x-hookmap-exit: the carrier's
// code, x-hookmap-ack: the token) or releases it with nothing. With an
// instruction it acks first, and only on a yes writes the text on the
// carrier's stream and exits with the carrier's code; anything else
// (released, refused, daemon down, hung past the bound, a broken answer) is
// exit 0 and no bytes, no trace, no start on demand: nothing wakes, and the
// agent is never held past the bound.
import { request } from 'node:http';

const ACK_TIMEOUT_MS = 5000;

/** One POST, bounded: resolves { status, headers, body } or null (refused, timed out, broken). */
function post(url, body, ms, connectMs, key) {
  return new Promise((resolve) => {
    let settled = false;
    const end = (v) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(connectTimer);
      req.destroy();
      resolve(v);
    };
    const req = request(url, { method: 'POST', agent: false, headers: { 'content-type': 'application/json', 'content-length': body.length, ...key } });
    const timer = setTimeout(() => end(null), ms);
    const connectTimer = setTimeout(() => end(null), connectMs);
    req.on('socket', (s) => s.once('connect', () => clearTimeout(connectTimer)));
    req.on('error', () => end(null));
    req.on('response', (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('error', () => end(null));
      res.on('aborted', () => end(null));
      res.on('end', () => end(res.complete ? { status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) } : null));
    });
    req.end(body);
  });
}

/**
 * Wait for the session's instruction and deliver it: the process's exit code and what it wrote.
 * `plan` is the shim plan (its next_turn: bound_ms, exit, stream, when_env), `base` hookmap's URL, `body` the hook's payload,
 * `env` the hook's environment (when_env: nobody at the prompt, nothing to wait for), `key` the home's hook key
 * headers (engine/runtime/auth/hook-key.mjs) both requests present.
 */
export async function nextTurnWaiter(plan, base, body, env, key = {}) {
  const nt = plan.next_turn;
  if (!nt || Object.entries(nt.when_env ?? {}).some(([k, v]) => env[k] !== v)) return { code: 0 };
  const at = `${base}/next-turn/${encodeURIComponent(plan.agent)}`;
  const r = await post(at, body, nt.bound_ms, plan.connect_ms, key);
  const ack = r && String(r.headers['x-hookmap-ack'] ?? '');
  if (!r || r.status !== 200 || String(r.headers['x-hookmap-exit'] ?? '') !== String(nt.exit) || !/^[0-9a-f]+$/.test(ack)) return { code: 0 };
  const yes = await post(`${at}/ack/${ack}`, Buffer.from('{}'), ACK_TIMEOUT_MS, plan.connect_ms, key);
  if (!yes || yes.status !== 200) return { code: 0 };
  return { code: nt.exit, stream: nt.stream, text: r.body };
}
