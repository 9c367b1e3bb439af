// The inbox's watch link: one WebSocket with the AEP hello exchange (AEP-0003 §3.5, §4), liveness
// answers and reconnect (web/src/model/connection.ts holds it).
import { signal } from '@preact/signals';
import { AEP_VERSION } from './aep.ts';
import { Backoff, measure, now, type LinkStatus, type Opts } from './links.ts';

/** One WebSocket with the hello exchange, liveness answers and reconnect. */
export class AepSocket {
  readonly status = signal<LinkStatus>('connecting');
  hello: any;
  private ws?: WebSocket;
  private readonly backoff = new Backoff();
  private retry?: unknown;
  private stopped = true;
  private openedAt = 0;

  constructor(
    private readonly o: Opts,
    private readonly instance: string,
    private readonly onReady: () => void,
    private readonly onMessage: (msg: any) => void,
  ) {}

  start(): void {
    this.stopped = false;
    if (!this.ws) this.connect();
  }

  stop(): void {
    this.stopped = true;
    this.o.scheduler.cancel(this.retry);
    const ws = this.ws;
    this.ws = undefined;
    if (ws && ws.readyState <= 1) ws.close(1000, 'inbox closed');
    this.status.value = 'down';
  }

  /** Reconnect now (the page became visible, the network came back). */
  nudge(): void {
    if (this.stopped || this.ws) return;
    this.o.scheduler.cancel(this.retry);
    this.backoff.reset();
    this.connect();
  }

  send(msg: unknown): boolean {
    if (this.status.value !== 'live' || !this.ws || this.ws.readyState !== 1) return false;
    this.ws.send(typeof msg === 'string' ? msg : JSON.stringify(msg));
    return true;
  }

  private connect(): void {
    const WS = this.o.WebSocketImpl ?? WebSocket;
    this.status.value = 'connecting';
    let ws: WebSocket;
    try {
      ws = new WS(`${this.o.base.replace(/^http/, 'ws')}/socket`);
    } catch {
      return this.down();
    }
    this.ws = ws;
    this.openedAt = now();
    ws.onopen = () => {
      ws.send(
        JSON.stringify({
          type: 'hello',
          versions: [AEP_VERSION],
          role: 'consumer',
          identity: { agent: 'hookmap-inbox', instance: this.instance },
          capabilities: {},
        }),
      );
    };
    ws.onmessage = (m) => {
      let msg: any;
      try {
        msg = JSON.parse(String(m.data));
      } catch {
        return;
      }
      if (!msg || typeof msg !== 'object') return;
      if (msg.type === 'ping') {
        ws.send(JSON.stringify({ type: 'pong', t: msg.t })); // AEP-0003 §3.5 rule 5
        return;
      }
      if (!this.hello) {
        if (msg.type !== 'hello') return;
        this.hello = msg;
        measure('inbox:hello', this.openedAt, 0);
        this.backoff.reset();
        this.status.value = 'live';
        this.onReady();
        return;
      }
      this.onMessage(msg);
    };
    ws.onclose = () => {
      if (this.ws !== ws) return;
      this.ws = undefined;
      this.down();
    };
    ws.onerror = () => {
      /* onclose follows */
    };
  }

  private down(): void {
    this.hello = undefined;
    this.status.value = this.stopped ? 'down' : 'connecting';
    if (this.stopped) return;
    this.o.onFailure?.();
    this.retry = this.o.scheduler.after(() => {
      if (!this.ws && !this.stopped) this.connect();
    }, this.backoff.next());
  }
}
