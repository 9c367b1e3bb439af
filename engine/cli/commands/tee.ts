// `hookmap tee <agent> -- <agent command...>` when reached through the
// TypeScript CLI. bin/hookmap.mjs routes `tee` straight to the plain-JS tee
// instead, skipping tsx: same code (engine/runtime/surface/tee.mjs).
export async function run(argv: string[]): Promise<number> {
  const { main } = await import('../../runtime/surface/tee.mjs');
  await main(argv); // exits the process itself, as the agent exited
  return 0;
}
