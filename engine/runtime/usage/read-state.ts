// What the transcript reader has consumed, kept durably beside the agent's
// logs (<logDir>/transcripts.json, replaced atomically after every read): the
// position in each file, the model a file last named, and the line ids
// already counted per session (bounded), so a restart neither re-counts nor
// misses a line.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeAtomic } from '../../core/io/atomic.ts';
import type { FilePosition } from './transcript-file.ts';

export const READ_STATE_FILE = 'transcripts.json';
/** Line ids remembered per session (the oldest forgotten first). */
export const MAX_IDS_PER_SESSION = 50_000;
/** Sessions remembered (the least recently read forgotten first). */
export const MAX_SESSIONS = 2_000;

interface FileState extends FilePosition {
  model?: string;
}

interface Stored {
  files: Record<string, FileState>;
  seen: Record<string, string[]>;
}

export class ReadState {
  private readonly file: string;
  private readonly files = new Map<string, FileState>();
  private readonly seen = new Map<string, Set<string>>();

  constructor(logDir: string) {
    this.file = join(logDir, READ_STATE_FILE);
    if (!existsSync(this.file)) return;
    try {
      const s = JSON.parse(readFileSync(this.file, 'utf8')) as Stored;
      for (const [k, v] of Object.entries(s.files ?? {})) this.files.set(k, v);
      for (const [k, v] of Object.entries(s.seen ?? {})) this.seen.set(k, new Set(v));
    } catch {
      /* a damaged state file: read every transcript again; ids already logged are not known, so it is said */
    }
  }

  position(real: string): FileState | undefined {
    return this.files.get(real);
  }

  /** Has this session counted line `id` already? Marks it counted. */
  firstTime(session: string, id: string): boolean {
    let s = this.seen.get(session);
    if (!s) this.seen.set(session, (s = new Set()));
    else {
      this.seen.delete(session);
      this.seen.set(session, s);
    }
    if (s.has(id)) return false;
    s.add(id);
    if (s.size > MAX_IDS_PER_SESSION) s.delete(s.values().next().value!);
    return true;
  }

  advance(real: string, at: FileState): void {
    this.files.delete(real);
    this.files.set(real, at);
  }

  save(): void {
    while (this.seen.size > MAX_SESSIONS) this.seen.delete(this.seen.keys().next().value!);
    while (this.files.size > MAX_SESSIONS) this.files.delete(this.files.keys().next().value!);
    const out: Stored = { files: Object.fromEntries(this.files), seen: Object.fromEntries([...this.seen].map(([k, v]) => [k, [...v]])) };
    writeAtomic(this.file, JSON.stringify(out));
  }
}
