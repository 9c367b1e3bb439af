// Decision-codec cases (`kind: decisions`): one held hook, one answer, the
// exact bytes the agent receives. Run through the REAL daemon hold machinery
// (Daemon.handle + Daemon.onCommand, log in a temp folder), with a fake
// clock for timeouts and an in-memory link standing in for the relay.
//
//   - name: deny with guidance text
//     hook: PermissionRequest          # optional: else the payload names it
//     input: { ...native payload... }
//     hold: permission                 # the hold kind that must open (permission | form | gate)
//     config: { ... }                  # optional descriptor config overrides
//     card: { kind: permission, ... }  # optional: the attention.requested data as emitted (gated/redacted)
//     before:                          # optional answers sent first, each with its ack
//       - { answer: { values: {...} }, ack: { rejected: invalid } }
//     answer: { text: "use the staging registry" }   # or { option }, { values }, timeout, dismissed
//     settle: { hook: PostToolUse, input: {...} }     # answer: dismissed: the settling firing
//     ack: accepted                    # or { rejected: <reason> } (default accepted for an answer)
//     reply: '{"hookSpecificOutput":...}'            # EXACT bytes
//     exit: 0                          # optional (default 0)
//     stream: stderr                   # optional (default stdout): the stream carrying the bytes
//     events: [attention.requested, control.accepted, attention.answered, attention.resolved]  # optional: types, in order
//
// A surface command case (a descriptor `commands` entry) instead: the firings
// that set the session up, then the command, then the exact bytes the daemon
// asked the surface to write (null: nothing written) and the ack:
//
//   - name: control.cancel writes the editor's cancel
//     config: { control: true }
//     steps: [ { input: {...} }, ... ]             # fired first, over a recording surface
//     command: { type: control.cancel, session: s1, data: { scope: session } }
//     written: '{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s1"}}'
//     ack: accepted                                 # or { rejected: refused }
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { Daemon, type DaemonOptions, type PendingHold, type Timers } from '../../runtime/daemon/daemon.ts';
import type { EventLink } from '../../runtime/daemon/relay-link.ts';
import type { Descriptor } from '../../core/descriptor/types.ts';
import { makeCommand } from '../../core/kernel/command.ts';
import type { AepEvent } from '../../core/map/envelope.ts';
import { validateStream } from '../../core/validate/index.ts';

export type AckSpec = 'accepted' | { rejected: string };

export interface CommandCase {
  name: string;
  config?: Record<string, unknown>;
  steps?: { hook?: string; input: Record<string, unknown> }[];
  command: { type: string; session: string; run?: string; data?: Record<string, unknown> };
  written: string | null;
  ack?: AckSpec;
  events?: string[];
}

export interface DecisionCase {
  name: string;
  hook?: string;
  input: Record<string, unknown>;
  hold: 'permission' | 'form' | 'gate';
  config?: Record<string, unknown>;
  /** What the surface says beside the payload (`$surface`: e.g. a launch's gate, `{ gate: true }`). */
  surface?: Record<string, unknown>;
  card?: unknown;
  before?: { answer: unknown; ack?: AckSpec }[];
  answer: unknown;
  settle?: { hook?: string; input: Record<string, unknown> };
  ack?: AckSpec;
  reply: string;
  exit?: number;
  stream?: 'stdout' | 'stderr';
  events?: string[];
}

export interface DecisionOutcome {
  name: string;
  failures: string[];
  events: AepEvent[];
  reply?: string;
  card?: unknown;
}

const show = (v: unknown) => JSON.stringify(v);

/** A fake clock: timers fire only when the case says the answer is `timeout`. */
export class FakeTimers implements Timers {
  private next = 1;
  readonly pending = new Map<number, () => void>();
  set(fn: () => void): unknown {
    const h = this.next++;
    this.pending.set(h, fn);
    return h;
  }
  clear(h: unknown): void {
    this.pending.delete(h as number);
  }
  fireAll(): void {
    const fns = [...this.pending.values()];
    this.pending.clear();
    for (const fn of fns) fn();
  }
}

/** The daemon's relay link in a fixture run: nothing leaves the process; re-sent lines are kept. Shared with run-deliveries. */
export class MemoryLink implements EventLink {
  readonly resent: string[] = [];
  readonly ready = true;
  deliver(): void {}
  resend(line: string): void {
    this.resent.push(line);
  }
  async close(): Promise<void> {}
}

/** The checks every reply case ends with (decisions and deliveries): the exact reply bytes, the exit code, the event types, and the stream's AEP validity. */
export function checkReply(
  c: { reply?: string; exit?: number; stream?: 'stdout' | 'stderr'; events?: string[] },
  r: { body: string; exit: number; stream?: 'stderr' },
  events: AepEvent[],
  failures: string[],
): void {
  if (r.body !== c.reply) failures.push(`reply bytes: expected ${show(c.reply)}\n   got ${show(r.body)}`);
  if (r.exit !== (c.exit ?? 0)) failures.push(`exit: expected ${c.exit ?? 0}, got ${r.exit}`);
  if ((r.stream ?? 'stdout') !== (c.stream ?? 'stdout')) failures.push(`stream: expected ${c.stream ?? 'stdout'}, got ${r.stream ?? 'stdout'}`);
  expectTypes(events, c.events, failures);
  const violations = validateStream(events);
  if (violations.length) failures.push(`the emitted stream is not valid AEP: ${violations.map((v: any) => `${v.rule} ${v.message}`).join('; ')}`);
}

/** Who sends a fixture's commands (AEP-0004 §2.2). */
const FIXTURE_SENDER = { source: 'aep://fixtures/agent/hookmap-fixture', agent: 'hookmap-fixture' };

export function respondCommand(hold: PendingHold, answer: unknown): AepEvent {
  return makeCommand('control.attention.respond', { session: hold.session, subject: hold.id, cause: hold.id, data: { answer } }, FIXTURE_SENDER);
}

function ackOf(events: AepEvent[], cmd: AepEvent): AckSpec | undefined {
  const ack = events.find((e) => e.cause === cmd.id && (e.type === 'control.accepted' || e.type === 'control.rejected'));
  if (!ack) return undefined;
  return ack.type === 'control.accepted' ? 'accepted' : { rejected: String((ack.data as any)?.reason) };
}

export function isCommandCase(c: unknown): c is CommandCase {
  return !!c && typeof c === 'object' && 'command' in c;
}

/** A surface command through the real daemon: set up by firings over a recording writer, then the command. */
export async function runCommandCase(d: Descriptor, c: CommandCase): Promise<DecisionOutcome> {
  const failures: string[] = [];
  const events: AepEvent[] = [];
  const lines: string[] = [];
  const written: string[] = [];
  const writer = {
    id: 'fixture-surface',
    write: async (_id: string, bytes: string) => {
      written.push(bytes);
      return { ok: true };
    },
  };
  const out: DecisionOutcome = { name: c.name, failures, events };
  return withCaseDaemon(
    'hookmap-commands-',
    { descriptor: d, config: c.config, onEvent: (ev) => events.push(ev), say: (l) => lines.push(l) },
    out,
    async (daemon) => {
      for (const st of c.steps ?? []) {
        const r = await daemon.handle({ hook: st.hook, payload: st.input, writer, surface: { kind: d.surface.kind, connection: 'fixture' } });
        if (r.error) failures.push(`setup firing answered error ${r.error} (${lines.join(' | ')})`);
      }
      const cmd = makeCommand(c.command.type, { session: c.command.session, run: c.command.run, data: c.command.data ?? {} }, FIXTURE_SENDER);
      await daemon.onCommand(cmd);
      for (let i = 0; i < 50 && !ackOf(events, cmd); i++) await daemon.flush();
      const got = ackOf(events, cmd);
      const want = c.ack ?? 'accepted';
      if (!isDeepStrictEqual(got, want)) failures.push(`ack expected ${show(want)}, got ${show(got)} (${lines.join(' | ')})`);
      const bytes = written.length ? written[0] : null;
      out.reply = bytes ?? undefined;
      if (bytes !== c.written) failures.push(`written bytes: expected ${show(c.written)}\n   got ${show(bytes)}`);
      if (written.length > 1) failures.push(`written ${written.length} times, once expected`);
      expectTypes(events, c.events, failures);
    },
  );
}

export async function runDecisionCase(d: Descriptor, c: DecisionCase): Promise<DecisionOutcome> {
  const failures: string[] = [];
  const events: AepEvent[] = [];
  const timers = new FakeTimers();
  let onHold!: (h: PendingHold) => void;
  const held = new Promise<PendingHold>((r) => (onHold = r));
  const lines: string[] = [];
  const out: DecisionOutcome = { name: c.name, failures, events };
  return withCaseDaemon(
    'hookmap-decisions-',
    { descriptor: d, timers, config: c.config, onEvent: (ev) => events.push(ev), onHold: (h) => onHold(h), say: (l) => lines.push(l) },
    out,
    async (daemon) => {
      const replyP = daemon.handle({ hook: c.hook, payload: c.input, surface: c.surface });
      const first = await Promise.race([held, replyP.then(() => undefined)]);
      if (!first) {
        const r = await replyP;
        failures.push(
          `no hold opened (the hook answered at once with ${show(r.body)}${r.error ? `, error ${r.error}` : ''}; daemon said: ${lines.join(' | ')})`,
        );
        return;
      }
      const hold = first;
      if (hold.kind !== c.hold) failures.push(`hold kind: expected ${c.hold}, got ${hold.kind}`);
      // expires_at is the hold's deadline (request time + timeout), not part of the mapping the card pins
      const { expires_at: expiresAt, ...card } = (hold.request.data ?? {}) as Record<string, unknown>;
      out.card = card;
      if (c.card !== undefined && !isDeepStrictEqual(card, c.card)) failures.push(`card: expected ${show(c.card)}\n   got ${show(card)}`);
      const deadline = new Date(Date.parse(hold.request.time) + hold.timeoutMs).toISOString();
      if (hold.request.data && expiresAt !== deadline)
        failures.push(`card: expires_at expected ${deadline} (request time + ${hold.timeoutMs} ms), got ${show(expiresAt)}`);

      const answerWith = async (answer: unknown, want: AckSpec | undefined, label: string) => {
        const cmd = respondCommand(hold, answer);
        await daemon.onCommand(cmd);
        const got = ackOf(events, cmd);
        const expected = want ?? 'accepted';
        if (!isDeepStrictEqual(got, expected)) failures.push(`${label} ${show(answer)}: ack expected ${show(expected)}, got ${show(got)}`);
      };
      for (const [i, b] of (c.before ?? []).entries()) await answerWith(b.answer, b.ack, `before[${i}]`);
      if (c.answer === 'timeout') {
        timers.fireAll();
        await daemon.flush();
      } else if (c.answer === 'dismissed') {
        if (!c.settle) failures.push('answer: dismissed needs `settle: {hook, input}` (the firing that settles the hold)');
        else await daemon.handle({ hook: c.settle.hook, payload: c.settle.input });
      } else {
        await answerWith(c.answer, c.ack, 'answer');
      }
      const pendingLeft = daemon.pending().some((h) => h.id === hold.id);
      if (pendingLeft) {
        failures.push('the hold is still pending after the answer');
        timers.fireAll(); // free it so the case ends
        await daemon.flush();
      }
      const r = await replyP;
      out.reply = r.body;
      checkReply(c, r, events, failures);
    },
  );
}

/**
 * One case's daemon, the same for every runner: a scratch log folder, an
 * in-memory link with control on; `fn` drives it; a throw is one failure;
 * the daemon is closed and its folder removed whatever happened.
 */
export async function withCaseDaemon(
  prefix: string,
  opts: Omit<DaemonOptions, 'logDir'>,
  out: DecisionOutcome,
  fn: (daemon: Daemon) => Promise<void>,
): Promise<DecisionOutcome> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  let daemon: Daemon | undefined;
  try {
    daemon = Daemon.open({ ...opts, logDir: dir });
    daemon.attach(new MemoryLink(), true);
    await fn(daemon);
  } catch (e) {
    out.failures.push(`threw: ${(e as Error).stack ?? e}`);
  } finally {
    await daemon?.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return out;
}

/** A case's `events` (the types its firing must emit, in order), when it names them. */
function expectTypes(events: readonly { type: string }[], expected: string[] | undefined, failures: string[]): void {
  const got = events.map((e) => e.type);
  if (expected && !isDeepStrictEqual(got, expected)) failures.push(`events: expected ${show(expected)}\n   got ${show(got)}`);
}
