// One stream of one agent instance, for the stream-subscriber surface: the
// transport (a WebSocket, with the key in the first frame or a header as the
// descriptor says; or SSE with Last-Event-ID), re-attach with backoff after
// a drop, a stop on the close codes / statuses that mean "refused" or
// "gone", and every new frame (RecentFrames drops the replay's overlap)
// handed to the daemon in delivery order. Nothing else is ever written to
// the agent. Design: AEP-0005 (bridges) and the agent-server bridge design
// record in docs/components ("Attach shape").
import WebSocket from 'ws';
import type { AgentPort } from '../daemon/port.ts';
import type { CompiledStream } from '../../core/descriptor/types.ts';
import { readSse } from '../relay/client.ts';
import { RecentFrames } from './stream-dedupe.ts';
import { fill } from './stream-fields.ts';
import type { StreamState } from './stream-positions.ts';

const MAX_BACKOFF_MS = 30_000;

/** What an attachment needs from its subscriber. */
export interface AttachmentHost {
  readonly spec: CompiledStream;
  readonly daemon: Pick<AgentPort, 'handle' | 'problem'>;
  readonly key: string | undefined;
  readonly retryMs: number;
  readonly origin: string;
  note(line: string): void;
  url(id: string, st: StreamState): URL;
  headersFor(): Record<string, string>;
  changed(): void;
}

/** One stream of one instance: connect, map every new frame, re-attach after a drop. */
export class Attachment {
  live = false;
  stopped?: string;
  private ws?: WebSocket;
  private abort?: AbortController;
  private backoff: number;
  private timer?: NodeJS.Timeout;
  private badFrames = 0;
  private readonly recent: RecentFrames;

  constructor(
    readonly id: string,
    private readonly st: StreamState,
    private readonly sub: AttachmentHost,
  ) {
    this.backoff = sub.retryMs;
    this.recent = new RecentFrames(st);
  }

  connect(): void {
    if (this.stopped) return;
    if (this.sub.spec.transport === 'sse') void this.sse();
    else this.websocket();
  }

  private websocket(): void {
    const spec = this.sub.spec;
    const url = this.sub.url(this.id, this.st);
    url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
    // the key goes one way only: the first frame when the descriptor says so, else the header
    const ws = new WebSocket(url, { headers: spec.auth.firstMessage ? {} : this.sub.headersFor(), perMessageDeflate: false, handshakeTimeout: 10_000 });
    this.ws = ws;
    ws.on('open', () => {
      if (spec.auth.firstMessage) ws.send(JSON.stringify(fill(spec.auth.firstMessage, { key: this.sub.key ?? '' })));
      this.up();
    });
    ws.on('message', (data) => this.frame(String(data)));
    ws.on('error', () => {});
    ws.on('unexpected-response', (_req, res) => {
      this.sub.note(`stream ${this.id}: the upgrade was answered ${res.statusCode}`);
      ws.terminate();
    });
    ws.on('close', (code) => {
      this.ws = undefined;
      const was = this.live;
      this.live = false;
      const meaning = spec.closeCodes[String(code)];
      if (meaning === 'auth') return this.stop(`the instance refused the key (close ${code})`, true);
      if (meaning === 'gone') return this.stop(`the instance has no such stream (close ${code})`, true);
      if (was) this.sub.note(`stream ${this.id} closed (${code}); re-attaching from ${this.st.cursor ?? 'the start'}`);
      this.retry();
    });
  }

  private async sse(): Promise<void> {
    const url = this.sub.url(this.id, this.st);
    const headers: Record<string, string> = { ...this.sub.headersFor() };
    if (this.st.lastEventId !== undefined) headers['last-event-id'] = this.st.lastEventId;
    this.abort = new AbortController();
    try {
      let opened = false;
      await readSse(
        url.toString(),
        headers,
        (m) => {
          if (!opened) {
            opened = true;
            this.up();
          }
          if (m.data === undefined) return;
          if (m.id !== undefined) this.st.lastEventId = m.id;
          this.frame(m.data);
        },
        this.abort.signal,
      );
    } catch (e) {
      if (this.stopped) return;
      const status = /answered (\d{3})/.exec((e as Error).message)?.[1];
      if (status === '401' || status === '403') return this.stop(`the instance refused the key (${status})`, true);
      if (status === '404') return this.stop('the instance has no such stream (404)', true);
    }
    this.live = false;
    if (!this.stopped) this.retry();
  }

  private up(): void {
    this.live = true;
    this.backoff = this.sub.retryMs;
  }

  private retry(): void {
    if (this.stopped) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.connect(), this.backoff);
    this.timer.unref();
    this.backoff = Math.min(MAX_BACKOFF_MS, this.backoff * 2);
  }

  stop(why: string, report = false): void {
    if (this.stopped) return;
    this.stopped = why;
    this.live = false;
    clearTimeout(this.timer);
    this.abort?.abort();
    try {
      this.ws?.close(1000);
    } catch {
      // gone already
    }
    if (report) {
      this.sub.note(`stream ${this.id} stopped: ${why}`);
      this.sub.daemon.problem('stream-refused', `stream ${this.id}: ${why}`);
    }
  }

  private frame(text: string): void {
    let f: unknown;
    try {
      f = JSON.parse(text);
    } catch {
      f = undefined;
    }
    if (!f || typeof f !== 'object' || Array.isArray(f)) {
      if (this.badFrames++ === 0)
        this.sub.daemon.problem(
          'stream-frame',
          `stream ${this.id}: a frame that is not a JSON object (${text.length} bytes) was skipped; later ones are counted only`,
        );
      return;
    }
    if (!this.recent.admit(f, this.sub.spec)) return; // the replay's overlap: mapped before
    this.sub.changed();
    // handle() queues in call order: frames are mapped in the order the stream delivered them
    void this.sub.daemon.handle({ payload: f, surface: { kind: 'stream-subscriber', stream: this.id, instance: this.sub.origin } });
  }
}
