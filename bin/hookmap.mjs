#!/usr/bin/env node
// hookmap entry point. The portable hook shim (`hookmap hook`), start on
// demand (`hookmap autostart`) and the stdio tee (`hookmap tee`) are plain JS
// so an agent never pays for a TypeScript loader. Every other command runs
// the package's bundle in an installed package (dist/engine/: package.json
// `files` ships it and no per-module .js or .ts), the compiled modules in a
// clone built with tsc alone, and the TypeScript sources through tsx in a
// clone (so an edited source is what runs, never a stale build).
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
  const { main } = await import('../engine/shim/node-shim.mjs');
  await main(process.argv.slice(3));
} else if (cmd === 'autostart' && !own.includes('--help') && !own.includes('-h')) {
  const { main } = await import('../engine/shim/autostart.mjs');
  process.exitCode = await main(process.argv.slice(3));
} else if (cmd === 'tee' && !help) {
  const { main } = await import('../engine/surface/tee.mjs');
  await main(process.argv.slice(3));
} else {
  const { existsSync } = await import('node:fs');
  let main;
  if (existsSync(new URL('../engine/cli/main.ts', import.meta.url))) {
    const { register } = await import('tsx/esm/api');
    register();
    ({ main } = await import('../engine/cli/main.ts'));
  } else if (existsSync(new URL('../dist/engine/main.js', import.meta.url))) {
    // the package's bundle (npm run build: codegen/bundle.mjs): the same modules, in a few files
    ({ main } = await import('../dist/engine/main.js'));
  } else {
    ({ main } = await import('../engine/cli/main.js'));
  }
  process.exitCode = await main(process.argv.slice(2));
}
