// Commands across the fleet (AEP-0004 §4 routing; engine/runtime/relay/backplane/):
// each relay listens on <prefix>.ctl.<session> for every session it holds
// a claim on. The relay a command arrives on checks its sender first
// (core.ts routeOnce: an authenticated duplex connection whose principal
// has the control scope; a command that fails it never reaches NATS),
// then the fleet-wide roster (no-route / ambiguous / unsupported decided
// exactly as for local claims), and sends it as a request on the
// session's subject:
//
//   { "from": <relay>, "by": { "name", "scopes" }, "raw": <the command, byte-identical> }
//
// signed as a whole (signing.ts), so the sender's authenticated principal
// crosses NATS inside the signed message. The holding relay checks the
// signature, the principal's control scope and its own claim, delivers
// the command with that principal (the target's `x-hookmap-routed` frame,
// so `attention.answered.by` names the sender authenticated on the first
// relay), writes its audit line naming the sender and the relay it came
// from, fans the redacted watcher copy out to every relay (command-copy.ts
// through the store's live path), and replies with its verdict (signed
// too). A refusal there comes back to the sender as the usual error frame
// (`cause` = the command's id). The acks (control.accepted/rejected) are
// ordinary sequenced events: they reach the sender through the stream.
import type { NatsConnection, Subscription as NatsSub, Msg } from '@nats-io/transport-node';
import { can, makePrincipal, SCOPES, type Principal, type Scope } from '../../auth/principal.ts';
import type { Conn, IngestOutcome, RelayCore } from '../core.ts';
import type { Held } from '../store.ts';
import type { Signer } from './signing.ts';
import { subjectOf } from './stream.ts';
import type { RemoteEntry } from './types.ts';

/** How long a forwarded command waits for the holding relay's verdict. */
const CTL_TIMEOUT_MS = 3000;

type Verdict = { ok: true } | { ok: false; code: string; detail: string };

interface Forwarded {
  from: string;
  by: { name: string; scopes: Scope[] };
  raw: string;
}

const enc = new TextEncoder();
const dec = new TextDecoder();

export class CommandRoutes {
  forwarded = 0;
  core?: RelayCore;
  private readonly subs = new Map<string, NatsSub>();

  constructor(
    private readonly nc: NatsConnection,
    private readonly prefix: string,
    private readonly signer: Signer,
  ) {}

  /** Follow the control subject of every session this relay holds a claim on. */
  claimsChanged(session: string, held: boolean): void {
    if (held && !this.subs.has(session)) {
      this.subs.set(session, this.nc.subscribe(subjectOf(this.prefix, 'ctl', session), { callback: (err, m) => void (err || this.onForwarded(m)) }));
    } else if (!held) {
      this.subs.get(session)?.unsubscribe();
      this.subs.delete(session);
    }
  }

  /** The sender's side: the one claimant is on `target.relay` (the sender's control scope is already checked). */
  forward(held: Held, origin: Conn, sender: Principal, target: RemoteEntry): IngestOutcome {
    const core = this.core!;
    const ev = held.ev;
    const accepts = (target.entry.control as { accepts?: unknown } | undefined)?.accepts;
    if (!Array.isArray(accepts) || !accepts.includes(ev.type)) return core.refuse('unsupported', `target does not declare '${ev.type}' in control.accepts`);
    core.counters.routed++;
    this.forwarded++;
    const msg: Forwarded = { from: this.signer.relayId, by: { name: sender.name, scopes: [...sender.scopes] }, raw: held.raw };
    const body = enc.encode(JSON.stringify(msg));
    const noAnswer = (why: string): Verdict => ({
      ok: false,
      code: 'no-route',
      detail: `the relay holding session '${ev.session}' (${target.relay}) did not answer over the backplane: ${why}`,
    });
    void this.nc
      .request(subjectOf(this.prefix, 'ctl', ev.session!), body, { timeout: CTL_TIMEOUT_MS, headers: this.signer.headers(body) })
      .then(
        (m) => (this.signer.verify(m.data, m.headers) ? (JSON.parse(dec.decode(m.data)) as Verdict) : noAnswer('its reply is not signed with this fleet key')),
        (e: Error) => noAnswer(e.message),
      )
      .then((r) => {
        if (r.ok) return;
        core.counters.refused++;
        core.record(ev, sender.name, r, target.relay);
        if (core.conns.has(origin)) origin.info.refused?.(r.code, r.detail, ev);
      });
    return { ok: true, admitted: false, routed: true, via: target.relay };
  }

  /** The holding relay's side. */
  private onForwarded(m: Msg): void {
    const core = this.core;
    if (!core) return;
    let out: Verdict;
    if (!this.signer.verify(m.data, m.headers)) {
      out = {
        ok: false,
        code: 'unauthorized',
        detail: 'the forwarded command is not signed with the fleet key of the relay holding the session (every relay of a fleet needs the same owner token)',
      };
    } else {
      const fwd = readForwarded(m.data);
      const held = fwd ? core.prepare(fwd.raw) : { code: 'invalid-event', detail: 'unreadable forwarded command' };
      if (!('ev' in held)) out = { ok: false, code: held.code, detail: held.detail };
      else out = this.deliverHere(core, held, makePrincipal(fwd!.by.name, fwd!.by.scopes, 'backplane', `relay:${fwd!.from}`), fwd!.from);
    }
    const body = enc.encode(JSON.stringify(out.ok ? { ok: true } : { ok: false, code: out.code, detail: out.detail }));
    if (m.reply) m.respond(body, { headers: this.signer.headers(body) });
  }

  /** The local half of routeOnce for a command whose sender another relay of the fleet authenticated. */
  private deliverHere(core: RelayCore, held: Held, sender: Principal, from: string): IngestOutcome {
    const ev = held.ev;
    const set = core.claimsBySession.get(ev.session!);
    const r = !core.controlEnabled
      ? core.refuse('unauthorized', 'the relay holding the session is watch-only (--no-auth): commands are never routed')
      : !can(sender, 'control')
        ? core.refuse('unauthorized', `'${sender.name}' may not send commands`)
        : !set?.size
          ? core.refuse('no-route', `no live connection claims session '${ev.session}' any more`)
          : set.size > 1
            ? core.refuse('ambiguous', `${set.size} live connections claim session '${ev.session}'`)
            : core.deliver(held, [...set][0], sender);
    core.record(ev, sender.name, r, from);
    return r;
  }

  stop(): void {
    for (const s of this.subs.values()) s.unsubscribe();
    this.subs.clear();
  }
}

function readForwarded(data: Uint8Array): Forwarded | undefined {
  try {
    const f = JSON.parse(dec.decode(data)) as Forwarded;
    if (typeof f?.from !== 'string' || typeof f.raw !== 'string' || typeof f.by?.name !== 'string' || !Array.isArray(f.by.scopes)) return undefined;
    return { from: f.from, raw: f.raw, by: { name: f.by.name, scopes: f.by.scopes.filter((s): s is Scope => (SCOPES as readonly string[]).includes(s)) } };
  } catch {
    return undefined;
  }
}
