// Types for lines.mjs (plain JS: the tee never loads TypeScript).
export class LineFramer {
  constructor(maxBytes: number, onLine: (line: Buffer, lineNo: number) => void, onOversize: (bytes: number, lineNo: number) => void);
  readonly maxBytes: number;
  readonly lineNo: number;
  readonly midLine: boolean;
  readonly held: number;
  push(chunk: Buffer): void;
  end(): void;
}
