// `hookmap doctor` on Web Push (issue 23): whether it can work from the
// address in use (a secure context), the key pair, and devices whose token
// was revoked.
import { describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { addToken, ensureOwnerToken, revokeToken, tokenDigest } from '../../../engine/runtime/auth/tokens.ts';
import { checkPush, pushReach } from '../../../engine/tools/doctor/push.ts';
import { DeviceBook } from '../../../engine/person/push/devices.ts';
import { ensureVapidKeys, vapidPath } from '../../../engine/person/push/keys.ts';

const sub = (n: number) => ({
  endpoint: `https://fcm.googleapis.com/fcm/send/dev${n}`,
  keys: { p256dh: Buffer.alloc(65, 4).toString('base64url'), auth: Buffer.alloc(16, 1).toString('base64url') },
});

describe('doctor: Web Push', () => {
  it('says whether Web Push can work from the address in use', () => {
    expect(pushReach('https://laptop.tail1234.ts.net').status).toBe('ok');
    const loop = pushReach('http://127.0.0.1:8787');
    expect(loop.status).toBe('info');
    expect(loop.fix).toMatch(/tailscale serve/);
    const lan = pushReach('http://192.168.1.20:8787');
    expect(lan.status).toBe('warn');
    expect(lan.message).toMatch(/not a secure context/);
  });

  it('names a device whose token was revoked, and a broken key file', () => {
    const home = mkdtempSync(join(tmpdir(), 'hookmap-doctor-push-'));
    const owner = ensureOwnerToken(home);
    ensureVapidKeys(home);
    const alex = addToken(home, 'alex', 'control');
    const book = new DeviceBook(home);
    book.add(sub(1), { name: 'owner', scopes: ['read', 'emit', 'control'], key: tokenDigest(owner.token) }, 'laptop');
    book.add(sub(2), { name: 'alex', scopes: ['read', 'control'], key: alex.entry.sha256 }, 'alex-phone');
    revokeToken(home, 'alex');
    const f = checkPush(home, 'https://x.ts.net');
    expect(f.find((x) => x.subject === 'laptop')?.status).toBe('ok');
    expect(f.find((x) => x.subject === 'alex-phone')).toMatchObject({ status: 'warn', fix: expect.stringContaining('hookmap push revoke alex-phone') });
    writeFileSync(vapidPath(home), '{not json', { mode: 0o600 });
    expect(checkPush(home, 'https://x.ts.net').find((x) => x.subject === vapidPath(home))?.status).toBe('problem');
  });
});
