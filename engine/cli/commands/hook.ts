// `hookmap hook <agent> [hook]` when reached through the TypeScript CLI
// (`node --import tsx engine/cli/main.ts hook ...`). bin/hookmap.mjs routes
// `hook` straight to the plain-JS shim instead, skipping tsx: same code.
export async function run(argv: string[]): Promise<number> {
  const { main } = await import('../../runtime/shim/node-shim.mjs');
  await main(argv); // exits the process itself once the reply is written
  return 0;
}
