// `hookmap push key | list | revoke NAME | test [NAME] | add --subscription FILE [--name N]`:
// the devices Web Push reaches (engine/person/push). Each verb works on the files in
// $HOOKMAP_HOME/push/ directly, so it works whether or not `up` runs; a
// running `up` sees a change at once (a revoked device's actions are refused
// from then on). `test` sends from here with the same keys `up` uses.
import { readFileSync } from 'node:fs';
import { ownerTokenPath, OWNER, readTokenFile, tokenDigest, TokenFileError } from '../../runtime/auth/tokens.ts';
import { SCOPES } from '../../runtime/auth/principal.ts';
import { resolveTarget } from '../config.ts';
import { DeviceBook, DeviceError, parseSubscription } from '../../person/push/devices.ts';
import { ensureVapidKeys, PushKeyError } from '../../person/push/keys.ts';
import { deviceView } from '../../person/push/routes.ts';
import { PushSender } from '../../person/push/sender.ts';
import { ArgError, parseArgs } from '../args.ts';

const USAGE = `hookmap push key                     the VAPID public key devices subscribe with (made on first use)
hookmap push list [--json]           the devices that get pushes: name, push service, who registered it
hookmap push revoke NAME             remove a device: it gets nothing more, its buttons answer nothing
hookmap push test [NAME]             send a test notification (to every device, or to NAME)
hookmap push add --subscription FILE [--name N]
                                     register a PushSubscription JSON ({endpoint, keys: {p256dh, auth}})
                                     made elsewhere, under the owner token
`;

export async function run(argv: string[]): Promise<number> {
  const [verb, ...rest] = argv;
  const home = resolveTarget(process.env).home;
  try {
    if (verb === 'key') return key(home, rest);
    if (verb === 'list') return list(home, rest);
    if (verb === 'revoke') return revoke(home, rest);
    if (verb === 'test') return await test(home, rest);
    if (verb === 'add') return add(home, rest);
    if (verb === '--help' || verb === '-h' || verb === undefined) {
      process.stdout.write(USAGE);
      return verb === undefined ? 2 : 0;
    }
    throw new ArgError(`unknown verb '${verb}' (key, list, revoke, test, add)`);
  } catch (e) {
    if (e instanceof ArgError || e instanceof DeviceError || e instanceof PushKeyError || e instanceof TokenFileError) {
      process.stderr.write(`hookmap push: ${(e as Error).message}\n`);
      return e instanceof DeviceError && e.code === 'no-such-device' ? 1 : 2;
    }
    throw e;
  }
}

function key(home: string, argv: string[]): number {
  parseArgs(argv, {});
  const k = ensureVapidKeys(home);
  process.stdout.write(`${k.publicKey}\n`);
  if (k.created) process.stderr.write(`made a new VAPID key pair in ${k.path} (0600)\n`);
  return 0;
}

function list(home: string, argv: string[]): number {
  const { flags } = parseArgs(argv, { json: { type: 'boolean' } });
  const devices = new DeviceBook(home).list().map(deviceView);
  if (flags.json) {
    process.stdout.write(`${JSON.stringify({ devices })}\n`);
    return 0;
  }
  if (!devices.length) {
    process.stdout.write('no device gets pushes yet: press "Notify me" in the inbox on the device (hookmap open --qr)\n');
    return 0;
  }
  const w = Math.max(...devices.map((d) => d.name.length));
  for (const d of devices) process.stdout.write(`${d.name.padEnd(w)}  ${d.service}  by ${d.principal}  since ${d.created.slice(0, 10)}\n`);
  return 0;
}

function revoke(home: string, argv: string[]): number {
  const { positionals } = parseArgs(argv, {});
  if (positionals.length !== 1) throw new ArgError('usage: hookmap push revoke NAME');
  const d = new DeviceBook(home).revoke(positionals[0]);
  if (!d) throw new DeviceError('no-such-device', `no device named '${positionals[0]}' (hookmap push list)`);
  process.stdout.write(`revoked ${d.name}: it gets nothing more, and its notifications' buttons answer nothing\n`);
  return 0;
}

function add(home: string, argv: string[]): number {
  const { flags, positionals } = parseArgs(argv, { subscription: { type: 'string' }, name: { type: 'string' } });
  if (positionals.length || !flags.subscription) throw new ArgError('usage: hookmap push add --subscription FILE [--name N]');
  let doc: unknown;
  try {
    doc = JSON.parse(readFileSync(flags.subscription as string, 'utf8'));
  } catch (e) {
    throw new ArgError(`--subscription ${flags.subscription}: ${(e as Error).message}`);
  }
  const sub = parseSubscription(doc);
  const owner = readTokenFile(ownerTokenPath(home));
  const r = new DeviceBook(home).add(sub, { name: OWNER, scopes: [...SCOPES], key: tokenDigest(owner) }, flags.name as string | undefined);
  ensureVapidKeys(home);
  process.stdout.write(`${r.replaced ? 're-registered' : 'registered'} ${r.device.name} (${new URL(sub.endpoint).host}) under ${OWNER}\n`);
  return 0;
}

async function test(home: string, argv: string[]): Promise<number> {
  const { positionals } = parseArgs(argv, {});
  const name = positionals[0];
  const book = new DeviceBook(home);
  const devices = book.list().filter((d) => !name || d.name === name);
  if (!devices.length)
    throw new DeviceError(
      'no-such-device',
      name ? `no device named '${name}' (hookmap push list)` : 'no device is registered: press "Notify me" in the inbox on the device',
    );
  const keys = ensureVapidKeys(home);
  const sender = new PushSender({ keys: () => keys, gone: (d) => void book.revoke(d.id), maxAttempts: 2, backoffMs: 300 });
  let failed = 0;
  for (const d of devices) {
    const r = await sender.send(
      d,
      { type: 'test', tag: 'hookmap-test', title: 'hookmap', body: 'Notifications from hookmap reach this device.', url: '/' },
      { ttlS: 60, urgency: 'normal', deadline: Date.now() + 15_000 },
    );
    if (r.ok) process.stdout.write(`${d.name}: sent (the push service answered ${r.status})\n`);
    else {
      failed++;
      process.stdout.write(`${d.name}: NOT sent: ${r.detail}${r.gone ? ' (the subscription is gone: removed)' : ''}\n`);
    }
  }
  return failed ? 1 : 0;
}
