// Types for tee.mjs (plain JS: the tee never loads TypeScript).
import type { Readable, Writable } from 'node:stream';
export const DEFAULT_MAX_LINE: number;
export interface TeeOptions {
  agent: string;
  url?: string;
  maxLine: number;
  command: string[];
}
export function parseTeeArgs(argv: string[]): TeeOptions;
export interface TeeIo {
  env?: NodeJS.ProcessEnv;
  stdin?: Readable;
  stdout?: Writable;
  stderr?: Writable;
  cwd?: string;
  say?: (line: string) => void;
  WebSocket?: unknown;
  noSignals?: boolean;
}
export function runTee(opts: TeeOptions, io?: TeeIo): Promise<{ code: number | null; signal: NodeJS.Signals | null; spawnError?: string }>;
export function main(argv: string[]): Promise<void>;
