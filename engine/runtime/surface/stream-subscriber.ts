// The stream-subscriber surface (descriptor `surface.kind:
// stream-subscriber`): the daemon attaches to an agent instance's own event
// stream (WebSocket, or SSE where the agent offers it) with the key the
// operator configured, and maps every frame as a moment. Per stream it keeps
// a resume position (`stream.cursor`, the greatest seen) and the recent frame
// ids (`stream.dedupe`): a re-attach asks for what came since the cursor
// (`resume_query`) and drops the overlap it already mapped, so a reconnect
// (or a daemon restart: the positions are kept in <logDir>/streams.json)
// loses nothing and maps nothing twice. Streams are listed over REST
// (`stream.streams`, polled) unless the instance names them. The key is
// only ever written where the descriptor says (a first frame, a header) and
// never logged. The subscriber writes nothing else to the agent: an
// observer that drives is not an observer.
// Design: AEP-0005 (bridges) and the AEP design record of the agent-server
// bridge in docs/components ("Attach shape", "Discovery", "Identity").
// The pieces, one file per concern: the transports and re-attach
// (stream-attachment.ts), discovery over REST (stream-discovery.ts), the
// positions kept across restarts (stream-positions.ts), the replay overlap
// (stream-dedupe.ts) and the descriptor's field paths and placeholders
// (stream-fields.ts).
import type { AgentPort } from '../daemon/port.ts';
import type { CompiledStream } from '../../core/descriptor/types.ts';
import { Attachment, type AttachmentHost } from './stream-attachment.ts';
import { StreamDiscovery } from './stream-discovery.ts';
import { fill } from './stream-fields.ts';
import { StreamPositions, type StreamState } from './stream-positions.ts';

export { fill, getPath } from './stream-fields.ts';
export { streamStateFile } from './stream-positions.ts';

export interface StreamInstance {
  /** Base URL of the agent instance (http/https). */
  url: string;
  /** The instance key ({key} in the descriptor's auth). */
  key?: string;
  /** Stream ids to attach; absent: discovered (stream.streams). */
  streams?: string[];
}

export interface SubscriberOptions {
  daemon: AgentPort;
  spec: CompiledStream;
  instance: StreamInstance;
  /** Where resume positions survive a restart. */
  stateFile: string;
  say?: (line: string) => void;
  /** Backoff start (tests shorten it). */
  retryMs?: number;
}

export class StreamSubscriber implements AttachmentHost {
  private readonly attached = new Map<string, Attachment>();
  private readonly positions: StreamPositions;
  private readonly say: (l: string) => void;
  private readonly base: string;
  private discovery?: StreamDiscovery;
  private closed = false;
  readonly origin: string;

  constructor(private readonly o: SubscriberOptions) {
    this.say = o.say ?? (() => {});
    this.base = o.instance.url.replace(/\/+$/, '');
    const u = new URL(this.base);
    this.origin = `${u.protocol}//${u.host}`;
    this.positions = new StreamPositions(o.stateFile, this.origin, this.say);
  }

  start(): void {
    if (this.o.instance.streams) for (const id of this.o.instance.streams) this.attach(id);
    else this.discover();
  }

  /** Attached streams and whether each is live (healthz, doctor, tests). */
  status(): { instance: string; streams: { id: string; live: boolean; stopped?: string }[] } {
    return { instance: this.origin, streams: [...this.attached.values()].map((a) => ({ id: a.id, live: a.live, stopped: a.stopped })) };
  }

  private headers(): Record<string, string> {
    return fill(this.o.spec.auth.header, { key: this.o.instance.key });
  }

  private discover(): void {
    const d = this.o.spec.discover;
    if (!d) {
      this.say(`${this.origin}: no stream list configured and the descriptor cannot discover streams: nothing to attach`);
      return;
    }
    this.discovery = new StreamDiscovery({
      base: this.base,
      origin: this.origin,
      discover: d,
      headers: () => this.headers(),
      attach: (id) => this.attach(id),
      say: this.say,
      problem: (code, message) => this.o.daemon.problem(code, message),
    });
    void this.discovery.poll();
  }

  private attach(id: string): void {
    if (this.attached.has(id) || this.closed) return;
    const a = new Attachment(id, this.positions.of(id), this);
    this.attached.set(id, a);
    a.connect();
  }

  // --- what an attachment needs from its subscriber (AttachmentHost) ------------------

  /** @internal */ get spec(): CompiledStream {
    return this.o.spec;
  }
  /** @internal */ get daemon(): AgentPort {
    return this.o.daemon;
  }
  /** @internal */ get key(): string | undefined {
    return this.o.instance.key;
  }
  /** @internal */ get retryMs(): number {
    return this.o.retryMs ?? 500;
  }
  /** @internal */ note(line: string): void {
    this.say(`${this.origin}: ${line}`);
  }
  /** @internal */ url(id: string, st: StreamState): URL {
    const s = this.o.spec;
    const url = new URL(this.base + fill(s.path, { id: encodeURIComponent(id) }));
    const q = st.cursor !== undefined && s.resumeQuery ? fill(s.resumeQuery, { cursor: String(st.cursor) }) : s.query;
    for (const [k, v] of Object.entries(q)) url.searchParams.set(k, v);
    return url;
  }
  /** @internal */ headersFor(): Record<string, string> {
    return this.headers();
  }
  /** @internal */ changed(): void {
    this.positions.changed();
  }

  async close(): Promise<void> {
    this.closed = true;
    this.discovery?.close();
    for (const a of this.attached.values()) a.stop('closing');
    this.positions.flush();
    await this.o.daemon.flush();
  }
}
