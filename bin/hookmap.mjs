#!/usr/bin/env node
// hookmap entry point. The portable hook shim (`hookmap hook`) and the stdio
// tee (`hookmap tee`) are plain JS so an agent never pays for a TypeScript
// loader; every other command runs the TypeScript sources through tsx.
const cmd = process.argv[2];
// A reader that stops early (`hookmap tail | head -1`) closes our stdout: a
// write then fails with EPIPE. Like every Unix tool, stop quietly.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err) => {
    if (err && err.code === 'EPIPE') process.exit(0);
    throw err;
  });
}
if (cmd === 'hook') {
  const { main } = await import('../engine/shim/node-shim.mjs');
  await main(process.argv.slice(3));
} else if (cmd === 'tee') {
  const { main } = await import('../engine/surface/tee.mjs');
  await main(process.argv.slice(3));
} else {
  const { register } = await import('tsx/esm/api');
  register();
  const { main } = await import('../engine/cli/main.ts');
  process.exitCode = await main(process.argv.slice(2));
}
