// Web Push inside `hookmap up`: it watches the relay for the moments worth a
// push (a held request, and the opt-in alerts), asks the escalation policy
// when, and sends each device its own encrypted message with one-time action
// credentials. When a request settles anywhere (the terminal, the inbox, a
// rule, a timeout) its credentials die and each notification that went out
// is replaced by one saying so. Nothing here is on a hook's path: the relay
// hands events over after the hook was answered or held, and sends run in
// the background (sender.ts).
import { createHash } from 'node:crypto';
import { basename } from 'node:path';
import type { CaptureLevel } from '../aep/schemas.ts';
import type { Daemon } from '../daemon/daemon.ts';
import type { AepEvent, Relay } from '../relay/index.ts';
import { ActionCredentials } from './credentials.ts';
import { DeviceBook, type Device } from './devices.ts';
import { escalate, type PushConfig } from './escalation.ts';
import { ensureVapidKeys, type VapidKeys } from './keys.ts';
import { cardUrl, requestText, type Action, type AlertKind, type Message } from './payload.ts';
import { Presence } from './presence.ts';
import { PushSender, type SendResult } from './sender.ts';

export interface PushServiceOptions {
  home: string;
  config: PushConfig;
  relay: Pick<Relay, 'subscribe'>;
  daemons: ReadonlyMap<string, Daemon>;
  /** Is this device's principal still valid (its token not revoked)? */
  live: (d: Device) => boolean;
  /** Can an "Allow always" be offered (a rule book exists)? */
  rules: boolean;
  say?: (line: string) => void;
  /** Observes each finished send (tests, bench). */
  sent?: (device: Device, m: Message, r: SendResult) => void;
  now?: () => number;
  backoffMs?: number;
}

export interface OpenRequest {
  id: string;
  session: string;
  agent: string;
  kind: 'permission' | 'form' | 'gate';
  expires: number;
  timer?: ReturnType<typeof setTimeout>;
  /** The devices it was pushed to (each gets the settled message). */
  pushed: Set<string>;
}

const TYPES = ['control.accepted', 'control.rejected', 'attention.requested', 'attention.answered', 'attention.resolved', 'attention.timeout', 'run.failed', 'session.ended', 'run.finished', 'progress.status'];
const ACTIONS: Record<string, Action> = { allow: { action: 'allow', title: 'Allow' }, deny: { action: 'deny', title: 'Deny' }, always: { action: 'always', title: 'Allow always' } };
/** A request's notification lives at most this long at the push service when its request has no deadline. */
const DEFAULT_WINDOW_MS = 55_000;
const topicOf = (tag: string) => createHash('sha256').update(tag).digest('base64url').slice(0, 32);

export class PushService {
  readonly devices: DeviceBook;
  readonly credentials: ActionCredentials;
  readonly presence: Presence;
  readonly open = new Map<string, OpenRequest>();
  private readonly sender: PushSender;
  private readonly answeredBy = new Map<string, string>();
  private readonly acks = new Map<string, (ev: AepEvent) => void>();
  private sub?: { close(): void };
  private keys: VapidKeys;
  private readonly now: () => number;

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

  /** Is the token this device was registered with still valid? */
  isLive(d: Device): boolean {
    return this.o.live(d);
  }

  get capture(): CaptureLevel {
    return this.o.config.capture ?? 'metadata';
  }

  start(): void {
    this.sub = this.o.relay.subscribe({ filter: { type: TYPES }, live: true }, (ev) => this.onEvent(ev));
  }

  close(): void {
    this.sub?.close();
    for (const r of this.open.values()) if (r.timer) clearTimeout(r.timer);
    this.open.clear();
    this.sender.close();
  }

  /** A message to every device (or the one named): `hookmap push test`, the inbox's Test button. */
  test(name?: string): Promise<{ device: string; result: SendResult }[]> {
    const list = this.devices.list().filter((d) => !name || d.name === name);
    const m: Message = { type: 'test', tag: 'hookmap-test', title: 'hookmap', body: 'Notifications from hookmap reach this device.', url: '/' };
    return Promise.all(list.map(async (d) => ({ device: d.name, result: await this.sender.send(d, m, { ttlS: 60, urgency: 'normal', deadline: this.now() + 60_000 }) })));
  }

  /** The relay's ack of a command this service sent (undefined when none came within `ms`). */
  ack(command: string, ms: number): Promise<AepEvent | undefined> {
    return new Promise((resolve) => {
      const t = setTimeout(() => {
        this.acks.delete(command);
        resolve(undefined);
      }, ms);
      this.acks.set(command, (ev) => {
        clearTimeout(t);
        this.acks.delete(command);
        resolve(ev);
      });
    });
  }

  private onEvent(ev: AepEvent): void {
    try {
      if (ev.type === 'control.accepted' || ev.type === 'control.rejected') this.acks.get(String(ev.cause ?? ''))?.(ev);
      else if (ev.type === 'attention.requested') this.requested(ev);
      else if (ev.type === 'attention.answered') this.answeredBy.set(String(ev.subject ?? ''), String((ev.data as any)?.by ?? ''));
      else if (ev.type === 'attention.resolved' || ev.type === 'attention.timeout') this.settled(ev);
      else this.alert(ev);
    } catch (e) {
      this.o.say?.(`push: ${ev.type} ${ev.id}: ${(e as Error).message}`);
    }
  }

  private requested(ev: AepEvent): void {
    const d = (ev.data ?? {}) as Record<string, any>;
    const kind = d.kind === 'form' ? 'form' : 'permission';
    const agent = String(ev.agent ?? '');
    const hold = this.o.daemons.get(agent)?.pending().find((h) => h.id === ev.id);
    const deadline = Date.parse(String(d.expires_at ?? ''));
    const r: OpenRequest = { id: ev.id, session: String(ev.session ?? ''), agent, kind: hold?.kind ?? kind, expires: Number.isFinite(deadline) ? deadline : this.now() + DEFAULT_WINDOW_MS, pushed: new Set() };
    const w = escalate(this.o.config, r.kind === 'form' ? 'question' : 'permission', agent, { now: new Date(this.now()), inboxVisible: this.presence.visible });
    if (!w.push || this.devices.list().length === 0) return;
    this.open.set(r.id, r);
    const fire = () => void this.pushRequest(r).catch((e) => this.o.say?.(`push: ${r.id}: ${(e as Error).message}`));
    if (w.afterMs === 0) fire();
    else r.timer = setTimeout(fire, w.afterMs);
  }

  private async pushRequest(r: OpenRequest): Promise<void> {
    r.timer = undefined;
    if (!this.open.has(r.id)) return;
    const daemon = this.o.daemons.get(r.agent);
    const hold = daemon?.pending().find((h) => h.id === r.id);
    const asked = hold && hold.kind !== 'form' ? await daemon!.askOf(r.id) : undefined;
    const s = asked?.subject;
    const text = requestText({ kind: r.kind, agent: r.agent, tool: s?.tool, project: s?.project ? basename(s.project) : undefined, text: s?.command }, this.capture, (t) => daemon?.redactor.text(t) ?? '');
    const options = hold?.view.options.map((o) => o.id) ?? [];
    for (const device of this.devices.list()) {
      if (!this.open.has(r.id)) return;
      if (!this.o.live(device)) continue;
      const control = device.principal.scopes.includes('control');
      // a form's answer needs its fields: the tap opens the card; a read-only device gets no buttons
      const actions = control && r.kind !== 'form' ? [ACTIONS.allow, ACTIONS.deny, ...(this.o.rules && asked ? [ACTIONS.always] : [])] : [];
      const credential = actions.length ? this.credentials.issue({ request: r.id, session: r.session, device: device.id, expires: r.expires }) : undefined;
      const m: Message = { type: 'request', tag: r.id, title: text.title, body: `${text.body} · ${timeLeft(r.expires - this.now())} to answer`, request: r.id, session: r.session, actions, credential, expires: r.expires, url: cardUrl(r.session) };
      r.pushed.add(device.id);
      void this.sender.send(device, m, { ttlS: Math.ceil((r.expires - this.now()) / 1000), urgency: 'high', topic: topicOf(r.id), deadline: r.expires });
    }
    if (options.length === 0 && !hold) this.o.say?.(`push: ${r.id} is not held by this up (pushed without its details)`);
  }

  private settled(ev: AepEvent): void {
    const id = String(ev.subject ?? ev.cause ?? '');
    this.credentials.settle(id);
    const r = this.open.get(id);
    const by = this.answeredBy.get(id);
    this.answeredBy.delete(id);
    if (!r) return;
    this.open.delete(id);
    if (r.timer) clearTimeout(r.timer);
    if (r.pushed.size === 0) return;
    const res = (ev.data as any)?.resolution;
    const body = ev.type === 'attention.timeout' ? 'Timed out: the agent decided by its own rules' : by?.startsWith('rule:') ? `Answered by ${by}` : by ? `Answered by ${by}` : res === 'dismissed' ? 'Answered in the terminal' : 'Settled';
    const m: Message = { type: 'settled', tag: id, title: `${r.agent}: request settled`, body, request: id, session: r.session, url: cardUrl(r.session) };
    for (const device of this.devices.list()) {
      if (r.pushed.has(device.id)) void this.sender.send(device, m, { ttlS: 600, urgency: 'normal', topic: topicOf(id), deadline: this.now() + 60_000 });
    }
  }

  private alert(ev: AepEvent): void {
    const kind = alertKind(ev);
    if (!kind) return;
    const agent = String(ev.agent ?? '');
    const w = escalate(this.o.config, kind, agent, { now: new Date(this.now()), inboxVisible: this.presence.visible });
    if (!w.push) return;
    const words: Record<string, string> = { run_failed: 'a run failed', idle: 'is waiting for your input', session_error: 'the session ended on an error', turn_finished: 'finished its turn' };
    const tag = `${ev.session ?? agent}:${kind}`;
    const m: Message = { type: 'alert', tag, title: `${agent}: ${words[kind]}`, body: kind === 'run_failed' || kind === 'session_error' ? 'Open the inbox for the details' : 'Open the inbox to continue', session: ev.session, url: cardUrl(ev.session) };
    const send = () => {
      for (const d of this.devices.list()) if (this.o.live(d)) void this.sender.send(d, m, { ttlS: 3600, urgency: 'normal', topic: topicOf(tag), deadline: this.now() + 120_000 });
    };
    if (w.afterMs === 0) send();
    else setTimeout(send, w.afterMs).unref?.();
  }
}

/** "55 s", "9 min": how long the request still waits (the agent's own dialog decides after). */
export function timeLeft(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  return s < 120 ? `${s} s` : `${Math.round(s / 60)} min`;
}

/** Which opt-in alert an event is, if any. */
export function alertKind(ev: AepEvent): AlertKind | undefined {
  const d = (ev.data ?? {}) as Record<string, unknown>;
  if (ev.type === 'run.failed') return 'run_failed';
  if (ev.type === 'session.ended') return d.reason === 'error' ? 'session_error' : undefined;
  if (ev.type === 'run.finished') return 'turn_finished';
  if (ev.type === 'progress.status' && (ev.subject === 'idle_prompt' || d.status === 'idle')) return 'idle';
  return undefined;
}
