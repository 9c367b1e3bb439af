// The one control command builder (AEP-0004 §2): a command envelope as a
// foreign emitter sends it (no `seq`; the envelope id is the idempotency key;
// `agent` names the sender, AEP-0004 §2.2). The CLI, the push and chat
// surfaces and the web inbox build their commands here. Browser-safe: the id
// is a ULID made with the Web Crypto API (global in browsers and Node 20).
import { AEP_VERSION, type AepEvent } from './event.ts';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** A ULID (48-bit time, 80 random bits): sortable and unique enough to be an idempotency key. */
export function newId(now = Date.now()): string {
  let t = now;
  let time = '';
  for (let i = 0; i < 10; i++) {
    time = CROCKFORD[t % 32] + time;
    t = Math.floor(t / 32);
  }
  const rnd = new Uint8Array(16);
  globalThis.crypto.getRandomValues(rnd);
  let r = '';
  for (let i = 0; i < 16; i++) r += CROCKFORD[rnd[i] % 32];
  return time + r;
}

export interface CommandParts {
  session: string;
  subject?: string;
  run?: string;
  cause?: string;
  data: Record<string, unknown>;
}

/** Who sends the command: its `source` URI and `agent` name (AEP-0004 §2.2). */
export interface Sender {
  source: string;
  agent: string;
}

/** A command envelope: the given type, addressed to `parts.session`, from `sender`. */
export function makeCommand(type: string, parts: CommandParts, sender: Sender): AepEvent {
  const ev: AepEvent = {
    aep: AEP_VERSION,
    id: newId(),
    type,
    time: new Date().toISOString(),
    source: sender.source,
    agent: sender.agent,
    session: parts.session,
    data: parts.data,
  };
  if (parts.subject) ev.subject = parts.subject;
  if (parts.run) ev.run = parts.run;
  if (parts.cause) ev.cause = parts.cause;
  return ev;
}

/** A steering instruction's outcome (x.<agent>.instruction.delivered / .dropped, cause = the command), or undefined for any other type. */
export function instructionOutcome(type: string): 'delivered' | 'dropped' | undefined {
  if (!type.startsWith('x.')) return undefined;
  return type.endsWith('.instruction.delivered') ? 'delivered' : type.endsWith('.instruction.dropped') ? 'dropped' : undefined;
}
