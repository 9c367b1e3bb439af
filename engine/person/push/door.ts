// The one door of every surface that acts for a person away from the agent
// (Web Push, the chat channels, the rules API; issue 39): what is pending is
// read off the relay's stream (attention.requested until its settling), and
// everything else goes to the agent as a control command through the relay,
// routed like any command (across the fleet backplane to the relay holding
// the session): the answer (control.attention.respond), the question of
// what a pending request asks (x.hookmap.control.ask) and an "Allow always"
// (x.hookmap.control.always), both answered in the command's outcome
// (engine/runtime/daemon/door.ts). So the surfaces of one machine serve the agents of
// every machine on the stream, and none of them holds a daemon object.
import { makePrincipal, type Principal, type Scope } from '../../runtime/auth/principal.ts';
import { makeCommand } from '../../runtime/relay/client.ts';
import type { AepEvent, Relay } from '../../runtime/relay/index.ts';
import { ALWAYS_COMMAND, ASK_COMMAND } from '../../runtime/daemon/door.ts';
import { TYPE, ATTENTION_TERMINALS, isAttentionTerminal } from '../../core/kernel/lifecycle.ts';
import { PEOPLE_ATTR } from '../../runtime/auth/people.ts';

export { ALWAYS_COMMAND, ASK_COMMAND };

/** A request waiting for an answer, as the stream says. */
export interface Pending {
  id: string;
  session: string;
  agent: string;
  kind: string;
  /** The people it is routed to (engine/runtime/auth/people.ts `hookmappeople`); absent: not routed (everyone). */
  people?: string;
}

/** What the holding daemon says of a pending request (engine/runtime/daemon/door.ts describe): text redacted there. */
export interface Asked {
  request: string;
  kind: 'permission' | 'form' | 'gate';
  allow?: string;
  deny?: string;
  form?: {
    kind: string;
    labelsReal: boolean;
    fields?: { id: string; type: string; label?: string; multi?: boolean; choices?: { id: string; label?: string }[] }[];
  };
  rulable: boolean;
  agent?: string;
  tool?: string;
  session?: string;
  project?: string;
  command?: string;
  /** Redaction changed nothing in the command: a surface showing it at `redacted` shows all of it. */
  clean?: boolean;
  plain?: boolean;
  refused?: string;
  exact?: string;
  prefixes?: string[];
  paths?: string[];
  native?: string;
  floor?: string;
}

/** Who sends: a principal, and the surface it acts from (`push`, `telegram`, `inbox`...). */
export interface Sender {
  name: string;
  scopes: readonly string[];
  via: string;
  key: string;
}

export type Sent = { ok: true; ack: AepEvent } | { ok: false; status: number; error: string; detail: string };

const TYPES = [TYPE.attentionRequested, ...ATTENTION_TERMINALS, TYPE.controlAccepted, TYPE.controlRejected];
const MAX_PENDING = 10_000;
const ACK_MS = 5000;
const ROSTER_WAIT_MS = 2000;

export class Door {
  private readonly open = new Map<string, Pending>();
  private readonly acks = new Map<string, (ev: AepEvent) => void>();
  private sub?: { close(): void };

  constructor(private readonly relay: Pick<Relay, 'subscribe' | 'connect'>) {}

  /** Follow the stream from what the relay holds (requests already waiting count). */
  started(): this {
    this.sub ??= this.relay.subscribe({ filter: { type: TYPES }, from: 'all', live: true }, (ev) => this.onEvent(ev));
    return this;
  }

  close(): void {
    this.sub?.close();
    this.sub = undefined;
  }

  /** The request, while the stream says it waits. */
  pending(id: unknown, agent?: string): Pending | undefined {
    const p = typeof id === 'string' ? this.open.get(id) : undefined;
    return p && (!agent || p.agent === agent) ? p : undefined;
  }

  /** The ack (control.accepted / control.rejected) of a command, or undefined when none came within `ms`. */
  ack(command: string, ms: number): Promise<AepEvent | undefined> {
    return new Promise((resolve) => {
      const t = setTimeout(() => {
        this.acks.delete(command);
        resolve(undefined);
      }, ms);
      t.unref?.();
      this.acks.set(command, (ev) => {
        clearTimeout(t);
        this.acks.delete(command);
        resolve(ev);
      });
    });
  }

  /** One control command for `request`'s session as `who`, and its ack. */
  async send(who: Sender | undefined, type: string, p: Pending, data: Record<string, unknown>, subject = p.id): Promise<Sent> {
    const via = who?.via ?? 'hookmap';
    const principal: Principal | undefined = who && makePrincipal(who.name, who.scopes as Scope[], who.via, who.key);
    const conn = this.relay.connect({ identity: { agent: `hookmap-${via}`, instance: who?.key ?? 'door' }, role: 'consumer', principal });
    try {
      const cmd = { ...makeCommand(type, p.session, { subject, data }), agent: `hookmap-${via}` };
      cmd.source = cmd.source.replace(/hookmap-cli$/, `hookmap-${via}`);
      const acked = this.ack(cmd.id, ACK_MS);
      let sent = conn.emit(cmd);
      // a request from another machine of the fleet can reach this relay before that relay's roster entry does: wait for it a little
      for (let i = 0; !sent.ok && sent.code === 'no-route' && i < ROSTER_WAIT_MS / 100; i++) {
        await new Promise((r) => setTimeout(r, 100));
        sent = conn.emit(cmd);
      }
      if (!sent.ok) return { ok: false, status: 409, error: sent.code, detail: sent.detail };
      const ack = await acked;
      if (!ack) return { ok: false, status: 504, error: 'no-ack', detail: 'the agent did not acknowledge in time' };
      if (ack.type === TYPE.controlRejected) {
        const d = (ack.data ?? {}) as Record<string, unknown>;
        const detail = String(d.detail ?? d.code ?? d.reason ?? 'refused'); // a detail the capture gate kept back: its code
        return { ok: false, status: 409, error: String(d.code ?? /^([a-z][a-z0-9-]*):/.exec(detail)?.[1] ?? d.reason ?? 'rejected'), detail };
      }
      return { ok: true, ack };
    } finally {
      conn.close();
    }
  }

  /** What the daemon holding `request` says it asks (undefined: not pending, or no answer). */
  async ask(who: Sender | undefined, request: unknown, agent?: string): Promise<Asked | undefined> {
    const p = this.pending(request, agent);
    if (!p) return undefined;
    const r = await this.send(who, ASK_COMMAND, p, {});
    return r.ok ? ((r.ack.data as { result?: Asked } | undefined)?.result ?? undefined) : undefined;
  }

  private onEvent(ev: AepEvent): void {
    if (ev.type === TYPE.controlAccepted || ev.type === TYPE.controlRejected) return this.acks.get(String(ev.cause ?? ''))?.(ev);
    if (ev.type === TYPE.attentionRequested) {
      const kind = String((ev.data as { kind?: unknown } | undefined)?.kind ?? 'permission');
      const people = (ev as Record<string, unknown>)[PEOPLE_ATTR];
      this.open.set(ev.id, {
        id: ev.id,
        session: String(ev.session ?? ''),
        agent: String(ev.agent ?? ''),
        kind,
        people: typeof people === 'string' ? people : undefined,
      });
      if (this.open.size > MAX_PENDING) this.open.delete(this.open.keys().next().value as string);
      return;
    }
    if (isAttentionTerminal(ev.type)) this.open.delete(String(ev.subject ?? ev.cause ?? ''));
  }
}
