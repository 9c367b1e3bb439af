// Types for client-pipe.mjs.
export class ClientPipe {
  constructor(
    dest: { write(buf: Buffer): boolean; end(): void },
    framer: { push(buf: Buffer): void; end(): void; readonly midLine: boolean },
    o?: {
      onPressure?: (paused: boolean) => void;
      isResponseTo?: (line: Buffer, ids: Set<string>) => string | undefined;
      setOrigin?: (origin: unknown) => void;
    },
  );
  push(chunk: Buffer): void;
  swallow(id: string): void;
  inject(line: string, origin: unknown, done: (ok: boolean, why?: string) => void, still?: () => boolean): void;
  end(): void;
}
