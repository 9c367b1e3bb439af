// Splits a byte stream into lines without ever buffering more than `maxBytes`
// of one line: an oversize line is reported (with its size) and skipped, so
// a 50 MB payload costs nothing but the time to read it.
import type { Readable } from 'node:stream';

export type Line = { text: string; lineNo: number; oversize?: undefined } | { text?: undefined; lineNo: number; oversize: number };

export async function* readLines(stream: Readable, maxBytes: number): AsyncGenerator<Line> {
  let parts: Buffer[] = [];
  let size = 0;
  let dropped = 0;
  let lineNo = 0;
  const flush = (): Line => {
    lineNo++;
    if (dropped > 0) {
      const total = size + dropped;
      parts = [];
      size = 0;
      dropped = 0;
      return { lineNo, oversize: total };
    }
    const text = Buffer.concat(parts, size).toString('utf8').replace(/\r$/, '');
    parts = [];
    size = 0;
    return { lineNo, text };
  };
  for await (const chunk of stream) {
    let buf = chunk as Buffer;
    let nl: number;
    while ((nl = buf.indexOf(10)) >= 0) {
      take(buf.subarray(0, nl));
      yield flush();
      buf = buf.subarray(nl + 1);
    }
    if (buf.length) take(buf);
  }
  if (size > 0 || dropped > 0) yield flush();

  function take(b: Buffer) {
    if (dropped > 0 || size + b.length > maxBytes) {
      dropped += b.length + (dropped === 0 ? size : 0);
      if (parts.length) {
        parts = [];
      }
      if (dropped === b.length + size) size = 0;
      return;
    }
    parts.push(b);
    size += b.length;
  }
}
