// Reading an agent's transcript/rollout file safely and incrementally
// (docs/usage.md). The path comes from a hook payload, so it is untrusted:
// it is resolved with every symlink followed and refused unless the real
// file lies inside one of the agent's own folders (also resolved), and it is
// opened without following a symlink at the last step. Only whole lines are
// consumed: a line still being written (no newline yet) waits for the next
// read; a line longer than the limit is skipped whole, never parsed; a file
// that shrank or was replaced is read again from its start (line ids keep
// what was counted counted once).
import { closeSync, constants, fstatSync, openSync, readSync, realpathSync } from 'node:fs';
import { isAbsolute, sep } from 'node:path';

export interface FilePosition {
  /** Byte offset of the first line not consumed yet. */
  pos: number;
  /** The file's inode when it was last read (a replaced file starts over). */
  ino: number;
  /** Inside a line longer than the limit: everything up to its newline is skipped. */
  skipping?: boolean;
}

export interface ReadChunk {
  lines: { text: string; end: number }[];
  /** Where the next read starts once every line here is consumed. */
  next: FilePosition;
  /** Lines skipped for their length. */
  skippedLong: number;
}

export class TranscriptRefused extends Error {
  constructor(
    readonly code: 'transcript-outside-folders' | 'transcript-not-a-file' | 'transcript-unreadable',
    message: string,
  ) {
    super(message);
  }
}

function inside(file: string, folder: string): boolean {
  const f = folder.endsWith(sep) ? folder : folder + sep;
  return file.startsWith(f);
}

/** The real path of `path` when it lies inside one of `folders` (all resolved, symlinks followed); refused otherwise. */
export function resolveTranscript(path: unknown, folders: readonly string[]): string {
  if (typeof path !== 'string' || !path || !isAbsolute(path) || path.includes('\0'))
    throw new TranscriptRefused('transcript-unreadable', 'the transcript path is not an absolute path');
  let real: string;
  try {
    real = realpathSync(path);
  } catch (e) {
    throw new TranscriptRefused('transcript-unreadable', `the transcript cannot be resolved: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  const roots = folders.flatMap((f) => {
    try {
      return [realpathSync(f)];
    } catch {
      return [];
    }
  });
  if (!roots.some((r) => inside(real, r)))
    throw new TranscriptRefused('transcript-outside-folders', "the transcript path is outside the agent's own folders (refused)");
  return real;
}

/**
 * The whole lines appended to `real` since `at` (at most `maxBytes` of them),
 * each with the offset just past it.
 */
export function readAppended(real: string, at: FilePosition | undefined, maxBytes: number, maxLineBytes: number): ReadChunk {
  let fd: number;
  try {
    fd = openSync(real, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (e) {
    throw new TranscriptRefused('transcript-unreadable', `the transcript cannot be opened: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new TranscriptRefused('transcript-not-a-file', 'the transcript is not a regular file');
    let pos = at?.pos ?? 0;
    let skipping = at?.skipping ?? false;
    if (!at || at.ino !== st.ino || st.size < pos) {
      pos = 0;
      skipping = false;
    }
    const want = Math.min(st.size - pos, maxBytes);
    const buf = Buffer.alloc(Math.max(0, want));
    let got = 0;
    while (got < want) {
      const n = readSync(fd, buf, got, want - got, pos + got);
      if (n === 0) break;
      got += n;
    }
    const lines: ReadChunk['lines'] = [];
    let skippedLong = 0;
    let start = 0;
    for (;;) {
      const nl = buf.indexOf(10, start);
      if (nl < 0 || nl >= got) break;
      if (skipping) skipping = false;
      else if (nl - start > maxLineBytes) skippedLong++;
      else lines.push({ text: buf.toString('utf8', start, nl), end: pos + nl + 1 });
      start = nl + 1;
    }
    let next = pos + start;
    // a partial line that is already past the limit: skip it now, and the rest of it up to its newline later
    if (got - start > maxLineBytes) {
      if (!skipping) skippedLong++;
      skipping = true;
      next = pos + got;
    }
    return { lines, next: { pos: next, ino: st.ino, ...(skipping ? { skipping: true } : {}) }, skippedLong };
  } finally {
    closeSync(fd);
  }
}
