// A request body read whole up to a limit (the hook endpoints, the OTLP receiver): past the limit
// the rest is drained, so the sender still reads the reply, and only its size is reported; a sender
// streaming far past it (`dropAfter` times the limit, plus 1 MiB) is not an agent and is cut off.
import type { Readable } from 'node:stream';

export type Body = { buf: Buffer } | { oversize: number };

export function readBody(stream: Readable, limit: number, dropAfter: number): Promise<Body> {
  return new Promise((resolve, reject) => {
    let chunks: Buffer[] | null = [];
    let size = 0;
    stream.on('data', (c: Buffer) => {
      size += c.length;
      if (chunks && size <= limit) chunks.push(c);
      else chunks = null;
      if (size > limit * dropAfter + 1024 * 1024) stream.destroy(new Error(`body exceeds ${limit * dropAfter} bytes; connection dropped`));
    });
    stream.on('end', () => resolve(chunks ? { buf: Buffer.concat(chunks, size) } : { oversize: size }));
    stream.on('error', reject);
  });
}
