// The next-turn carrier inside a generated plugin (the descriptor's
// `shim.plugin.next_turn`; the daemon side is engine/runtime/daemon/next-turn.ts).
// A moment in `on` (the session's turn end) starts ONE background waiter for
// its session, which long-polls POST /next-turn/<agent> with that moment. An
// instruction comes back as the text plus `x-hookmap-ack: <token>`; the waiter
// hands it to the host's way in (`call`: a method on an object the factory
// received, e.g. the SDK client's session.promptAsync or the extension API's
// sendUserMessage) and only once that call resolved (and its result names no
// error) POSTs /next-turn/<agent>/ack/<token>: delivered. A call that throws,
// rejects or answers an error POSTs /nack/<token>: the daemon puts the text
// back at the head of the queue at once (nothing was delivered, nothing is
// lost). A waiter that dies between the two acknowledges nothing and the
// daemon's ack window gives the text back.
//
// Bounded and harmless: it never throws into the host (everything runs
// detached, every error swallowed); a moment in `off` (the session's end)
// aborts it; it gives up after the carrier's wait plus a grace; its timers are
// unref'd; a daemon that is down, off or releases it (neutral reply) ends it
// at once, with no retry: the next turn end arms it again. Only a long poll
// the host's fetch itself cut short (a client-side timeout, after
// NT_RETRY_AFTER_MS) is re-sent, so no failure can loop fast.
import type { Plugin } from '../../../core/generated/descriptor-types.ts';
import { NEXT_TURN_GRACE_MS } from '../plan.mjs'; // the waiter's own bound past the daemon's wait, as the shims'

type NextTurnSpec = NonNullable<Plugin['next_turn']>;

/** A refused next_turn block (the generator's own error class is passed in, so this module needs nothing from generate.ts). */
type Fail = (why: string) => Error;

const J = (v: unknown) => JSON.stringify(v);

/** The call's arguments as a JS expression: `$text` the instruction, `$sid` the session id, other `$` strings references. */
function argExpr(t: unknown, ref: (r: string) => string): string {
  if (t === '$text') return 'text';
  if (t === '$sid') return 'sid';
  if (typeof t === 'string') return t.startsWith('$') ? ref(t) : J(t);
  if (Array.isArray(t)) return `[${t.map((x) => argExpr(x, ref)).join(', ')}]`;
  if (t && typeof t === 'object')
    return `{ ${Object.entries(t)
      .map(([k, v]) => `${J(k)}: ${argExpr(v, ref)}`)
      .join(', ')} }`;
  return J(t ?? null);
}

/** The module-level waiter runtime (after the generator's RUNTIME: it uses BASE, AGENT, TIMEOUT_MS, hookHeaders and the send queue's `tail`). */
export function nextTurnRuntime(spec: NextTurnSpec | undefined, waitMs: number): string {
  if (!spec) return '';
  return `
// The next-turn carrier (engine/runtime/shim/plugin/next-turn.ts): one background waiter per idle session; ack only once the host took the text.
const NT_URL = BASE + "/next-turn/" + encodeURIComponent(AGENT);
const NT_WAIT_MS = ${waitMs + NEXT_TURN_GRACE_MS};
const NT_RETRY_AFTER_MS = 30000;
const NT_WAITERS = new Map();
const unref = (t) => { try { if (t && typeof t.unref === "function") t.unref(); } catch {} return t; };
const ntSleep = (ms) => new Promise((r) => unref(setTimeout(r, ms)));
// a result object naming an error (the SDK's { error }, a response that is not ok) is a refusal, like a rejection
function ntFailed(v) { return !!v && typeof v === "object" && ((v.error !== undefined && v.error !== null) || (!!v.response && v.response.ok === false)); }
function ntStop(sid) { const ac = NT_WAITERS.get(sid); if (ac) { NT_WAITERS.delete(sid); try { ac.abort(); } catch {} } }
// the ack / nack (a JSON body: hookmap up takes only application/json posts); a lost one is tried twice more (a refused
// ack, 409, is final: its window had passed and the daemon gave the text back)
async function ntTell(how, token) {
  for (let i = 0; i < 3; i++) {
    const ac = new AbortController();
    const timer = unref(setTimeout(() => ac.abort(), TIMEOUT_MS));
    try {
      const headers = hookHeaders();
      const res = await fetch(NT_URL + "/" + how + "/" + token, { method: "POST", headers, body: "{}", signal: ac.signal });
      if (res.status === 200 || res.status === 409) return res.status === 200;
    } catch {} finally { clearTimeout(timer); }
    await ntSleep(250);
  }
  return false;
}
// one long poll: the text and its token, or undefined (released, off, down); a poll cut short by the host's own fetch bound is re-sent
async function ntPoll(moment, ac, t0) {
  for (;;) {
    const t = Date.now();
    try {
      const res = await fetch(NT_URL, { method: "POST", headers: hookHeaders(), body: JSON.stringify(moment), signal: ac.signal });
      const token = res.headers.get("x-hookmap-ack") || "";
      const text = await res.text();
      return res.ok && /^[0-9a-f]{32}$/.test(token) ? { text, token } : undefined;
    } catch {
      if (ac.signal.aborted || Date.now() - t < NT_RETRY_AFTER_MS || Date.now() - t0 > NT_WAIT_MS) return undefined;
    }
  }
}
function ntArm(sid, moment, deliver) {
  if (typeof sid !== "string" || !sid || NT_WAITERS.has(sid)) return;
  const ac = new AbortController();
  NT_WAITERS.set(sid, ac);
  const timer = unref(setTimeout(() => ac.abort(), NT_WAIT_MS));
  void (async () => {
    let token;
    try {
      await null; // the moment's own send() has run: tail now includes it
      await Promise.race([tail, ntSleep(TIMEOUT_MS)]); // the turn-end moment reaches the daemon first
      if (ac.signal.aborted) return;
      const got = await ntPoll(moment, ac, Date.now());
      if (!got) return;
      token = got.token;
      if (NT_WAITERS.get(sid) === ac) NT_WAITERS.delete(sid); // the turn it starts may arm the next waiter
      let ok = false;
      if (got.text && !ac.signal.aborted) {
        try { ok = !ntFailed(await deliver(got.text)); } catch { ok = false; }
      }
      token = undefined;
      await ntTell(ok ? "ack" : "nack", got.token);
    } catch {
      if (token) await ntTell("nack", token);
    } finally {
      clearTimeout(timer);
      if (NT_WAITERS.get(sid) === ac) NT_WAITERS.delete(sid);
    }
  })().catch(() => undefined);
}
`;
}

/**
 * The factory-scope part: `ntSeen(key, a, session, moment)` (a no-op without
 * a carrier), called by every moment of the carrier's hook (hooks hosts:
 * key = the moment's `field`) or bus event (key = its name).
 */
export function nextTurnFactory(spec: NextTurnSpec | undefined, ref: (r: string) => string, fail: Fail): string {
  if (!spec) return '  const ntSeen = () => undefined;\n';
  const m = /^(\$[^.]+(?:\.[A-Za-z_$][\w$]*)*)\.([A-Za-z_$][\w$]*)$/.exec(spec.call.fn);
  if (!m) throw fail(`next_turn.call.fn ${J(spec.call.fn)} is not a method reference ($input.a.method)`);
  const args = (spec.call.args ?? []).map((x) => argExpr(x, ref)).join(', ');
  return [
    `  const NT_ON = ${J(spec.on)};`,
    `  const NT_OFF = ${J(spec.off ?? [])};`,
    `  const ntDeliver = (a, session, sid, text) => { const o = ${ref(m[1])}; return o[${J(m[2])}](${args}); };`,
    '  const ntSeen = (key, a, session, moment) => {',
    '    try {',
    `      const sid = ${ref(spec.session)};`,
    '      if (NT_ON.includes(key)) ntArm(sid, moment, (text) => ntDeliver(a, session, sid, text));',
    '      else if (NT_OFF.includes(key)) ntStop(sid);',
    '    } catch {}',
    '  };',
    '',
  ].join('\n');
}

/** The hook (hooks hosts) whose moments feed the carrier, and the moment field compared with on/off. */
export function nextTurnHook(spec: NextTurnSpec | undefined): { hook: string; field: string } | undefined {
  return spec ? { hook: spec.hook ?? 'event', field: spec.field ?? 'event.type' } : undefined;
}
