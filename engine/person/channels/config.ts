// The `channels:` block of the up config (docs/channels.md): where cards go
// and who may answer them. Secrets are named by file (0600, read at start,
// never in argv, logs or messages).
//
//   channels:
//     telegram:
//       token_file: ~/.hookmap/telegram-token
//       chat_ids: [123456789]           # where cards go
//       user_ids: [123456789]           # who may press a button or reply
//       users: { 123456789: alex }      # the principal each answers as (default telegram:<id>)
//       api_root: https://api.telegram.org   # a self-hosted Bot API server elsewhere
//       webhook: { url: https://laptop.tail1234.ts.net/channels/telegram, secret_token_file: F }   # instead of long polling
//     slack: { app_token_file: F, bot_token_file: F, channel: C0123, users: { U0123: alex }, api_url: https://slack.com/api/ }
//     ntfy: { server: https://ntfy.example, topic: hookmap-alex, token_file: F, principal: alex }
//     webhook: { url: https://hooks.example/x, secret_file: F, principal: alex }
//
// Each also takes `capture: metadata | redacted | full` (default: push.capture, else metadata).
// Every key is specified once, in schema.ts (part of the up config's one schema); this module turns a
// checked block into what the channels run with.
import { homedir } from 'node:os';
import { resolve } from 'node:path';
import type { CaptureLevel } from '../../core/aep/schemas.ts';
import { DEFAULT_TELEGRAM_API_ROOT } from '../../core/config/defaults.ts';
import type { ChannelsBlock } from './schema.ts';

export interface TelegramConfig {
  tokenFile: string;
  chatIds: number[];
  userIds: number[];
  users: Record<string, string>;
  apiRoot: string;
  capture?: CaptureLevel;
  /**
   * Webhook mode: Telegram POSTs updates to `url` (this up's /channels/telegram, as the Bot API reaches it), with
   * the secret token from the file in a header; absent: long polling.
   */
  webhook?: { url: string; secretFile: string };
}
export interface SlackConfig {
  appTokenFile: string;
  botTokenFile: string;
  channel: string;
  users: Record<string, string>;
  apiUrl?: string;
  capture?: CaptureLevel;
}
export interface NtfyConfig {
  server: string;
  topic: string;
  tokenFile?: string;
  principal: string;
  capture?: CaptureLevel;
}
export interface WebhookConfig {
  url: string;
  secretFile: string;
  principal: string;
  capture?: CaptureLevel;
}

export interface ChannelsConfig {
  telegram?: TelegramConfig;
  slack?: SlackConfig;
  ntfy?: NtfyConfig;
  webhook?: WebhookConfig;
}

export class ChannelConfigError extends Error {}

/** Every secret file the channels read (bot tokens, webhook secrets): hookmap's own files, which the floor keeps for a person. */
export function channelSecretFiles(c: ChannelsConfig | undefined): string[] {
  if (!c) return [];
  const files = [
    c.telegram?.tokenFile,
    c.telegram?.webhook?.secretFile,
    c.slack?.appTokenFile,
    c.slack?.botTokenFile,
    c.ntfy?.tokenFile,
    c.webhook?.secretFile,
  ];
  return files.filter((f): f is string => typeof f === 'string' && f !== '');
}

const expand = (p: string, base: string) => resolve(base, p.replace(/^~(?=$|\/)/, homedir()));

/** What the schema leaves to us of a URL: no credentials in it, no trailing slash. */
const url = (s: string, where: string): string => {
  const u = new URL(s);
  if (u.username || u.password) throw new ChannelConfigError(`${where} must not carry credentials (use the channel's token file)`);
  return s.trim().replace(/\/+$/, '');
};

/**
 * The `channels:` block, checked by its schema (schema.ts, part of the up config's: every key, type, URL and
 * pattern), as the channels take it; `base`: the config file's folder (relative paths are relative to it).
 */
export function channelsConfigOf(doc: ChannelsBlock | undefined | null, base: string, where = 'channels'): ChannelsConfig {
  if (!doc) return {};
  const out: ChannelsConfig = {};
  const { telegram: t, slack: s, ntfy: n, webhook: h } = doc;
  if (t) {
    const w = `${where}.telegram`;
    const webhook = t.webhook && { url: url(t.webhook.url, `${w}.webhook.url`), secretFile: expand(t.webhook.secret_token_file, base) };
    if (webhook && !/\/channels\/telegram$/.test(webhook.url))
      throw new ChannelConfigError(
        `${w}.webhook.url is where Telegram reaches this up's /channels/telegram (e.g. https://laptop.tail1234.ts.net/channels/telegram)`,
      );
    out.telegram = {
      tokenFile: expand(t.token_file, base),
      chatIds: t.chat_ids,
      userIds: t.user_ids,
      users: t.users ?? {},
      apiRoot: t.api_root === undefined ? DEFAULT_TELEGRAM_API_ROOT : url(t.api_root, `${w}.api_root`),
      capture: t.capture,
      webhook,
    };
  }
  if (s) {
    const w = `${where}.slack`;
    if (!Object.keys(s.users).length) throw new ChannelConfigError(`${w}.users maps each Slack user id that may answer to a principal name (nobody else can)`);
    out.slack = {
      appTokenFile: expand(s.app_token_file, base),
      botTokenFile: expand(s.bot_token_file, base),
      channel: s.channel.trim(),
      users: s.users,
      apiUrl: s.api_url === undefined ? undefined : `${url(s.api_url, `${w}.api_url`)}/`,
      capture: s.capture,
    };
  }
  if (n) {
    out.ntfy = {
      server: url(n.server, `${where}.ntfy.server`),
      topic: n.topic,
      tokenFile: n.token_file === undefined ? undefined : expand(n.token_file, base),
      principal: n.principal ?? 'ntfy',
      capture: n.capture,
    };
  }
  if (h) {
    out.webhook = {
      url: url(h.url, `${where}.webhook.url`),
      secretFile: expand(h.secret_file, base),
      principal: h.principal ?? 'webhook',
      capture: h.capture,
    };
  }
  return out;
}
