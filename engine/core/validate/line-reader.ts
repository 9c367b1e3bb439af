// Reads a JSONL stream line by line so a huge capture never has to fit in
// memory as one string. Line numbers are 1-based and count every physical
// line, blank ones included, so they match what an editor shows.
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';

export interface NumberedLine {
  line: number;
  text: string;
}

export async function* readLines(input: Readable): AsyncGenerator<NumberedLine> {
  // crlfDelay: a \r\n split across chunks still counts as one line break
  const rl = createInterface({ input, crlfDelay: Infinity });
  let n = 0;
  for await (const raw of rl) {
    n++;
    // a UTF-8 BOM is an editor artifact, not part of the first event
    yield { line: n, text: n === 1 && raw.charCodeAt(0) === 0xfeff ? raw.slice(1) : raw };
  }
}

/** A file path, or `-` for stdin. */
export function openInput(path: string): Readable {
  return path === '-' ? process.stdin : createReadStream(path);
}
