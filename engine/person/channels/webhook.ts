// A signed webhook for everything else (Discord, Teams, Home Assistant, a
// pager): a POST of a small JSON document per moment, signed with
// HMAC-SHA256 over `<timestamp>.<body>` with the secret from a file:
//
//   X-Hookmap-Timestamp: 1764590400          (Unix seconds)
//   X-Hookmap-Signature: sha256=<hex HMAC-SHA256(secret, "<timestamp>.<body>")>
//
// A receiver recomputes it (constant-time compare) and refuses a timestamp
// more than 300 s from its clock (the replay window). A request's document
// carries one-time action URLs (POST {credential, action} to this up's
// /push/action), answered as the webhook's principal. Retried with backoff.
import { createHmac } from 'node:crypto';
import { readTokenFile } from '../../runtime/auth/tokens.ts';
import { cardText } from './card.ts';
import { ChannelHealth, type Channel, type ChannelDeps } from './channel.ts';
import type { WebhookConfig } from './config.ts';
import { classifyPost, post } from './http-post.ts';
import type { Alert, Moment, Settlement } from '../push/moments.ts';
import { withRetry } from './retry.ts';

export const REPLAY_WINDOW_S = 300;

export function signature(secret: string, timestamp: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

export class WebhookChannel implements Channel {
  readonly name = 'webhook';
  private secret?: string;
  readonly health: ChannelHealth;

  constructor(
    private readonly c: WebhookConfig,
    private readonly d: ChannelDeps,
    private readonly base: string,
  ) {
    this.health = new ChannelHealth(d.say, 'webhook');
  }

  async start(): Promise<void> {
    this.secret = readTokenFile(this.c.secretFile, 'webhook secret file');
  }

  async close(): Promise<void> {}

  async test(): Promise<{ ok: boolean; detail: string }> {
    try {
      await this.start();
      await this.send({ type: 'hookmap.test', text: 'Documents for held requests come to this URL.' }, Date.now() + 15_000);
      return { ok: true, detail: `posted to ${new URL(this.c.url).host}` };
    } catch (e) {
      return { ok: false, detail: (e as Error).message };
    }
  }

  async request(m: Moment): Promise<void> {
    const t = cardText(m, this.c.capture ?? 'metadata');
    const actions =
      m.kind === 'form' || m.kind === 'watch'
        ? []
        : (['allow', 'deny'] as const).map((action) => ({
            action,
            method: 'POST',
            url: `${this.base}/push/action`,
            body: { credential: this.d.credential(m), action, request: m.id },
          }));
    const doc = {
      type: 'hookmap.request',
      request: {
        id: m.id,
        session: m.session,
        agent: m.agent,
        kind: m.kind,
        tool: m.tool ?? null,
        project: m.project ?? null,
        expires_at: new Date(m.expires).toISOString(),
      },
      title: t.title,
      text: t.body,
      meta: t.meta,
      inbox: `${this.base}/#/s/${encodeURIComponent(m.session)}`,
      actions,
    };
    await this.deliver(doc, m.expires, m.id);
  }

  async settled(m: Moment, s: Settlement): Promise<void> {
    await this.deliver(
      { type: 'hookmap.settled', request: { id: m.id, session: m.session, agent: m.agent }, how: s.how, by: s.by ?? null, text: s.text },
      Date.now() + 60_000,
      m.id,
    );
  }

  async alert(a: Alert): Promise<void> {
    await this.deliver({ type: 'hookmap.alert', kind: a.kind, agent: a.agent, session: a.session ?? null, text: a.title }, Date.now() + 60_000, a.kind);
  }

  private async deliver(doc: Record<string, unknown>, deadline: number, what: string): Promise<void> {
    try {
      await this.send(doc, deadline);
    } catch (e) {
      this.health.problem(`${doc.type}:${(e as Error).message}`, `could not deliver ${doc.type} (${what}): ${(e as Error).message}`);
    }
  }

  private send(doc: Record<string, unknown>, deadline: number): Promise<void> {
    const secret = this.secret;
    if (!secret) return Promise.reject(new Error('not started'));
    const body = JSON.stringify(doc);
    // each attempt signs anew: a retry minutes later must still fall inside the receiver's replay window
    return withRetry(
      () => {
        const ts = String(Math.floor(Date.now() / 1000));
        return post(this.c.url, body, { 'content-type': 'application/json', 'x-hookmap-timestamp': ts, 'x-hookmap-signature': signature(secret, ts, body) });
      },
      classifyPost,
      deadline,
    );
  }
}
