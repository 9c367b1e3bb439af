// tree-sitter-bash's grammar, loaded once per process (parse.ts reads it).
// Plain JS so bin/hookmap.mjs can begin the load before it imports the
// bundle: the WebAssembly compiles while the bundle's modules are read and
// compiled, instead of after them (parse.ts awaits it at its top level, so
// a load begun there holds every module above it). The promise lives on
// globalThis: the bundle holds its own copy of this file, and both must
// share one load.
import { createRequire } from 'node:module';

const KEY = Symbol.for('hookmap.bash-language');

/** The loaded parser module and the bash grammar (the first call starts the load; every later one shares it). */
export function bashLanguage() {
  globalThis[KEY] ??= (async () => {
    const load = createRequire(import.meta.url);
    const { Language, Parser } = await import('web-tree-sitter');
    await Parser.init();
    const language = await Language.load(load.resolve('tree-sitter-bash/tree-sitter-bash.wasm'));
    return { Parser, language };
  })();
  return globalThis[KEY];
}
