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
import { homedir } from 'node:os';
import { resolve } from 'node:path';
import type { CaptureLevel } from '../aep/schemas.ts';
import { DEFAULT_TELEGRAM_API_ROOT } from '../config/defaults.ts';

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

const CAPTURES = ['metadata', 'redacted', 'full'];
const expand = (p: string, base: string) => resolve(base, p.replace(/^~(?=$|\/)/, homedir()));

function mapping(v: unknown, where: string, keys: string[]): Record<string, any> {
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw new ChannelConfigError(`${where} must be a mapping`);
  for (const k of Object.keys(v)) if (!keys.includes(k)) throw new ChannelConfigError(`${where}: unknown key '${k}' (known: ${keys.join(', ')})`);
  return v as Record<string, any>;
}
const str = (v: unknown, where: string): string => {
  if (typeof v !== 'string' || !v.trim()) throw new ChannelConfigError(`${where} is required (a non-empty string)`);
  return v.trim();
};
const url = (v: unknown, where: string): string => {
  const s = str(v, where);
  let u: URL;
  try {
    u = new URL(s);
  } catch {
    throw new ChannelConfigError(`${where} must be an http(s) URL (got ${JSON.stringify(s)})`);
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') throw new ChannelConfigError(`${where} must be an http(s) URL`);
  if (u.username || u.password) throw new ChannelConfigError(`${where} must not carry credentials (use the channel's token file)`);
  return s.replace(/\/+$/, '');
};
const ids = (v: unknown, where: string): number[] => {
  if (!Array.isArray(v) || !v.length || !v.every((x) => Number.isSafeInteger(x))) throw new ChannelConfigError(`${where} is a non-empty list of numeric ids`);
  return v as number[];
};
const names = (v: unknown, where: string): Record<string, string> => {
  if (v === undefined) return {};
  const m = mapping(v, where, Object.keys((v as object) ?? {}));
  for (const [k, n] of Object.entries(m))
    if (typeof n !== 'string' || !/^[A-Za-z0-9][A-Za-z0-9._:@-]{0,63}$/.test(n))
      throw new ChannelConfigError(`${where}.${k} must be a principal name (letters, digits, . _ : @ -)`);
  return m as Record<string, string>;
};
const capture = (v: unknown, where: string): CaptureLevel | undefined => {
  if (v === undefined) return undefined;
  if (!CAPTURES.includes(v as string)) throw new ChannelConfigError(`${where}.capture is one of ${CAPTURES.join(', ')}`);
  return v as CaptureLevel;
};
const principal = (v: unknown, dflt: string, where: string) => (v === undefined ? dflt : names({ p: v }, where).p);

/** `base`: the config file's folder (relative paths are relative to it). */
export function channelsConfigOf(doc: unknown, base: string, where = 'channels'): ChannelsConfig {
  if (doc === undefined || doc === null) return {};
  const o = mapping(doc, where, ['telegram', 'slack', 'ntfy', 'webhook']);
  const out: ChannelsConfig = {};
  if (o.telegram !== undefined) {
    const w = `${where}.telegram`;
    const t = mapping(o.telegram, w, ['token_file', 'chat_ids', 'user_ids', 'users', 'api_root', 'capture', 'webhook']);
    let webhook: TelegramConfig['webhook'];
    if (t.webhook !== undefined) {
      const h = mapping(t.webhook, `${w}.webhook`, ['url', 'secret_token_file']);
      webhook = { url: url(h.url, `${w}.webhook.url`), secretFile: expand(str(h.secret_token_file, `${w}.webhook.secret_token_file`), base) };
      if (!/\/channels\/telegram$/.test(webhook.url))
        throw new ChannelConfigError(
          `${w}.webhook.url is where Telegram reaches this up's /channels/telegram (e.g. https://laptop.tail1234.ts.net/channels/telegram)`,
        );
    }
    out.telegram = {
      tokenFile: expand(str(t.token_file, `${w}.token_file`), base),
      chatIds: ids(t.chat_ids, `${w}.chat_ids`),
      userIds: ids(t.user_ids, `${w}.user_ids`),
      users: names(t.users, `${w}.users`),
      apiRoot: t.api_root === undefined ? DEFAULT_TELEGRAM_API_ROOT : url(t.api_root, `${w}.api_root`),
      capture: capture(t.capture, w),
      webhook,
    };
  }
  if (o.slack !== undefined) {
    const w = `${where}.slack`;
    const s = mapping(o.slack, w, ['app_token_file', 'bot_token_file', 'channel', 'users', 'api_url', 'capture']);
    const users = names(s.users, `${w}.users`);
    if (!Object.keys(users).length) throw new ChannelConfigError(`${w}.users maps each Slack user id that may answer to a principal name (nobody else can)`);
    out.slack = {
      appTokenFile: expand(str(s.app_token_file, `${w}.app_token_file`), base),
      botTokenFile: expand(str(s.bot_token_file, `${w}.bot_token_file`), base),
      channel: str(s.channel, `${w}.channel`),
      users,
      apiUrl: s.api_url === undefined ? undefined : `${url(s.api_url, `${w}.api_url`)}/`,
      capture: capture(s.capture, w),
    };
  }
  if (o.ntfy !== undefined) {
    const w = `${where}.ntfy`;
    const n = mapping(o.ntfy, w, ['server', 'topic', 'token_file', 'principal', 'capture']);
    const topic = str(n.topic, `${w}.topic`);
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(topic)) throw new ChannelConfigError(`${w}.topic is 1-64 letters, digits, '_' or '-'`);
    out.ntfy = {
      server: url(n.server, `${w}.server`),
      topic,
      tokenFile: n.token_file === undefined ? undefined : expand(str(n.token_file, `${w}.token_file`), base),
      principal: principal(n.principal, 'ntfy', w),
      capture: capture(n.capture, w),
    };
  }
  if (o.webhook !== undefined) {
    const w = `${where}.webhook`;
    const h = mapping(o.webhook, w, ['url', 'secret_file', 'principal', 'capture']);
    out.webhook = {
      url: url(h.url, `${w}.url`),
      secretFile: expand(str(h.secret_file, `${w}.secret_file`), base),
      principal: principal(h.principal, 'webhook', w),
      capture: capture(h.capture, w),
    };
  }
  return out;
}
