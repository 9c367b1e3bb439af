// Sending one push (RFC 8030) to one device: the payload encrypted for the
// subscription (RFC 8291 aes128gcm) and signed with the VAPID key (RFC 8292)
// by web-push; the request itself sent here with fetch so that an http
// endpoint on loopback (a self-hosted push relay, the tests' push service)
// works like an https one, and so every send is bounded in time. Never on a
// hook's critical path: callers fire and forget. Failures retry with backoff
// until the message's deadline; a 404/410 (the subscription is gone) removes
// the device, said once; any other refusal is said once per device and status.
import type { Device } from './devices.ts';
import type { VapidKeys } from './keys.ts';
import { encodeMessage, type Message } from './payload.ts';

export interface SendOptions {
  /** Seconds the push service may hold the message for an offline device. */
  ttlS: number;
  urgency: 'very-low' | 'low' | 'normal' | 'high';
  /** Replaces an undelivered message with the same topic at the push service (RFC 8030 §5.4). */
  topic?: string;
  /** Stop retrying at this epoch ms (the request's end). */
  deadline: number;
}

export type SendResult = { ok: true; status: number; attempts: number } | { ok: false; status?: number; gone?: boolean; attempts: number; detail: string };

export interface SenderOptions {
  keys: () => VapidKeys;
  /** The subscription is gone (404/410): remove the device. */
  gone: (device: Device, status: number) => void;
  say?: (line: string) => void;
  /** One attempt's bound (default 5 s). */
  attemptTimeoutMs?: number;
  /** The first retry's wait (default 500 ms; doubled each time, at most 30 s). */
  backoffMs?: number;
  maxAttempts?: number;
  /** Observes every finished send (tests, bench). */
  sent?: (device: Device, m: Message, r: SendResult) => void;
}

const MAX_IN_FLIGHT = 16;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms).unref?.());

export class PushSender {
  private inFlight = 0;
  private readonly waiting: (() => void)[] = [];
  private readonly said = new Set<string>();
  private closed = false;

  constructor(private readonly o: SenderOptions) {}

  /** Send in the background; the promise is for whoever wants to know (never a hook). */
  send(device: Device, m: Message, s: SendOptions): Promise<SendResult> {
    const p = this.run(device, m, s).catch((e): SendResult => ({ ok: false, attempts: 0, detail: (e as Error).message }));
    void p.then((r) => this.o.sent?.(device, m, r));
    return p;
  }

  close(): void {
    this.closed = true;
    for (const w of this.waiting.splice(0)) w();
  }

  private async slot(): Promise<void> {
    if (this.inFlight < MAX_IN_FLIGHT) {
      this.inFlight++;
      return;
    }
    await new Promise<void>((r) => this.waiting.push(r));
    this.inFlight++;
  }

  private release(): void {
    this.inFlight--;
    this.waiting.shift()?.();
  }

  private async run(device: Device, m: Message, s: SendOptions): Promise<SendResult> {
    const max = this.o.maxAttempts ?? 6;
    let wait = this.o.backoffMs ?? 500;
    let last: SendResult = { ok: false, attempts: 0, detail: 'not sent' };
    for (let attempt = 1; attempt <= max && !this.closed; attempt++) {
      await this.slot();
      let status: number | undefined;
      let retryAfterMs: number | undefined;
      try {
        const k = this.o.keys();
        const ttl = Math.max(0, Math.min(s.ttlS, Math.floor((s.deadline - Date.now()) / 1000)));
        // loaded at the first send, not with `up`
        const webpush = (await import('web-push')).default;
        const d = webpush.generateRequestDetails(device.subscription, encodeMessage(m), {
          vapidDetails: { subject: k.subject, publicKey: k.publicKey, privateKey: k.privateKey },
          TTL: ttl,
          urgency: s.urgency,
          topic: s.topic,
          contentEncoding: 'aes128gcm',
        });
        const res = await fetch(d.endpoint, {
          method: 'POST',
          headers: d.headers as Record<string, string>,
          body: new Uint8Array(d.body as Buffer),
          signal: AbortSignal.timeout(this.o.attemptTimeoutMs ?? 5000),
          redirect: 'error',
        });
        status = res.status;
        await res.arrayBuffer().catch(() => undefined);
        if (status >= 200 && status < 300) return { ok: true, status, attempts: attempt };
        const ra = Number(res.headers.get('retry-after'));
        if (Number.isFinite(ra) && ra > 0) retryAfterMs = Math.min(ra * 1000, 60_000);
        last = { ok: false, status, attempts: attempt, detail: `the push service answered ${status}` };
      } catch (e) {
        last = {
          ok: false,
          attempts: attempt,
          detail: (e as Error).name === 'TimeoutError' ? 'the push service did not answer in time' : (e as Error).message,
        };
      } finally {
        this.release();
      }
      if (status === 404 || status === 410) {
        this.o.gone(device, status);
        return { ...last, gone: true };
      }
      if (status !== undefined && status !== 429 && status < 500) {
        this.once(`${device.id}:${status}`, `push to ${device.name}: the push service refused it (${status}); not retried`);
        return last;
      }
      const pause = retryAfterMs ?? wait;
      if (Date.now() + pause >= s.deadline) break;
      await sleep(pause);
      wait = Math.min(wait * 2, 30_000);
    }
    this.once(`${device.id}:failed`, `push to ${device.name}: not delivered (${last.detail}); retried until the request's end`);
    return last;
  }

  private once(key: string, line: string): void {
    if (this.said.has(key)) return;
    this.said.add(key);
    this.o.say?.(line);
  }
}
