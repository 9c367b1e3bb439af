// The requests a daemon is holding, on disk (`<log dir>/open-holds.json`).
// A daemon killed mid-hold (SIGKILL, power loss) leaves its agent to its own
// dialog, but its stream would end with an attention request that never got
// a terminal. The restarted daemon reads this file and closes each such
// request as `attention.resolved{dismissed}` (AEP-0002 §7: one terminal per
// request, none left dangling).
import { existsSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AepEvent } from '../../core/map/envelope.ts';

export class OpenHoldFile {
  private readonly path: string;
  private readonly open = new Map<string, AepEvent>();

  constructor(dir: string) {
    this.path = join(dir, 'open-holds.json');
  }

  /** The requests a previous run left open; the file is cleared. */
  takeOrphans(): AepEvent[] {
    if (!existsSync(this.path)) return [];
    let list: AepEvent[] = [];
    try {
      const doc = JSON.parse(readFileSync(this.path, 'utf8'));
      if (Array.isArray(doc)) list = doc.filter((e) => e && typeof e.id === 'string' && typeof e.session === 'string');
    } catch {
      // a torn write: nothing recoverable, and nothing to close twice
    }
    try {
      unlinkSync(this.path);
    } catch {
      /* gone */
    }
    return list;
  }

  has(id: string): boolean {
    return this.open.has(id);
  }

  add(request: AepEvent): void {
    this.open.set(request.id, request);
    this.write();
  }

  remove(id: string): void {
    if (this.open.delete(id)) this.write();
  }

  private write(): void {
    if (this.open.size === 0) {
      try {
        unlinkSync(this.path);
      } catch {
        /* gone */
      }
      return;
    }
    const tmp = `${this.path}.tmp`;
    writeFileSync(tmp, JSON.stringify([...this.open.values()]), { mode: 0o600 });
    renameSync(tmp, this.path);
  }
}
