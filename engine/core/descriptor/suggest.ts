// "Did you mean" for the descriptor compiler: the implementation lives in
// engine/core/text/suggest.ts (below both descriptor/ and expr/, so neither
// imports the other back); this name stays for the compiler's modules.
export { choices, didYouMean, distance, explain, suggest } from '../text/suggest.ts';
