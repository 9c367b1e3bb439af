// The replay overlap of a re-attached stream: a re-attach asks for what came
// since the cursor (`resume_query`), and the frames it has already mapped
// (their ids, `stream.dedupe`, the last 1024 kept with the position) are
// dropped, so a reconnect maps nothing twice. Every new frame advances the
// cursor (`stream.cursor`) to the greatest seen. Design: the agent-server
// bridge design record in docs/components ("Attach shape").
import type { CompiledStream } from '../../core/descriptor/types.ts';
import { getPath } from './stream-fields.ts';
import type { StreamState } from './stream-positions.ts';

const RECENT_IDS = 1024;

/** The resume position order: numbers numerically, strings lexically (ISO timestamps compare as text). */
const later = (a: unknown, b: unknown) => (typeof a === 'number' && typeof b === 'number' ? a > b : String(a) > String(b));

export class RecentFrames {
  private readonly recent: Set<string>;

  constructor(private readonly st: StreamState) {
    this.recent = new Set(st.ids);
  }

  /** Whether frame `f` is new (then its id is remembered and the cursor advanced); false: the replay's overlap, mapped before. */
  admit(f: object, spec: CompiledStream): boolean {
    const fid = getPath(f, spec.dedupe);
    if (fid !== undefined) {
      const k = String(fid);
      if (this.recent.has(k)) return false;
      this.recent.add(k);
      if (this.recent.size > RECENT_IDS) this.recent.delete(this.recent.values().next().value as string);
      this.st.ids = [...this.recent].slice(-RECENT_IDS);
    }
    const c = getPath(f, spec.cursor);
    if ((typeof c === 'string' || typeof c === 'number') && (this.st.cursor === undefined || later(c, this.st.cursor))) this.st.cursor = c;
    return true;
  }
}
