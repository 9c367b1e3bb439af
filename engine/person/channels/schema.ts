// The up config's `channels:` block as a person writes it: the part of the
// one up config schema (engine/app/up-schema.ts) naming where cards go and
// who may answer them. config.ts turns a checked block into ChannelsConfig
// (paths resolved against the config file's folder).
import { z } from 'zod';
import { DEFAULT_TELEGRAM_API_ROOT } from '../../core/config/defaults.ts';

/** The channel kinds `channels:` takes; any other key is an unknown channel. */
export const CHANNEL_KINDS = ['telegram', 'slack', 'ntfy', 'webhook'] as const;

const file = (what: string) => z.string().trim().min(1).describe(what);
const httpUrl = (what: string) => z.url({ protocol: /^https?$/ }).describe(what);
const principalName = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._:@-]{0,63}$/, 'a principal name (letters, digits, . _ : @ -)');
const ids = (what: string) => z.array(z.number().int()).min(1).describe(what);
const capture = z.enum(['metadata', 'redacted', 'full']).optional().describe('what a card may show (default: push.capture, else metadata)');

const telegram = z
  .strictObject({
    token_file: file('the bot token, in a file (0600)'),
    chat_ids: ids('where cards go'),
    user_ids: ids('who may press a button or reply'),
    users: z.record(z.string(), principalName).optional().describe('the principal each user answers as (default telegram:<id>)'),
    api_root: httpUrl('a self-hosted Bot API server').optional().meta({ default: DEFAULT_TELEGRAM_API_ROOT }),
    capture,
    webhook: z
      .strictObject({ url: httpUrl("this up's /channels/telegram, as the Bot API reaches it"), secret_token_file: file('the secret token, in a file') })
      .optional()
      .describe('Telegram POSTs updates here instead of long polling'),
  })
  .meta({ id: 'telegram' })
  .describe('a Telegram bot (docs/channels.md)');
const slack = z
  .strictObject({
    app_token_file: file('the Socket Mode app token, in a file'),
    bot_token_file: file('the bot token, in a file'),
    channel: z.string().trim().min(1).describe('the channel id cards go to'),
    users: z.record(z.string(), principalName).describe('each Slack user id that may answer, to the principal it answers as (nobody else can)'),
    api_url: httpUrl('the Web API base (a stand-in elsewhere)').optional(),
    capture,
  })
  .meta({ id: 'slack' })
  .describe('a Slack app over Socket Mode (docs/channels.md)');
const ntfy = z
  .strictObject({
    server: httpUrl('the ntfy server'),
    topic: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, "1-64 letters, digits, '_' or '-'"),
    token_file: file('an access token, in a file').optional(),
    principal: principalName.optional().meta({ default: 'ntfy' }),
    capture,
  })
  .meta({ id: 'ntfy' })
  .describe('an ntfy topic (docs/channels.md)');
const webhook = z
  .strictObject({
    url: httpUrl('where cards are POSTed'),
    secret_file: file('the signing secret, in a file'),
    principal: principalName.optional().meta({ default: 'webhook' }),
    capture,
  })
  .meta({ id: 'webhook' })
  .describe('a signed webhook (docs/channels.md)');

export const ChannelsBlockSchema = z
  .strictObject({ telegram: telegram.optional(), slack: slack.optional(), ntfy: ntfy.optional(), webhook: webhook.optional() })
  .describe('cards to chats, answered by button or reply (docs/channels.md); secrets are named by file, never inline');

export type ChannelsBlock = z.infer<typeof ChannelsBlockSchema>;
