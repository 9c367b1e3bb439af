// The generated plugins' hook key (engine/runtime/auth/hook-key.mjs): a JS snippet of
// the runtime (after `builtin` and `homeDir`), `hookHeaders()` the headers of
// every post to hookmap, the key read from the home at each post as the user
// the host runs as. The generated file, which may sit in a repository, never
// holds it; a host without Node's built-ins sends none (the daemon refuses,
// the moment is neutral).
import { HOOK_KEY_FILE, HOOK_KEY_HEADER } from '../../auth/hook-key.mjs';

const J = (v: unknown) => JSON.stringify(v);

export const KEY_RUNTIME = `// The home's hook key (engine/runtime/auth/hook-key.mjs), read at each post as the user the host runs as: the plugin file,
// which may sit in a repository, never holds it. No key readable: the daemon refuses, the moment is neutral.
function hookHeaders() {
  const h = { "content-type": "application/json" };
  try {
    const m = /^x-hookmap-key:[ \\t]*([0-9a-f]{64})\\s*$/i.exec(String(builtin("node:fs").readFileSync(homeDir() + "/${HOOK_KEY_FILE}", "utf8")));
    if (m) h[${J(HOOK_KEY_HEADER)}] = m[1].toLowerCase();
  } catch {}
  return h;
}
`;
