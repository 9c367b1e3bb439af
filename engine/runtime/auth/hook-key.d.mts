// Types for hook-key.mjs (plain JS so the Node shim and the tee never load TypeScript).
export const HOOK_KEY_FILE: string;
export const HOOK_KEY_HEADER: string;
export const HOOK_KEY_ERROR: string;
export function hookKeyPath(home: string): string;
export function parseHookKey(text: string): string | undefined;
export function readHookKey(home: string): string | undefined;
export function hookKeyHeaders(home: string): Record<string, string>;
export function newHookKey(): string;
export function ensureHookKey(home: string, fresh?: string): { key: string; path: string; created: boolean };
export function hookKeyMatches(key: string | undefined, presented: unknown): boolean;
export function hookKeyFor(given: string | false | undefined, home: string | undefined): string | undefined;
