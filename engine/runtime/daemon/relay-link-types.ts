// What a daemon's event link is, and what the relay link takes
// (engine/runtime/daemon/relay-link.ts; AEP-0003 §3.5 emitter binding). Moved out
// of relay-link.ts.
import type WebSocket from 'ws';
import type { AepEvent } from '../../core/map/envelope.ts';
import type { AppendRecord, SessionLog } from './session-log.ts';

/** What the daemon needs from whatever carries its events (a relay link, or a test double). */
export interface EventLink {
  /** The event at `rec` is on disk; deliver it when possible. */
  deliver(rec: AppendRecord): void;
  /** Send already-delivered wire text again, as-is (a recorded ack, a pending request to re-claim its session). */
  resend(line: string): void;
  /** The relay hello completed and the link is up. */
  readonly ready: boolean;
  close(): Promise<void>;
}

/** An in-process relay's connection (engine/runtime/relay/socket.ts dial), a `ws` WebSocket to the code using it. */
export type Dial = (authorization?: string) => WebSocket;

export interface RelayLinkOptions {
  /** Relay base URL (http[s]:// or ws[s]://), e.g. http://127.0.0.1:8787; several, comma-separated, fail over in turn. */
  url: string;
  /** The bearer token, or where to get it on each (re)connect (a token file followed while the daemon runs). */
  token?: string | (() => string | undefined);
  identity: { agent: string; instance: string };
  capabilities: Record<string, unknown>;
  log: SessionLog;
  /** Where confirmed offsets persist (`<logdir>/relay-cursors.json`). */
  cursorFile: string;
  /** A routed command; `by` is the sender's authenticated name from the relay's routed frame (absent: none came). */
  onCommand: (command: AepEvent, raw: string, by?: string) => void;
  /** TLS client options for a wss:// relay (a pinned CA, the name to verify). */
  tls?: { ca?: (string | Buffer)[]; servername?: string };
  /** The relay is in this process (`hookmap up`): connect through this (its `authorization` header given) instead of a WebSocket to `url`. */
  dial?: Dial;
  /** Called after every completed hello and replay (re-claim sessions with pending holds). */
  onReady?: () => void;
  /** A line was set aside (dead-letter file) instead of reaching the relay. */
  onDropped?: (d: DroppedLine) => void;
  /** Where set-aside lines go (default `<log dir>/dead-letter.ndjson`). */
  deadLetterFile?: string;
  say?: (line: string) => void;
  backoffMs?: { initial: number; max: number };
}

export type State = 'connecting' | 'replaying' | 'ready' | 'down' | 'closed';

/** What the link knows of a line it set aside. */
export interface DroppedLine {
  id?: string;
  type?: string;
  session?: string;
  bytes: number;
  reason: string;
  file: string;
  offset: number;
}
