// Generates in-process shims (host plugins / extensions) from a descriptor's
// `shim.plugin` data. One generic renderer; the descriptor says everything:
//
//   host: hooks   the host calls factory(input) and receives a hooks object
//                 (`hooks:` maps each registered hook to the moment it POSTs)
//   host: bus     the host calls factory(api) and the factory registers
//                 api.on(name, handler) (`events:` + opt-in `optin:`); the
//                 host's session identity comes from `session:` (which
//                 handler argument, which object in it, which accessors)
//   export:       default -> `export default factory`; server -> `export default { server: factory }`
//
// Moments are built from plain data, never JSONata (the plugin carries no
// dependencies): a string `$1.a.b` is the hook's first argument's path,
// `$input.x` the factory input's, `$session` the host session identity
// (bus hosts, per `session:`), any other value is literal.
//
// The generated file is Bun/jiti-clean: ESM, global `fetch`, no imports (start on demand reaches Node's built-ins through
// a guarded process.getBuiltinModule, a no-op where there is none). Its contract: it never throws into the host; every forward is
// bounded (`timeout_ms`); ordinary moments go out in order through one queue WITHOUT the host waiting on them; only held
// moments (`apply`) wait for the daemon's answer, bounded by their own timeout; a daemon down or broken yields the host's
// neutral result at once (nothing applied).
// Every post to hookmap presents the home's hook key, read from the home at
// run time (never written into the generated file); a rest apply, which goes
// to the host's own server, never does.
// Endpoint: POST <HOOKMAP_URL | http://127.0.0.1:8787>/hooks/<agent> (hook name read from the moment); response body = the
// reply bytes (JSON the plugin applies; empty or {} = neutral). `next_turn`: the next-turn waiter (next-turn.ts); a
// hook's `gate`: a launch's gate (gate.ts).
import { nextTurnCommand, type Descriptor } from '../../../core/descriptor/types.ts';
import type { Plugin, PluginApply } from '../../../core/generated/descriptor-types.ts';
import { START_WAIT_MS } from '../autostart.mjs';
import { KEY_RUNTIME } from './key.ts';
import { nextTurnFactory, nextTurnHook, nextTurnRuntime } from './next-turn.ts';
import { GATE_RUNTIME, gateCode, optinGate } from './gate.ts';
import { DEFAULT_URL } from '../../../core/config/defaults.ts';
export { DEFAULT_URL };
const DEFAULT_TIMEOUT_MS = 1500;
const DEFAULT_QUEUE_MAX = 1000;

type Apply = PluginApply;
export type { Plugin as PluginSpec } from '../../../core/generated/descriptor-types.ts';
type PluginSpec = Plugin;

export class PluginSpecError extends Error {}

export function pluginSpec(d: Descriptor): PluginSpec | undefined {
  return d.shim.plugin;
}

export function pluginFileName(d: Descriptor): string {
  return pluginSpec(d)?.file ?? `hookmap-${d.vendor}.js`;
}

const J = (v: unknown) => JSON.stringify(v);

/** A `$name.path` reference as a JS expression over the handler's scope. */
function refExpr(ref: string): string {
  const m = /^\$(\d+|input|session)((?:\.[A-Za-z_$][\w$]*)*)$/.exec(ref);
  if (!m) throw new PluginSpecError(`bad reference ${J(ref)} (use $1, $2, $input, $session, with .path)`);
  const root = /^\d+$/.test(m[1]) ? `a[${Number(m[1]) - 1}]` : m[1] === 'input' ? 'input' : 'session';
  return (
    root +
    m[2]
      .split('.')
      .filter(Boolean)
      .map((k) => `?.[${J(k)}]`)
      .join('')
  );
}

/** The moment template as a JS expression. */
function momentExpr(t: unknown): string {
  if (typeof t === 'string') return t.startsWith('$') ? `wire(${refExpr(t)})` : J(t);
  if (Array.isArray(t)) return `[${t.map(momentExpr).join(', ')}]`;
  if (t && typeof t === 'object')
    return `{ ${Object.entries(t)
      .map(([k, v]) => `${J(k)}: ${momentExpr(v)}`)
      .join(', ')} }`;
  return J(t ?? null);
}

/** The JS (inside an async handler with reply `r`) applying a reply. */
function applyCode(apply: Apply, momentVar: string): string {
  if (apply === 'return') return 'return isEmpty(r) ? undefined : r;';
  if ('assign' in apply)
    return `if (!isEmpty(r)) { const o = ${refExpr(apply.assign)}; if (o && typeof o === "object") Object.assign(o, r); } return undefined;`;
  if ('rest' in apply) {
    const parts = apply.rest.path
      .split(/(\{[^}]+\})/)
      .filter(Boolean)
      .map((p) => (p.startsWith('{') ? `encodeURIComponent(String(pick(${momentVar}, ${J(p.slice(1, -1))}) ?? ""))` : J(p)));
    return `if (!isEmpty(r)) await restApply(${J(apply.rest.method ?? 'POST')}, ${refExpr(apply.rest.base)}, ${parts.join(' + ')}, r); return undefined;`;
  }
  throw new PluginSpecError(`bad apply ${J(apply)}`);
}

const RUNTIME = (agent: string, timeoutMs: number, queueMax: number, hostTimeoutMs: number) => `
const AGENT = ${J(agent)};
const ENV = (globalThis.process && globalThis.process.env) || {};
const BASE = String(ENV.HOOKMAP_URL || ${J(DEFAULT_URL)}).replace(/\\/+$/, "");
const ENDPOINT = BASE + "/hooks/" + encodeURIComponent(AGENT);
// HOOKMAP_SHIM_TIMEOUT_MS (a positive integer) overrides every bound, as it does for the command shims
const FORCED = String(ENV.HOOKMAP_SHIM_TIMEOUT_MS || "");
const FORCED_MS = /^[0-9]+$/.test(FORCED) && Number(FORCED) > 0 ? Number(FORCED) : 0;
const TIMEOUT_MS = FORCED_MS || ${timeoutMs};
const QUEUE_MAX = ${queueMax};

// JSON-safe copy of host objects (URL -> string, cycles and functions dropped)
function wire(v) {
  if (v === undefined || v === null) return v;
  if (typeof v === "object" && typeof v.href === "string" && typeof v.protocol === "string") return v.href;
  try {
    const seen = new WeakSet();
    return JSON.parse(JSON.stringify(v, (k, x) => {
      if (typeof x === "function" || typeof x === "bigint") return undefined;
      if (x && typeof x === "object") { if (seen.has(x)) return undefined; seen.add(x); }
      return x;
    }));
  } catch { return undefined; }
}
function pick(o, path) { return path.split(".").reduce((x, k) => (x == null ? undefined : x[k]), o); }
function isEmpty(r) { return !r || typeof r !== "object" || Object.keys(r).length === 0; }

// Node's built-ins without an import: a host without them (or an older Node) simply has no start on demand
const builtin = globalThis.process && typeof globalThis.process.getBuiltinModule === "function" ? (m) => globalThis.process.getBuiltinModule(m) : undefined;
const homeDir = () => String(ENV.HOOKMAP_HOME || String(ENV.HOME || ENV.USERPROFILE || ".") + "/.hookmap");
${KEY_RUNTIME}const autostartOff = () => /^(0|off|false|no)$/i.test(String(ENV.HOOKMAP_AUTOSTART || ""));

// Nothing listens: start \`hookmap up\` in the background through the launcher
// \`hookmap setup\` wrote (its own lock and back-off, engine/runtime/shim/autostart.mjs),
// at most once a minute; HOOKMAP_AUTOSTART=0 turns it off. Never awaited.
let kicked = 0;
async function autostart() {
  if (Date.now() - kicked < 60000 || autostartOff() || !builtin) return;
  kicked = Date.now();
  try {
    const home = homeDir();
    const fs = builtin("node:fs");
    if (!fs.existsSync(home + "/bin/hookmap") || fs.existsSync(home + "/autostart.off")) return;
    const { spawn } = builtin("node:child_process");
    const c = spawn(home + "/bin/hookmap", ["autostart"], { detached: true, stdio: "ignore", env: { ...ENV, HOOKMAP_URL: BASE, HOOKMAP_HOME: home } });
    c.on("error", () => undefined);
    c.unref();
  } catch {}
}

// A start under way (its lock: an earlier moment found nothing listening): wait until it ends, bounded, so this
// moment is not missed too; then the moment's own bound. As the command shims: at most START_WAIT_MS and never
// past the host's hook timeout less the moment's bound and a second (no timeout known: START_WAIT_MS).
const START_WAIT_MS = ${START_WAIT_MS};
const HOST_TIMEOUT_MS = ${hostTimeoutMs};
async function startUnderWay(boundMs) {
  if (FORCED_MS || autostartOff() || !builtin) return;
  const maxMs = HOST_TIMEOUT_MS ? Math.max(0, Math.min(START_WAIT_MS, HOST_TIMEOUT_MS - boundMs - 1000)) : START_WAIT_MS;
  try {
    const fs = builtin("node:fs");
    const lock = homeDir() + "/autostart.lock";
    const t0 = Date.now();
    while (fs.existsSync(lock) && Date.now() - t0 < maxMs) await new Promise((r) => setTimeout(r, 100));
  } catch {}
}

// One bounded POST; any failure (down, slow, non-2xx, bad JSON) -> undefined.
async function post(moment, timeoutMs) {
  await startUnderWay(timeoutMs);
  const ac = new AbortController();
  const timer = setTimeout(() => ac.abort(), FORCED_MS || timeoutMs);
  try {
    let res;
    try {
      const headers = GATED ? { ...hookHeaders(), "x-hookmap-gate": "1" } : hookHeaders();
      res = await fetch(ENDPOINT, { method: "POST", headers, body: JSON.stringify(moment), signal: ac.signal });
    } catch (e) {
      if (!ac.signal.aborted) void autostart(); // refused, not slow
      throw e;
    }
    const text = await res.text();
    if (!res.ok) return undefined; else if (!text.trim()) return {};
    const r = JSON.parse(text);
    return r && typeof r === "object" && !Array.isArray(r) ? r : undefined;
  } catch { return undefined; } finally { clearTimeout(timer); }
}

// Ordinary moments: one ordered queue, never awaited by the host, bounded.
let tail = Promise.resolve();
let queued = 0;
function send(moment) {
  if (queued >= QUEUE_MAX) return tail;
  queued++;
  tail = tail.then(() => post(moment, TIMEOUT_MS)).catch(() => undefined).then(() => { queued--; });
  return tail;
}
// Held moments: after what is already queued (order), then their own bounded wait.
async function hold(moment, timeoutMs) {
  const before = tail;
  await Promise.race([before, new Promise((r) => setTimeout(r, TIMEOUT_MS))]);
  return post(moment, timeoutMs);
}
async function restApply(method, base, path, body) {
  if (!base) return;
  const ac = new AbortController();
  const timer = setTimeout(() => ac.abort(), TIMEOUT_MS);
  const headers = { "content-type": "application/json" };
  try { await fetch(new URL(path, String(base)), { method, headers, body: JSON.stringify(body), signal: ac.signal }); }
  catch {} finally { clearTimeout(timer); }
}
`;

function renderHooksHost(d: Descriptor, spec: PluginSpec): string {
  const hooks = spec.hooks ?? {};
  if (!Object.keys(hooks).length) throw new PluginSpecError('host: hooks needs `hooks:`');
  const nt = nextTurnHook(spec.next_turn); // the carrier's hook also tells it the session's turn end / end
  const entries = Object.entries(hooks).map(([name, h]) => {
    const m = `${momentExpr(h.moment)}${name === nt?.hook ? `; ntSeen(pick(moment, ${J(nt.field)}), a, undefined, moment)` : ''}`;
    const skip = h.skip ? `if (${J(h.skip.values)}.includes(pick(moment, ${J(h.skip.field)}))) return undefined; ` : '';
    let body: string;
    if (h.apply) {
      body = `const moment = ${m}; const r = await hold(moment, ${h.timeout_ms ?? DEFAULT_TIMEOUT_MS}); ${applyCode(h.apply, 'moment')}`;
    } else if (h.holds) {
      const cases = Object.entries(h.holds.values).map(
        ([value, held]) =>
          `if (key === ${J(value)}) { void hold(moment, ${held.timeout_ms ?? DEFAULT_TIMEOUT_MS}).then(async ` +
          `(r) => { ${applyCode(held.apply, 'moment')} }).catch(() => undefined); return undefined; }`,
      );
      body = `const moment = ${m}; ${skip}const key = pick(moment, ${J(h.holds.field)}); ${cases.join(' ')} void send(moment); return undefined;`;
    } else {
      body = `const moment = ${m}; ${skip}void send(moment); return undefined;`;
    }
    const gate = gateCode(d, h, m, DEFAULT_TIMEOUT_MS, (why) => new PluginSpecError(`${d.vendor}: ${name}: ${why}`));
    return `    ${J(name)}: async (...a) => { ${gate}try { ${body} } catch { return undefined; } },`;
  });
  return `async function factory(input) {\n${ntFactory(spec)}  return {\n${entries.join('\n')}\n  };\n}\n`;
}

function renderBusHost(d: Descriptor, spec: PluginSpec): string {
  const events = spec.events ?? [];
  const m = momentExpr(spec.moment ?? { event: '$1' });
  // $session: the host's session identity, read per call from the handler argument the descriptor names
  const ses = spec.session;
  const fields = Object.entries(ses?.accessors ?? {})
    .map(([k, f]) => `${J(k)}: call(${J(f)})`)
    .join(', ');
  const lines = [
    'function identity(a) {',
    ses ? `  const o = ${ses.path ? `pick(a[${ses.arg - 1}], ${J(ses.path)})` : `a[${ses.arg - 1}]`};` : '  return undefined;',
    ...(ses
      ? [
          '  const call = (f) => { try { return o && typeof o[f] === "function" ? o[f]() : undefined; } catch { return undefined; } };',
          `  return { ${fields} };`,
        ]
      : []),
    '}',
    'function factory(api) {',
    '  const input = api;',
    ntFactory(spec),
    `  const NOTIFY = ${J(events)};`,
    '  for (const name of NOTIFY) {',
    `    api.on(name, (...a) => { try { const session = identity(a); const moment = ${m}; ` +
      'void send(moment); ntSeen(name, a, session, moment); } catch {} return undefined; });',
    '  }',
  ];
  for (const [name, o] of Object.entries(spec.optin ?? {})) {
    const g = optinGate(d, name, o, (why) => new PluginSpecError(`${d.vendor}: ${why}`)); // a launch's gate (gate.ts)
    lines.push(
      `  if (/^(1|true|yes|on)$/i.test(String(ENV[${J(o.env)}] ?? ""))${g.on}) {`,
      `    api.on(${J(name)}, async (...a) => { try { const session = identity(a); const moment = ` +
        `${m}; const r = await hold(moment, ${o.timeout_ms ?? DEFAULT_TIMEOUT_MS}); ${g.closed}${applyCode(o.apply, 'moment')} ` +
        `} catch { return ${g.caught}; } });`,
      '  }',
    );
  }
  lines.push('}');
  return `${lines.join('\n')}\n`;
}

const ntFactory = (spec: PluginSpec) => nextTurnFactory(spec.next_turn, refExpr, (why) => new PluginSpecError(why));

/** The plugin/extension source for one descriptor. */
export function renderPlugin(d: Descriptor): string {
  const spec = pluginSpec(d);
  if (!spec) throw new PluginSpecError(`${d.vendor}: no shim.plugin in ${d.file}`);
  const head =
    `// GENERATED by hookmap (engine/runtime/shim/plugin/generate.ts) from ${d.file}: do not edit.\n// ${d.name} ` +
    `${spec.host === 'bus' ? 'extension' : 'plugin'}: forwards moments to the hookmap daemon; ` +
    `fail-open.\n// Install: ${spec.install ?? '(see the descriptor)'}\n`;
  const body =
    spec.host === 'bus'
      ? renderBusHost(d, spec)
      : spec.host === 'hooks'
        ? renderHooksHost(d, spec)
        : (() => {
            throw new PluginSpecError(`unknown host ${J(spec.host)}`);
          })();
  // a local-file plugin of the server shape names itself (`{ id, server }`) where its host asks for an id
  const id = spec.id ? `id: ${JSON.stringify(spec.id)}, ` : '';
  const exp = spec.export === 'server' ? `export const server = factory;\nexport default { ${id}server: factory };\n` : 'export default factory;\n';
  const runtime = RUNTIME(d.vendor, spec.timeout_ms ?? DEFAULT_TIMEOUT_MS, spec.queue_max ?? DEFAULT_QUEUE_MAX, d.surface.hookTimeoutMs ?? 0);
  const waitMs = nextTurnCommand(d)?.nextTurn?.waitMs;
  if (spec.next_turn && waitMs === undefined) throw new PluginSpecError(`${d.vendor}: shim.plugin.next_turn needs a command's next_turn (its wait_ms, opt-in)`);
  return `${head}${runtime}${GATE_RUNTIME}${nextTurnRuntime(spec.next_turn, waitMs ?? 0)}\n${body}\n${exp}`;
}
