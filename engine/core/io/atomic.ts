// A file replaced whole or not at all: written to a temp file beside it
// (mode 0600), flushed to disk, then renamed over it.
import { closeSync, fsyncSync, openSync, renameSync, writeSync } from 'node:fs';
import { open, rename } from 'node:fs/promises';

/** Replace `path` with `text` atomically (0600 when the file is new). */
export function writeAtomic(path: string, text: string): void {
  const tmp = `${path}.${process.pid}.tmp`;
  const fd = openSync(tmp, 'w', 0o600);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
}

/** writeAtomic off the main thread: resolves once `path` holds `text` durably (many files' flushes can overlap). */
export async function writeAtomicAsync(path: string, text: string): Promise<void> {
  const tmp = `${path}.${process.pid}.tmp`;
  const fh = await open(tmp, 'w', 0o600);
  try {
    await fh.writeFile(text);
    await fh.sync();
  } finally {
    await fh.close();
  }
  await rename(tmp, path);
}
