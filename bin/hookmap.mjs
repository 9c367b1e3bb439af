#!/usr/bin/env node
// hookmap entry point. The portable hook shim (`hookmap hook`) and the stdio
// tee (`hookmap tee`) are plain JS so an agent never pays for a TypeScript
// loader; every other command runs the TypeScript sources through tsx.
const cmd = process.argv[2];
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
