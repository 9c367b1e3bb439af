// `hookmap autostart` when reached through the TypeScript CLI. bin/hookmap.mjs
// routes `autostart` straight to the plain-JS module (engine/runtime/shim/autostart.mjs)
// instead, skipping tsx: same code.
export async function run(argv: string[]): Promise<number> {
  const { main } = await import('../../runtime/shim/autostart.mjs');
  return main(argv);
}
