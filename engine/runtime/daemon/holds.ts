// Held hooks waiting for an answer, indexed the three ways they are found:
// by request id (a control.attention.respond names it as `subject`), by
// settle key (a later hook such as PostToolUse frees it), by session (a
// session end closes what it left open). Terminal requests are remembered
// (bounded) so a late answer is told "already answered", not "unknown".
import type { CompiledHold } from '../../core/descriptor/types.ts';
import type { AepEvent } from '../../core/map/envelope.ts';
import type { RequestView } from './answer.ts';

export interface HookReply {
  /** Exactly the bytes the agent receives. */
  body: string;
  /** Exit-code intent for command hooks (`x-hookmap-exit`). */
  exit: number;
  /** The stream carrying the bytes (`x-hookmap-stream`; absent: stdout). */
  stream?: 'stderr';
  contentType: string;
  /** Set when the firing could not be mapped (the diagnostic's code). */
  error?: string;
  /** The verb the reply carries (a decide entry, or a hold's cancel decision), when it is not the neutral/answer reply. */
  decided?: string;
}

export interface PendingHold {
  id: string;
  kind: 'permission' | 'form' | 'gate';
  hook: string;
  session: string;
  key?: string;
  rule: CompiledHold;
  request: AepEvent;
  payload: Record<string, unknown>;
  view: RequestView;
  /** What the hook answers when nothing is decided. */
  neutral: HookReply;
  openedAt: number;
  timeoutMs: number;
  timer?: unknown;
  /** An "Allow always" asked the agent to persist the allow itself (set by the rules API before the answer arrives). */
  always?: Record<string, unknown>;
  /** Who answered it (the sender's authenticated name), once answered. */
  by?: string;
  done: (reply: HookReply) => void;
}

export type Terminal = 'answered' | 'timed out' | 'dismissed' | 'settled out of band';

export class HoldTable {
  private readonly byId = new Map<string, PendingHold>();
  private readonly byKey = new Map<string, string>();
  private readonly terminal = new Map<string, Terminal>();

  constructor(private readonly rememberTerminal = 4_096) {}

  get size(): number {
    return this.byId.size;
  }

  add(h: PendingHold): void {
    this.byId.set(h.id, h);
    if (h.key !== undefined) this.byKey.set(keyOf(h.session, h.key), h.id);
  }

  get(id: string): PendingHold | undefined {
    return this.byId.get(id);
  }

  byKeyOf(session: string, key: string): PendingHold | undefined {
    const id = this.byKey.get(keyOf(session, key));
    return id === undefined ? undefined : this.byId.get(id);
  }

  inSession(session: string): PendingHold[] {
    return [...this.byId.values()].filter((h) => h.session === session);
  }

  all(): PendingHold[] {
    return [...this.byId.values()];
  }

  /** Remove a pending hold, remembering how it ended. */
  close(h: PendingHold, how: Terminal): void {
    this.byId.delete(h.id);
    if (h.key !== undefined && this.byKey.get(keyOf(h.session, h.key)) === h.id) this.byKey.delete(keyOf(h.session, h.key));
    this.terminal.set(h.id, how);
    while (this.terminal.size > this.rememberTerminal) this.terminal.delete(this.terminal.keys().next().value as string);
  }

  howEnded(id: string): Terminal | undefined {
    return this.terminal.get(id);
  }
}

const keyOf = (session: string, key: string) => `${session}\u0000${key}`;

/**
 * Command dedupe state (AEP-0004 §2.3, §3): per (source, id), the recorded
 * ack's exact wire text, re-sent byte-identically on redelivery. Bounded;
 * a forgotten command's redelivery is a new command (§3 allows exactly that).
 */
export class AckMemory {
  private readonly acks = new Map<string, string>();
  constructor(private readonly max = 10_000) {}

  get(source: string, id: string): string | undefined {
    return this.acks.get(`${source}\u0000${id}`);
  }

  record(source: string, id: string, line: string): void {
    const k = `${source}\u0000${id}`;
    this.acks.delete(k);
    this.acks.set(k, line);
    while (this.acks.size > this.max) this.acks.delete(this.acks.keys().next().value as string);
  }
}
