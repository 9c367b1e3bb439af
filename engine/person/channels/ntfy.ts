// ntfy (a self-hostable push service): a notification per held request on
// the configured topic, with `http` action buttons that POST this up's
// action endpoint with a one-time action credential bound to the request
// (the kind Web Push's buttons use: engine/person/push/action.ts); answers count as
// the channel's principal. ntfy cannot edit a message: a settled request gets
// a follow-up ("Answered by alex"). Access token from a file.
import { readTokenFile } from '../../runtime/auth/tokens.ts';
import { cardText } from './card.ts';
import { ChannelHealth, type Channel, type ChannelDeps } from './channel.ts';
import type { NtfyConfig } from './config.ts';
import { classifyPost, post } from './http-post.ts';
import type { Alert, Moment, Settlement } from '../push/moments.ts';
import { withRetry } from './retry.ts';

export class NtfyChannel implements Channel {
  readonly name = 'ntfy';
  private token?: string;
  readonly health: ChannelHealth;

  constructor(
    private readonly c: NtfyConfig,
    private readonly d: ChannelDeps,
    private readonly base: string,
  ) {
    this.health = new ChannelHealth(d.say, 'ntfy');
  }

  async start(): Promise<void> {
    if (this.c.tokenFile) this.token = readTokenFile(this.c.tokenFile, 'ntfy access token file');
  }

  async close(): Promise<void> {}

  async test(): Promise<{ ok: boolean; detail: string }> {
    try {
      await this.start();
      await this.publish({ title: 'hookmap', message: 'Notifications for held requests come to this topic.' }, Date.now() + 15_000);
      return { ok: true, detail: `published to ${this.c.topic}` };
    } catch (e) {
      return { ok: false, detail: (e as Error).message };
    }
  }

  async request(m: Moment): Promise<void> {
    const t = cardText(m, this.c.capture ?? 'metadata');
    const actions =
      m.kind === 'form' || m.kind === 'watch'
        ? [{ action: 'view', label: 'Open the inbox', url: `${this.base}/#/s/${encodeURIComponent(m.session)}` }]
        : (['allow', 'deny'] as const).map((action) => {
            // one credential per button: pressing one spends it, the other still answers nothing twice (the request settles)
            const credential = this.d.credential(m);
            return {
              action: 'http',
              label: action === 'allow' ? 'Allow' : 'Deny',
              url: `${this.base}/push/action`,
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify({ credential, action, request: m.id }),
              clear: true,
            };
          });
    try {
      await this.publish({ title: t.title, message: `${t.body}\n${t.meta}`, priority: 4, tags: ['hookmap'], actions }, m.expires);
    } catch (e) {
      this.health.problem(`send:${(e as Error).message}`, `could not publish the request ${m.id}: ${(e as Error).message}`);
    }
  }

  async settled(m: Moment, s: Settlement): Promise<void> {
    try {
      await this.publish({ title: `${m.agent}: request settled`, message: s.text, priority: 2, tags: ['hookmap'] }, Date.now() + 60_000);
    } catch (e) {
      this.health.problem(`settled:${(e as Error).message}`, `could not publish a settled request: ${(e as Error).message}`);
    }
  }

  async alert(a: Alert): Promise<void> {
    try {
      await this.publish({ title: a.title, message: 'Open the inbox for the details', priority: 3, tags: ['hookmap'] }, Date.now() + 60_000);
    } catch (e) {
      this.health.problem(`alert:${(e as Error).message}`, `could not publish an alert: ${(e as Error).message}`);
    }
  }

  private publish(doc: Record<string, unknown>, deadline: number): Promise<void> {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (this.token) headers.authorization = `Bearer ${this.token}`;
    const body = JSON.stringify({ topic: this.c.topic, ...doc });
    return withRetry(() => post(`${this.c.server}/`, body, headers), classifyPost, deadline);
  }
}
