// The devices that receive pushes: $HOOKMAP_HOME/push/devices.json (0600),
// one row per PushSubscription (endpoint, keys.p256dh, keys.auth: the
// browser's standard JSON) with its name and the principal it was registered
// under (a token's name, scopes and key: when that token is revoked, the
// device's actions are refused). `hookmap push add|list|revoke` edit the file
// directly; a running `up` re-reads it when it changes, so a revoke takes
// effect at once whether or not `up` runs.
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { writeAtomic } from '../../core/io/atomic.ts';
import { ensureDir } from '../../core/io/paths.ts';
import { pushDir } from './keys.ts';

export interface PushSubscriptionJson {
  endpoint: string;
  keys: { p256dh: string; auth: string };
}

export interface DevicePrincipal {
  name: string;
  scopes: string[];
  /** The key of the token it was proved with (its SHA-256), for liveness checks. */
  key: string;
}

export interface Device {
  id: string;
  name: string;
  subscription: PushSubscriptionJson;
  principal: DevicePrincipal;
  created: string;
}

export class DeviceError extends Error {
  constructor(
    readonly code: 'bad-subscription' | 'bad-name' | 'exists' | 'no-such-device' | 'unreadable',
    message: string,
  ) {
    super(message);
  }
}

export const devicesPath = (home: string) => join(pushDir(home), 'devices.json');
const NAME = /^[A-Za-z0-9][A-Za-z0-9._ -]{0,47}$/;
const LOOPBACK = new Set(['127.0.0.1', '[::1]', 'localhost']);
const MAX_DEVICES = 50;

/** A PushSubscription as a browser's toJSON() gives it, checked: an https endpoint (http only on loopback) and keys of the right sizes. */
export function parseSubscription(v: unknown): PushSubscriptionJson {
  const bad = (why: string) => new DeviceError('bad-subscription', `not a push subscription: ${why}`);
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw bad('expected {"endpoint": "https://...", "keys": {"p256dh": "...", "auth": "..."}}');
  const o = v as Record<string, any>;
  if (typeof o.endpoint !== 'string' || o.endpoint.length > 2048) throw bad('endpoint must be a URL of at most 2048 characters');
  let u: URL;
  try {
    u = new URL(o.endpoint);
  } catch {
    throw bad(`endpoint ${JSON.stringify(o.endpoint.slice(0, 80))} is not a URL`);
  }
  if (u.username || u.password) throw bad('endpoint must not carry credentials');
  if (u.protocol !== 'https:' && !(u.protocol === 'http:' && LOOPBACK.has(u.hostname)))
    throw bad(`endpoint must be https (http only on loopback, for a self-hosted push relay); got ${u.protocol}//${u.host}`);
  const keys = o.keys;
  if (!keys || typeof keys !== 'object') throw bad('keys.p256dh and keys.auth are missing');
  const b64 = (s: unknown, n: number, what: string) => {
    if (typeof s !== 'string' || !/^[A-Za-z0-9_-]+={0,2}$/.test(s) || Buffer.from(s, 'base64url').length !== n)
      throw bad(`${what} must be ${n} bytes, base64url`);
    return s.replace(/=+$/, '');
  };
  return { endpoint: u.toString(), keys: { p256dh: b64(keys.p256dh, 65, 'keys.p256dh'), auth: b64(keys.auth, 16, 'keys.auth') } };
}

/** A name for a device registered without one: the push service's host and a few random letters. */
export function defaultName(sub: PushSubscriptionJson, taken: (n: string) => boolean): string {
  const host =
    new URL(sub.endpoint).hostname.split('.').filter((p) => !['www', 'com', 'net', 'org', 'googleapis', 'push', 'services'].includes(p))[0] || 'device';
  for (;;) {
    const n = `${host.replace(/[^A-Za-z0-9-]/g, '').slice(0, 20) || 'device'}-${randomBytes(2).toString('hex')}`;
    if (!taken(n)) return n;
  }
}

export class DeviceBook {
  private devices: Device[] = [];
  private stamp = '';

  constructor(private readonly home: string) {}

  get file(): string {
    return devicesPath(this.home);
  }

  /** The devices as the file holds them now (re-read when it changed: a CLI revoke is seen at once). */
  list(): Device[] {
    this.refresh();
    return [...this.devices];
  }

  byId(id: string): Device | undefined {
    return this.list().find((d) => d.id === id);
  }

  add(sub: PushSubscriptionJson, principal: DevicePrincipal, name?: string, now = new Date()): { device: Device; replaced: boolean } {
    const list = this.list();
    if (name !== undefined && !NAME.test(name))
      throw new DeviceError('bad-name', `device name ${JSON.stringify(name)} must be 1-48 letters, digits, spaces, '.', '_' or '-'`);
    // the same browser subscribing again (a new key pair, or "Notify me" pressed twice) replaces its row
    const same = list.find((d) => d.subscription.endpoint === sub.endpoint);
    if (name !== undefined && list.some((d) => d.name === name && d !== same))
      throw new DeviceError('exists', `a device named '${name}' exists already (revoke it first, or choose another name)`);
    if (!same && list.length >= MAX_DEVICES) throw new DeviceError('bad-subscription', `${MAX_DEVICES} devices are registered already: revoke one first`);
    const device: Device = {
      id: same?.id ?? randomBytes(12).toString('base64url'),
      name: name ?? same?.name ?? defaultName(sub, (n) => list.some((d) => d.name === n)),
      subscription: sub,
      principal,
      created: now.toISOString(),
    };
    this.save([...list.filter((d) => d !== same), device]);
    return { device, replaced: !!same };
  }

  /** Remove by name (or id); false when there was none. */
  revoke(nameOrId: string): Device | undefined {
    const list = this.list();
    const d = list.find((x) => x.name === nameOrId) ?? list.find((x) => x.id === nameOrId);
    if (!d) return undefined;
    this.save(list.filter((x) => x !== d));
    return d;
  }

  private refresh(): void {
    const f = this.file;
    let now = 'absent';
    try {
      const st = statSync(f);
      now = `${st.ino}:${st.size}:${st.mtimeMs}`;
    } catch {
      // absent: no devices
    }
    if (now === this.stamp) return;
    this.devices = now === 'absent' ? [] : read(f);
    this.stamp = now;
  }

  private save(list: Device[]): void {
    ensureDir(pushDir(this.home));
    writeAtomic(this.file, `${JSON.stringify({ version: 1, devices: list }, null, 2)}\n`);
    this.stamp = '';
    this.refresh();
  }
}

function read(f: string): Device[] {
  if (!existsSync(f)) return [];
  const st = statSync(f);
  if (process.platform !== 'win32' && (st.mode & 0o077) !== 0)
    throw new DeviceError('unreadable', `${f} is readable by others (mode ${(st.mode & 0o777).toString(8)}): run chmod 600 ${f}`);
  let doc: any;
  try {
    doc = JSON.parse(readFileSync(f, 'utf8'));
  } catch (e) {
    throw new DeviceError('unreadable', `${f} is not valid JSON: ${(e as Error).message}`);
  }
  if (!doc || !Array.isArray(doc.devices)) throw new DeviceError('unreadable', `${f}: expected {"devices": [...]}`);
  return doc.devices.filter((d: any) => d && typeof d.id === 'string' && typeof d.name === 'string' && d.subscription && d.principal);
}
