#!/usr/bin/env node
// hookmap entry point. The portable hook shim (`hookmap hook`), start on
// demand (`hookmap autostart`) and the stdio tee (`hookmap tee`) are plain JS
// so an agent never pays for a TypeScript loader. Every other command runs
// the bundle (npm run build: codegen/bundle.mjs, dist/engine/): always in an
// installed package (package.json `files` ships it and no .ts), and in a
// clone while it is newer than every source it was built from
// (dist/engine/build.json lists them); a clone whose sources changed since
// (an edit, a pull) runs them through tsx, so what runs is never stale.
// HOOKMAP_FROM_SOURCES=1 runs the sources in a clone whatever the bundle.
const cmd = process.argv[2];
// A reader that stops early (`hookmap tail | head -1`) closes our stdout: a
// write then fails with EPIPE. Like every Unix tool, stop quietly.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err) => {
    if (err && err.code === 'EPIPE') process.exit(0);
    throw err;
  });
}
// `hookmap hook --help` / `hookmap tee <agent> --help` (before a `--`: after it the words are the agent's) print the
// command table's help like every other command, instead of running the shim or the tee
const own = process.argv.slice(3, process.argv.includes('--') ? process.argv.indexOf('--') : undefined);
const help = (cmd === 'hook' || cmd === 'tee') && (own.includes('--help') || own.includes('-h'));
if (cmd === 'hook' && !help) {
  const { main } = await import('../engine/runtime/shim/node-shim.mjs');
  await main(process.argv.slice(3));
} else if (cmd === 'autostart' && !own.includes('--help') && !own.includes('-h')) {
  const { main } = await import('../engine/runtime/shim/autostart.mjs');
  process.exitCode = await main(process.argv.slice(3));
} else if (cmd === 'tee' && !help) {
  const { main } = await import('../engine/runtime/surface/tee.mjs');
  await main(process.argv.slice(3));
} else {
  // `up` parses shell commands (rules, the floor): its grammar's WebAssembly compiles while the modules below load
  if (cmd === 'up') import('../engine/runtime/policy/shell/bash-language.mjs').then((m) => m.bashLanguage()).catch(() => {}); // parse.ts reports a failure
  const { existsSync, readFileSync, statSync } = await import('node:fs');
  const at = (path) => new URL(`../${path}`, import.meta.url);
  const clone = existsSync(at('engine/cli/main.ts'));
  /** The bundle, in a clone, only while no source it was built from changed since its build started. */
  const fresh = () => {
    if (process.env.HOOKMAP_FROM_SOURCES === '1') return false;
    try {
      const { built, inputs } = JSON.parse(readFileSync(at('dist/engine/build.json'), 'utf8'));
      if (!Number.isFinite(built) || !Array.isArray(inputs) || !inputs.length) return false;
      for (const f of inputs) if (statSync(at(f)).mtimeMs > built) return false;
      return true;
    } catch {
      return false; // no bundle, no record of it, or a source gone
    }
  };
  let main;
  if (clone && !fresh()) {
    const { register } = await import('tsx/esm/api');
    register();
    ({ main } = await import('../engine/cli/main.ts'));
  } else {
    ({ main } = await import('../dist/engine/main.js'));
  }
  process.exitCode = await main(process.argv.slice(2));
}
