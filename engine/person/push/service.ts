// Web Push as one sink of the moments worth reaching a person away from the
// desk (engine/person/push/moments.ts): each device gets its own encrypted
// message with one-time action credentials for a held request; when the
// request settles anywhere (the terminal, the inbox, a rule, a timeout) its
// credentials die and each notification that went out is replaced by one
// saying so. Sends run in the background (sender.ts): never on a hook's path.
import type { Audience } from '../../runtime/auth/people.ts';
import { createHash } from 'node:crypto';
import type { CaptureLevel } from '../../core/aep/schemas.ts';
import { offersAlways, type Alert, type Moment, type MomentSink, type Settlement } from './moments.ts';
import { ActionCredentials } from './credentials.ts';
import { DeviceBook, type Device } from './devices.ts';
import { ensureVapidKeys, type VapidKeys } from './keys.ts';
import { cardUrl, requestText, type Action, type Message } from './payload.ts';
import { Presence } from './presence.ts';
import { PushSender, type SendResult } from './sender.ts';
import { seenLine } from './ladder.ts';
import type { AepEvent } from '../../runtime/relay/index.ts';

export interface PushServiceOptions {
  home: string;
  /** What a notification may show (push.capture). */
  capture?: CaptureLevel;
  /** Is this device's principal still valid (its token not revoked)? */
  live: (d: Device) => boolean;
  /** May this device hear of this request (people: engine/runtime/auth/people.ts)? Absent: every device may. */
  reaches?: (d: Device, request: string, audience?: Audience) => boolean;
  /** The relay's ack of a command (the moments' watcher). */
  ack: (command: string, ms: number) => Promise<AepEvent | undefined>;
  say?: (line: string) => void;
  /** Observes each finished send (tests, bench). */
  sent?: (device: Device, m: Message, r: SendResult) => void;
  now?: () => number;
  backoffMs?: number;
}

export const ACTIONS: Record<string, Action> = {
  allow: { action: 'allow', title: 'Allow' },
  deny: { action: 'deny', title: 'Deny' },
  always: { action: 'always', title: 'Allow always' },
};
const topicOf = (tag: string) => createHash('sha256').update(tag).digest('base64url').slice(0, 32);

/** "55 s", "9 min": how long the request still waits (the agent's own dialog decides after). */
export function timeLeft(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  return s < 120 ? `${s} s` : `${Math.round(s / 60)} min`;
}

export class PushService implements MomentSink {
  readonly name = 'push';
  readonly devices: DeviceBook;
  readonly credentials: ActionCredentials;
  readonly presence: Presence;
  private readonly sender: PushSender;
  /** The devices each request was pushed to (each gets the settled message). */
  private readonly pushed = new Map<string, Map<string, { m: Message; base: string }>>();
  private keys: VapidKeys;
  private readonly now: () => number;

  /** A registered device: someone to push to. */
  reaches(): boolean {
    return this.devices.list().length > 0;
  }

  constructor(private readonly o: PushServiceOptions) {
    this.now = o.now ?? Date.now;
    this.keys = ensureVapidKeys(o.home);
    this.devices = new DeviceBook(o.home);
    this.credentials = new ActionCredentials(this.now);
    this.presence = new Presence(this.now);
    this.sender = new PushSender({
      keys: () => this.keys,
      gone: (d, status) => {
        if (this.devices.revoke(d.id)) o.say?.(`push: ${d.name} is gone (the push service answered ${status}): removed; subscribe again from that device`);
        this.credentials.forgetDevice(d.id);
      },
      say: o.say,
      sent: o.sent,
      backoffMs: o.backoffMs,
    });
  }

  get publicKey(): string {
    return this.keys.publicKey;
  }

  get capture(): CaptureLevel {
    return this.o.capture ?? 'metadata';
  }

  /** Is the token this device was registered with still valid? */
  isLive(d: Device): boolean {
    return this.o.live(d);
  }

  ack(command: string, ms: number): Promise<AepEvent | undefined> {
    return this.o.ack(command, ms);
  }

  close(): void {
    this.sender.close();
  }

  /** A message to every device (or the one named): `hookmap push test`, the inbox's Test button. */
  test(name?: string): Promise<{ device: string; result: SendResult }[]> {
    const list = this.devices.list().filter((d) => !name || d.name === name);
    const m: Message = { type: 'test', tag: 'hookmap-test', title: 'hookmap', body: 'Notifications from hookmap reach this device.', url: '/' };
    return Promise.all(
      list.map(async (d) => ({ device: d.name, result: await this.sender.send(d, m, { ttlS: 60, urgency: 'normal', deadline: this.now() + 60_000 }) })),
    );
  }

  request(r: Moment, audience?: Audience): void {
    const text = requestText({ kind: r.kind, agent: r.agent, tool: r.tool, project: r.project, text: r.text, words: r.words }, this.capture, r.redact);
    const to = this.pushed.get(r.id) ?? new Map<string, { m: Message; base: string }>();
    this.pushed.set(r.id, to);
    const seen = seenLine(r.seen);
    const base = `${r.kind === 'watch' ? text.body : `${text.body} · ${timeLeft(r.expires - this.now())} to answer`}${seen ? ` · ${seen}` : ''}`;
    for (const device of this.devices.list()) {
      if (to.has(device.id) || !this.o.live(device) || this.o.reaches?.(device, r.id, audience) === false) continue;
      const control = device.principal.scopes.includes('control');
      // a form's answer needs its fields: the tap opens the card; a read-only device gets no buttons
      const actions =
        control && r.kind !== 'form' && r.kind !== 'watch' ? [ACTIONS.allow, ACTIONS.deny, ...(offersAlways(r, this.capture) ? [ACTIONS.always] : [])] : [];
      const credential = actions.length ? this.credentials.issue({ request: r.id, session: r.session, device: device.id, expires: r.expires }) : undefined;
      const m: Message = {
        type: 'request',
        tag: r.id,
        title: text.title,
        body: `${base}${r.partial ? ` · ${r.partial}` : ''}`,
        request: r.id,
        session: r.session,
        actions,
        credential,
        expires: r.expires,
        url: cardUrl(r.session),
      };
      to.set(device.id, { m, base });
      void this.sender.send(device, m, { ttlS: Math.ceil((r.expires - this.now()) / 1000), urgency: 'high', topic: topicOf(r.id), deadline: r.expires });
    }
  }

  /** The request's words changed while it waits (1 of 2 allowed): each notification replaced (same tag and buttons), quietly. */
  updated(r: Moment): void {
    const to = this.pushed.get(r.id);
    for (const device of to?.size && r.partial ? this.devices.list() : []) {
      const was = to!.get(device.id);
      if (!was || !this.o.live(device)) continue;
      const m: Message = { ...was.m, body: `${was.base} · ${r.partial}` };
      to!.set(device.id, { m, base: was.base });
      void this.sender.send(device, m, { ttlS: Math.ceil((r.expires - this.now()) / 1000), urgency: 'normal', topic: topicOf(r.id), deadline: r.expires });
    }
  }

  settled(r: Moment, s: Settlement): void {
    this.credentials.settle(r.id);
    const to = this.pushed.get(r.id);
    this.pushed.delete(r.id);
    if (!to?.size) return;
    const m: Message = {
      type: 'settled',
      tag: r.id,
      title: `${r.agent}: request settled`,
      body: s.text,
      request: r.id,
      session: r.session,
      url: cardUrl(r.session),
    };
    for (const device of this.devices.list())
      if (to.has(device.id)) void this.sender.send(device, m, { ttlS: 600, urgency: 'normal', topic: topicOf(r.id), deadline: this.now() + 60_000 });
  }

  alert(a: Alert): void {
    const tag = `${a.session ?? a.agent}:${a.kind}`;
    const m: Message = {
      type: 'alert',
      tag,
      title: a.title,
      body: a.kind === 'run_failed' || a.kind === 'session_error' ? 'Open the inbox for the details' : 'Open the inbox to continue',
      session: a.session,
      url: cardUrl(a.session),
    };
    for (const d of this.devices.list())
      if (this.o.live(d)) void this.sender.send(d, m, { ttlS: 3600, urgency: 'normal', topic: topicOf(tag), deadline: this.now() + 120_000 });
  }
}
