// Types for bash-language.mjs (plain JS so bin/hookmap.mjs can start the load before the bundle).
import type { Language, Parser } from 'web-tree-sitter';
export function bashLanguage(): Promise<{ Parser: typeof Parser; language: Language }>;
