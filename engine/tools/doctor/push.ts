// Web Push in `hookmap doctor` (issue 23): the key pair, the devices (and
// whether each one's token still holds), and whether Web Push can work from
// the address the inbox is reached at: a browser subscribes only in a secure
// context (https, or localhost on that very machine), so a phone needs an
// https address: Tailscale serve, a tunnel, or the LAN with --tls-cert.
import { existsSync, readFileSync } from 'node:fs';
import { loadTokens, ownerTokenPath, tokenDigest } from '../../runtime/auth/tokens.ts';
import { DeviceBook } from '../../person/push/devices.ts';
import { readVapidKeys, vapidPath } from '../../person/push/keys.ts';
import type { Finding } from './types.ts';

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|localhost|\[::1\])$/;

/** Whether a browser at this inbox address may subscribe to Web Push, and what to do if not. */
export function pushReach(url: string): Finding {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return { area: 'push', subject: url, status: 'info', message: `${url} is not a URL` };
  }
  if (u.protocol === 'https:') return { area: 'push', subject: url, status: 'ok', message: `Web Push can work from ${u.origin} (https: a secure context)` };
  if (LOOPBACK.test(u.hostname))
    return {
      area: 'push',
      subject: url,
      status: 'info',
      message: `${u.origin} is loopback: Web Push works in a browser on this machine only; a phone needs an https address`,
      fix:
        'tailscale serve --bg 8787 (then hookmap up --allow-host <name>.ts.net), a Cloudflare ' +
        'tunnel, or the LAN: hookmap up --host 0.0.0.0 --tls-cert F --tls-key K (docs/push.md, "Reach ' +
        'from the phone")',
    };
  return {
    area: 'push',
    subject: url,
    status: 'warn',
    message: `${u.origin} is plain http off loopback: browsers refuse Web Push there (not a secure context), and the sign-in travels unencrypted`,
    fix: 'serve the inbox over https: hookmap up --tls-cert F --tls-key K, or Tailscale serve, or a tunnel',
  };
}

export function checkPush(home: string, url: string): Finding[] {
  const out: Finding[] = [];
  try {
    if (!readVapidKeys(home))
      out.push({
        area: 'push',
        subject: vapidPath(home),
        status: 'info',
        message: 'no Web Push key pair yet: hookmap up makes one at its first start (hookmap push key prints it)',
      });
  } catch (e) {
    out.push({
      area: 'push',
      subject: vapidPath(home),
      status: 'problem',
      message: `the Web Push key pair is unusable: ${(e as Error).message}`,
      fix: 'delete the file and start hookmap up (every device then subscribes again)',
    });
  }
  let devices;
  try {
    devices = new DeviceBook(home).list();
  } catch (e) {
    out.push({ area: 'push', subject: 'devices', status: 'problem', message: (e as Error).message });
    return out;
  }
  if (!devices.length)
    out.push({
      area: 'push',
      subject: 'devices',
      status: 'info',
      message: 'no device gets pushes: press "Notify me" in the inbox on the phone (hookmap open --qr signs it in)',
    });
  else {
    const keys = liveKeys(home);
    for (const d of devices) {
      const live = keys.has(d.principal.key);
      out.push(
        live
          ? {
              area: 'push',
              subject: d.name,
              status: 'ok',
              message: `${d.name} gets pushes (${new URL(d.subscription.endpoint).host}, registered by ${d.principal.name})`,
            }
          : {
              area: 'push',
              subject: d.name,
              status: 'warn',
              message: `${d.name}: the token ${d.principal.name} registered it with is revoked or replaced, so it gets nothing and its buttons answer nothing`,
              fix: `sign in again on that device and press "Notify me", or hookmap push revoke ${d.name}`,
            },
      );
    }
  }
  out.push(pushReach(url));
  return out;
}

/** The keys of every token this home knows now (the owner token's and the named ones). */
function liveKeys(home: string): Set<string> {
  const keys = new Set<string>();
  try {
    const p = ownerTokenPath(home);
    if (existsSync(p)) keys.add(tokenDigest(readFileSync(p, 'utf8').trim()));
    for (const t of loadTokens(home)) keys.add(t.sha256);
  } catch {
    // an unreadable token file is doctor's finding elsewhere
  }
  return keys;
}
