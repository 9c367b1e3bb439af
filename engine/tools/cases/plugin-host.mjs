// A stand-in for a plugin's host, run as a child process by a `shim: plugin`
// fixture case (engine/tools/cases/run-shim.ts): it imports the generated
// plugin file the way its host does (with the environment the host process
// had at load time), instantiates it (the environment at registration,
// where opt-in switches are read), calls one host hook with the case's
// arguments, and prints one JSON line: the hooks registered, what the hook
// returned, the arguments after the call (an applied reply mutates them).
// It then stays up (the plugin's background work: forwards, answers applied
// over REST) until the case is done with it and ends it.
import { pathToFileURL } from 'node:url';

const read = async () => {
  let s = '';
  for await (const c of process.stdin) s += c;
  return JSON.parse(s);
};

/** Run `fn` with these variables set (this process is the host: its environment is the plugin's). */
async function withEnv(env, fn) {
  const prev = Object.fromEntries(Object.keys(env ?? {}).map((k) => [k, process.env[k]]));
  for (const [k, v] of Object.entries(env ?? {}))
    if (v === undefined || v === null) delete process.env[k];
    else process.env[k] = v;
  try {
    return await fn();
  } finally {
    for (const [k, v] of Object.entries(prev))
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
  }
}

/** `$host` anywhere in the data -> the host server's URL (a URL object, as hosts pass it). */
function withHost(v, host) {
  if (v === '$host') return new URL(host);
  if (Array.isArray(v)) return v.map((x) => withHost(x, host));
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, withHost(x, host)]));
  return v;
}

const c = await read();
setInterval(() => {}, 60_000); // stay up for the plugin's background work until ended
const mod = await withEnv(c.loadEnv, () => import(pathToFileURL(c.file).href));
const handlers = new Map();
if (c.host === 'bus') {
  await withEnv(c.env, () => mod.default({ on: (name, h) => handlers.set(name, h) }));
} else {
  const factory = c.export === 'server' ? mod.default.server : mod.default;
  const hooks = await withEnv(c.env, () => factory(withHost(c.input ?? {}, c.hostUrl)));
  for (const [name, h] of Object.entries(hooks ?? {})) if (typeof h === 'function') handlers.set(name, h);
}
const out = { registered: [...handlers.keys()] };
const handler = handlers.get(c.hook);
if (handler) {
  const args = withHost(c.args ?? [], c.hostUrl);
  const s = c.session;
  const ctx = s ? { sessionManager: { getSessionId: () => s.id, getSessionFile: () => s.file, getCwd: () => s.cwd }, hasUI: false } : undefined;
  try {
    const returned = await handler(...(ctx ? [...args, ctx] : args));
    out.returned = returned ?? null;
  } catch (e) {
    out.threw = String(e?.message ?? e); // a plugin must never throw into its host
  }
  out.args = JSON.parse(JSON.stringify(args));
}
process.stdout.write(`${JSON.stringify(out)}\n`);
