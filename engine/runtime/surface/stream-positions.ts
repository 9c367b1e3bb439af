// Where a stream subscriber's resume positions survive a daemon restart:
// per instance origin, per stream, the cursor (the greatest seen), the
// recent frame ids (dedupe) and the SSE last-event-id, in
// <logDir>/streams.json. Writes are coalesced (one per 500 ms) and atomic
// (a temp file renamed over the old one). Design: AEP-0005 (bridges) and the
// agent-server bridge design record in docs/components ("Attach shape").
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** One stream's resume position. */
export interface StreamState {
  cursor?: string | number;
  ids: string[];
  lastEventId?: string;
}

/** The file a daemon keeps its stream positions in. */
export const streamStateFile = (logDir: string) => join(logDir, 'streams.json');

export class StreamPositions {
  private readonly state: Record<string, StreamState>;
  private saveTimer?: NodeJS.Timeout;

  constructor(
    private readonly file: string,
    private readonly origin: string,
    private readonly say: (line: string) => void,
  ) {
    this.state = loadState(file)[origin] ?? {};
  }

  /** The stream's position (created empty the first time). */
  of(id: string): StreamState {
    return (this.state[id] ??= { ids: [] });
  }

  /** A position moved: saved within 500 ms. */
  changed(): void {
    if (this.saveTimer) return;
    this.saveTimer = setTimeout(() => this.save(), 500);
    this.saveTimer.unref();
  }

  /** A pending save is written now (closing). */
  flush(): void {
    if (!this.saveTimer) return;
    clearTimeout(this.saveTimer);
    this.save();
  }

  private save(): void {
    this.saveTimer = undefined;
    try {
      const all = loadState(this.file);
      all[this.origin] = this.state;
      const tmp = `${this.file}.tmp`;
      writeFileSync(tmp, JSON.stringify(all));
      renameSync(tmp, this.file);
    } catch (e) {
      this.say(`cannot save stream positions to ${this.file}: ${(e as Error).message}`);
    }
  }
}

function loadState(file: string): Record<string, Record<string, StreamState>> {
  try {
    const v = JSON.parse(readFileSync(file, 'utf8'));
    return v && typeof v === 'object' && !Array.isArray(v) ? v : {};
  } catch {
    return {};
  }
}
