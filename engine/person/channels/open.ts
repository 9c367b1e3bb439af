// The configured chat channels, built (nothing connects until start()).
import type { Channel, ChannelDeps } from './channel.ts';
import type { ChannelsConfig } from './config.ts';
import { NtfyChannel } from './ntfy.ts';
import { TelegramChannel } from './telegram.ts';
import { WebhookChannel } from './webhook.ts';
import { SlackChannel } from './slack.ts';

export const CHANNEL_NAMES = ['telegram', 'slack', 'ntfy', 'webhook'] as const;

/** `base`: where action links point (this up's address as a phone reaches it: --public-url, else its own). */
export function openChannels(c: ChannelsConfig, deps: (name: string) => ChannelDeps, base: string): Channel[] {
  const out: Channel[] = [];
  if (c.telegram) out.push(new TelegramChannel(c.telegram, deps('telegram')));
  if (c.slack) out.push(new SlackChannel(c.slack, deps('slack')));
  if (c.ntfy) out.push(new NtfyChannel(c.ntfy, deps('ntfy'), base));
  if (c.webhook) out.push(new WebhookChannel(c.webhook, deps('webhook'), base));
  return out;
}
