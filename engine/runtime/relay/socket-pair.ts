// Two connected ends that behave, to the code on each end, like a `ws`
// WebSocket (what relay-link.ts and socket-conn.ts use of one: send, close,
// terminate, readyState, bufferedAmount; the open, message, close and error
// events): `hookmap up`'s own daemons reach the relay in the same process
// through one (engine/runtime/relay/socket.ts dial), the same protocol code on both
// ends, without an HTTP upgrade and a loopback TCP connection each. Frames
// arrive in order and never within the send() that sent them; a close is
// delivered after every frame sent before it.
import { EventEmitter } from 'node:events';

const [CONNECTING, OPEN, CLOSING, CLOSED] = [0, 1, 2, 3];

type Item = { frame: Buffer } | { close: number; reason: string };

export class PairEnd extends EventEmitter {
  readonly CONNECTING = CONNECTING;
  readonly OPEN = OPEN;
  readonly CLOSING = CLOSING;
  readonly CLOSED = CLOSED;
  readyState = CONNECTING;
  readonly bufferedAmount = 0;
  peer!: PairEnd;
  private readonly inbox: Item[] = [];
  private draining = false;

  send(data: string | Buffer, opts?: unknown, cb?: (err?: Error) => void): void {
    const done = typeof opts === 'function' ? (opts as (err?: Error) => void) : cb;
    if (this.readyState !== OPEN) return done?.(new Error('WebSocket is not open'));
    this.peer.put({ frame: typeof data === 'string' ? Buffer.from(data) : data });
    done?.();
  }

  close(code = 1005, reason = ''): void {
    if (this.readyState === CLOSING || this.readyState === CLOSED) return;
    this.readyState = CLOSING;
    this.peer.put({ close: code, reason });
    this.put({ close: code, reason });
  }

  terminate(): void {
    if (this.readyState === CLOSED) return;
    this.readyState = CLOSING;
    this.peer.put({ close: 1006, reason: '' });
    this.shut(1006, '');
  }

  /** Opened on both ends (asynchronously: listeners attached after the dial hear it). */
  open(): void {
    setImmediate(() => {
      for (const end of [this, this.peer]) {
        if (end.readyState !== CONNECTING) continue;
        end.readyState = OPEN;
        end.emit('open');
      }
    });
  }

  private put(item: Item): void {
    this.inbox.push(item);
    if (this.draining) return;
    this.draining = true;
    setImmediate(() => this.drain());
  }

  private drain(): void {
    this.draining = false;
    while (this.inbox.length) {
      const item = this.inbox.shift()!;
      if (this.readyState === CLOSED) return void (this.inbox.length = 0);
      if ('frame' in item) {
        if (this.readyState === OPEN) this.emit('message', item.frame, false);
      } else this.shut(item.close, item.reason);
    }
  }

  private shut(code: number, reason: string): void {
    if (this.readyState === CLOSED) return;
    this.readyState = CLOSED;
    this.inbox.length = 0;
    this.emit('close', code, Buffer.from(reason));
  }
}

/** Two ends, each the other's peer; open() them once both sides listen. */
export function socketPair(): [PairEnd, PairEnd] {
  const a = new PairEnd();
  const b = new PairEnd();
  a.peer = b;
  b.peer = a;
  return [a, b];
}
