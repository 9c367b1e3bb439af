// Types for jsonrpc.mjs (plain JS: the tee never loads TypeScript).
export type From = 'client' | 'agent';
export interface Problem {
  code: string;
  message: string;
}
export interface Moment {
  kind: 'request' | 'notification' | 'response';
  from: From;
  id?: string | number | null;
  method?: string;
  params?: unknown;
  result?: unknown;
  error?: unknown;
  request?: { params?: unknown };
  unmatched?: true;
  exit?: unknown;
  [k: string]: unknown;
}
export class RpcJoin {
  constructor(opts?: { maxPending?: number });
  readonly maxPending: number;
  accept(from: From, value: unknown): { moments: Moment[]; problems: Problem[] };
  isPending(from: From, id: string | number): boolean;
  settle(from: From, id: string | number): { from: From; id: string | number; method: string; params?: unknown } | undefined;
  abandon(exit: unknown): Moment[];
}
export function parseLine(
  buf: Buffer,
):
  | { blank: true; value?: undefined; problem?: undefined }
  | { value: unknown; blank?: undefined; problem?: undefined }
  | { problem: Problem; blank?: undefined; value?: undefined };
