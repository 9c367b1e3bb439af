// Types for autostart.mjs (plain JS so the Node shim and `hookmap autostart` never load TypeScript).
export const LOCK_DIR: string;
export const OFF_FILE: string;
export const BACKOFF_FILE: string;
export const UP_LOG: string;
export const LAUNCHER: string;
export const LOCK_STALE_MS: number;
export const BACKOFF_MS: number;
export const UP_LOG_ROTATE_BYTES: number;
export function autostartOff(env: NodeJS.ProcessEnv): boolean;
export function autostartEnabled(home: string): boolean;
export function setAutostart(home: string, on: boolean): void;
export function listenAddress(url: string): { host: string; port: number } | null;
export interface Backoff {
  file: string;
  time: string;
  url: string;
  why: string;
  until: number;
  active: boolean;
}
export function readBackoff(home: string, now?: number): Backoff | null;
export function clearBackoff(home: string): void;
export function takeLock(home: string, now?: number): boolean;
export function releaseLock(home: string): void;
export function launcherText(node: string, bin: string, version: string): string;
export function writeLauncher(home: string, version: string, node?: string, bin?: string): string;
export const START_WAIT_MS: number;
export function startWaitMs(agentTimeoutMs: number | undefined, boundMs: number): number;
export function waitForStart(home: string, env: NodeJS.ProcessEnv, maxMs: number): Promise<number>;
export function kickAutostart(home: string, url: string, env: NodeJS.ProcessEnv): boolean;
export function main(argv: string[], env?: NodeJS.ProcessEnv): Promise<number>;
