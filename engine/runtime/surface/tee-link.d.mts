// Types for tee-link.mjs.
export function teeUrl(base: string, agent: string): string;
export function findToken(env: NodeJS.ProcessEnv, home: string): string | undefined;
export class TeeLink {
  constructor(o: {
    url: string;
    agent: string;
    connection: string;
    token?: string;
    /** The hookmap home whose hook key each connect presents. */
    home?: string;
    hello?: object;
    onReply?: (n: number, bytes: string) => void;
    onWrite?: (id: string, bytes: string) => void;
    say?: (line: string) => void;
    WebSocket: unknown;
    maxQueueBytes?: number;
  });
  readonly connected: boolean;
  start(): void;
  send(frame: object): number;
  sendNow(frame: object): void;
  drain(ms: number): Promise<boolean>;
  close(): void;
}
