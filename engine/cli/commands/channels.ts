// `hookmap channels list | test NAME --config F`: the chat channels of an up
// config (docs/channels.md). `test` sends one message through the channel
// as `hookmap up` would (its token file, its allow-list, its server), without
// polling, so it works beside a running up; exit 1 when it could not.
import { ConfigError, loadUpConfig } from '../../app/up-config.ts';
import { TokenFileError } from '../../runtime/auth/tokens.ts';
import { CHANNEL_NAMES, openChannels } from '../../person/channels/open.ts';
import type { ChannelDeps } from '../../person/channels/channel.ts';
import { ArgError, parseArgs } from '../args.ts';

const USAGE = `hookmap channels list --config F          the channels the up config names, and where each goes
hookmap channels test NAME --config F     send a test message through one (${CHANNEL_NAMES.join(', ')})
`;

export async function run(argv: string[]): Promise<number> {
  const [verb, ...rest] = argv;
  if (verb === '--help' || verb === '-h' || verb === undefined) {
    process.stdout.write(USAGE);
    return verb === undefined ? 2 : 0;
  }
  try {
    const { flags, positionals } = parseArgs(rest, { config: { type: 'string' } });
    if (!flags.config) throw new ArgError('--config F: the up config whose channels: block to use');
    const cfg = loadUpConfig(flags.config as string, process.env).channels ?? {};
    const said: string[] = [];
    const deps = (): ChannelDeps => ({ answer: undefined as never, moments: undefined as never, credential: () => '', say: (l) => said.push(l) });
    const channels = openChannels(cfg, deps, 'http://127.0.0.1:8787');
    if (verb === 'list') {
      if (!channels.length) process.stdout.write(`${flags.config} configures no channel (channels: ${CHANNEL_NAMES.join(', ')})\n`);
      for (const [name, c] of Object.entries(cfg)) process.stdout.write(`${name}  ${describe(name, c as Record<string, unknown>)}\n`);
      return 0;
    }
    if (verb !== 'test') throw new ArgError(`unknown verb '${verb}' (list, test)`);
    if (positionals.length !== 1) throw new ArgError(`usage: hookmap channels test NAME --config F (NAME: ${CHANNEL_NAMES.join(', ')})`);
    const ch = channels.find((c) => c.name === positionals[0]);
    if (!ch) throw new ArgError(`${flags.config} configures no ${positionals[0]} channel (it has: ${channels.map((c) => c.name).join(', ') || 'none'})`);
    const r = await ch.test();
    await ch.close();
    process.stdout.write(`${ch.name}: ${r.ok ? 'sent' : 'NOT sent'}: ${r.detail}\n`);
    for (const l of said) process.stderr.write(`${l}\n`);
    return r.ok ? 0 : 1;
  } catch (e) {
    if (e instanceof ArgError || e instanceof ConfigError || e instanceof TokenFileError) {
      process.stderr.write(`hookmap channels: ${(e as Error).message}\n`);
      return 2;
    }
    throw e;
  }
}

function describe(name: string, c: Record<string, unknown>): string {
  if (name === 'telegram') return `chats ${(c.chatIds as number[]).join(', ')}; may answer: ${(c.userIds as number[]).join(', ')}; ${c.apiRoot}`;
  if (name === 'slack') return `channel ${c.channel}; may answer: ${Object.keys(c.users as object).join(', ')}`;
  if (name === 'ntfy') return `${c.server} topic ${c.topic}; answers as ${c.principal}`;
  return `${new URL(String(c.url)).host}; answers as ${c.principal}`;
}
