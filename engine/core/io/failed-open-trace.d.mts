// Types for failed-open-trace.mjs (plain JS so the Node shim never loads TypeScript).
export const FAILED_OPEN_LOG: string;
export const FAILED_OPEN_ROTATE_BYTES: number;
export function traceFailedOpen(home: string, agent: string, hook: string | undefined, why: 'down' | 'timeout' | 'error'): void;
