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
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import WebSocket from 'ws';
import type { Daemon } from '../daemon/daemon.ts';
import type { CompiledStream } from '../descriptor/types.ts';
import { readSse } from '../relay/client.ts';

export interface StreamInstance {
  /** Base URL of the agent instance (http/https). */
  url: string;
  /** The instance key ({key} in the descriptor's auth). */
  key?: string;
  /** Stream ids to attach; absent: discovered (stream.streams). */
  streams?: string[];
}

const RECENT_IDS = 1024;
const MAX_BACKOFF_MS = 30_000;
const MAX_PAGES = 100;

type Get = (obj: unknown, path: string[] | undefined) => unknown;
export const getPath: Get = (obj, path) => {
  if (!path) return undefined;
  let v: any = obj;
  for (const p of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = v[p];
  }
  return v;
};

/** {name} placeholders in every string leaf. */
export function fill<T>(v: T, vars: Record<string, string | undefined>): T {
  if (typeof v === 'string') return v.replace(/\{(\w+)\}/g, (m, k) => (vars[k] !== undefined ? vars[k]! : m)) as T;
  if (Array.isArray(v)) return v.map((x) => fill(x, vars)) as T;
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, fill(x, vars)])) as T;
  return v;
}

/** The resume position order: numbers numerically, strings lexically (ISO timestamps compare as text). */
const later = (a: unknown, b: unknown) => (typeof a === 'number' && typeof b === 'number' ? a > b : String(a) > String(b));

interface StreamState { cursor?: string | number; ids: string[]; lastEventId?: string }

export interface SubscriberOptions {
  daemon: Daemon;
  spec: CompiledStream;
  instance: StreamInstance;
  /** Where resume positions survive a restart. */
  stateFile: string;
  say?: (line: string) => void;
  /** Backoff start (tests shorten it). */
  retryMs?: number;
}

export class StreamSubscriber {
  private readonly attached = new Map<string, Attachment>();
  private readonly state: Record<string, StreamState>;
  private readonly say: (l: string) => void;
  private readonly base: string;
  private timer?: NodeJS.Timeout;
  private saveTimer?: NodeJS.Timeout;
  private closed = false;
  private discoverFailing = false;
  readonly origin: string;

  constructor(private readonly o: SubscriberOptions) {
    this.say = o.say ?? (() => {});
    this.base = o.instance.url.replace(/\/+$/, '');
    const u = new URL(this.base);
    this.origin = `${u.protocol}//${u.host}`;
    this.state = loadState(o.stateFile)[this.origin] ?? {};
  }

  start(): void {
    if (this.o.instance.streams) for (const id of this.o.instance.streams) this.attach(id);
    else void this.discover();
  }

  /** Attached streams and whether each is live (healthz, doctor, tests). */
  status(): { instance: string; streams: { id: string; live: boolean; stopped?: string }[] } {
    return { instance: this.origin, streams: [...this.attached.values()].map((a) => ({ id: a.id, live: a.live, stopped: a.stopped })) };
  }

  private headers(): Record<string, string> {
    return fill(this.o.spec.auth.header, { key: this.o.instance.key });
  }

  private async discover(): Promise<void> {
    if (this.closed) return;
    const d = this.o.spec.discover;
    if (!d) {
      this.say(`${this.origin}: no stream list configured and the descriptor cannot discover streams: nothing to attach`);
      return;
    }
    try {
      let page: string | undefined;
      for (let i = 0; i < MAX_PAGES; i++) {
        const url = new URL(this.base + d.path);
        if (page !== undefined && d.pageParam) url.searchParams.set(d.pageParam, page);
        const res = await fetch(url, { headers: { accept: 'application/json', ...this.headers() }, signal: AbortSignal.timeout(10_000) });
        if (!res.ok) throw new Error(`${d.path} answered ${res.status}`);
        const body = await res.json();
        const items = getPath(body, d.items);
        for (const item of Array.isArray(items) ? items : []) {
          const id = getPath(item, d.id);
          if ((typeof id === 'string' && id) || typeof id === 'number') this.attach(String(id));
        }
        const next = getPath(body, d.next);
        if (next === undefined || next === null || next === '' || !d.pageParam) break;
        page = String(next);
      }
      if (this.discoverFailing) this.say(`${this.origin}: stream discovery works again`);
      this.discoverFailing = false;
    } catch (e) {
      // said once per failing spell, not every poll
      if (!this.discoverFailing) {
        this.say(`${this.origin}: stream discovery failed (${(e as Error).message}); retrying every ${d.everyMs} ms`);
        this.o.daemon.problem('stream-refused', `${this.origin}: stream discovery failed: ${(e as Error).message}`);
      }
      this.discoverFailing = true;
    }
    if (!this.closed) {
      this.timer = setTimeout(() => void this.discover(), d.everyMs);
      this.timer.unref();
    }
  }

  private attach(id: string): void {
    if (this.attached.has(id) || this.closed) return;
    const st = (this.state[id] ??= { ids: [] });
    const a = new Attachment(id, st, this);
    this.attached.set(id, a);
    a.connect();
  }

  // --- what an attachment needs from its subscriber -----------------------------------

  /** @internal */ get spec(): CompiledStream { return this.o.spec; }
  /** @internal */ get daemon(): Daemon { return this.o.daemon; }
  /** @internal */ get key(): string | undefined { return this.o.instance.key; }
  /** @internal */ get retryMs(): number { return this.o.retryMs ?? 500; }
  /** @internal */ note(line: string): void { this.say(`${this.origin}: ${line}`); }
  /** @internal */ url(id: string, st: StreamState): URL {
    const s = this.o.spec;
    const url = new URL(this.base + fill(s.path, { id: encodeURIComponent(id) }));
    const q = st.cursor !== undefined && s.resumeQuery ? fill(s.resumeQuery, { cursor: String(st.cursor) }) : s.query;
    for (const [k, v] of Object.entries(q)) url.searchParams.set(k, v);
    return url;
  }
  /** @internal */ headersFor(): Record<string, string> { return this.headers(); }
  /** @internal */ changed(): void {
    if (this.saveTimer) return;
    this.saveTimer = setTimeout(() => this.save(), 500);
    this.saveTimer.unref();
  }

  private save(): void {
    this.saveTimer = undefined;
    try {
      const all = loadState(this.o.stateFile);
      all[this.origin] = this.state;
      const tmp = `${this.o.stateFile}.tmp`;
      writeFileSync(tmp, JSON.stringify(all));
      renameSync(tmp, this.o.stateFile);
    } catch (e) {
      this.say(`cannot save stream positions to ${this.o.stateFile}: ${(e as Error).message}`);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    for (const a of this.attached.values()) a.stop('closing');
    if (this.saveTimer) {
      clearTimeout(this.saveTimer);
      this.save();
    }
    await this.o.daemon.flush();
  }
}

/** One stream of one instance: connect, map every new frame, re-attach after a drop. */
class Attachment {
  live = false;
  stopped?: string;
  private ws?: WebSocket;
  private abort?: AbortController;
  private backoff: number;
  private timer?: NodeJS.Timeout;
  private badFrames = 0;
  private readonly recent: Set<string>;

  constructor(readonly id: string, private readonly st: StreamState, private readonly sub: StreamSubscriber) {
    this.backoff = sub.retryMs;
    this.recent = new Set(st.ids);
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
      await readSse(url.toString(), headers, (m) => {
        if (!opened) { opened = true; this.up(); }
        if (m.data === undefined) return;
        if (m.id !== undefined) this.st.lastEventId = m.id;
        this.frame(m.data);
      }, this.abort.signal);
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
      if (this.badFrames++ === 0) this.sub.daemon.problem('stream-frame', `stream ${this.id}: a frame that is not a JSON object (${text.length} bytes) was skipped; later ones are counted only`);
      return;
    }
    const spec = this.sub.spec;
    const fid = getPath(f, spec.dedupe);
    if (fid !== undefined) {
      const k = String(fid);
      if (this.recent.has(k)) return; // the replay's overlap: mapped before
      this.recent.add(k);
      if (this.recent.size > RECENT_IDS) this.recent.delete(this.recent.values().next().value as string);
      this.st.ids = [...this.recent].slice(-RECENT_IDS);
    }
    const c = getPath(f, spec.cursor);
    if ((typeof c === 'string' || typeof c === 'number') && (this.st.cursor === undefined || later(c, this.st.cursor))) this.st.cursor = c;
    this.sub.changed();
    // handle() queues in call order: frames are mapped in the order the stream delivered them
    void this.sub.daemon.handle({ payload: f, surface: { kind: 'stream-subscriber', stream: this.id, instance: this.sub.origin } });
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

/** The file a daemon keeps its stream positions in. */
export const streamStateFile = (logDir: string) => join(logDir, 'streams.json');
