// The VAPID key pair (engine/person/push/keys.ts): made with Node's own P-256, in
// the sizes RFC 8292 wants (a 65-byte uncompressed point, a 32-byte scalar,
// also when the scalar starts with zero bytes), accepted by web-push for
// signing, made once per home (0600) and refused when readable by others.
import { describe, expect, it } from 'vitest';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { createECDH } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import webpush from 'web-push';
import { ensureVapidKeys, readVapidKeys, vapidPath } from '../../../engine/person/push/keys.ts';

describe('VAPID keys', () => {
  it('are valid P-256 pairs web-push signs with, every time', () => {
    for (let i = 0; i < 100; i++) {
      const home = mkdtempSync(join(tmpdir(), 'hookmap-vapid-'));
      const k = ensureVapidKeys(home);
      expect(Buffer.from(k.publicKey, 'base64url').length).toBe(65);
      expect(Buffer.from(k.privateKey, 'base64url').length).toBe(32);
      // the private key derives the public one
      const e = createECDH('prime256v1');
      e.setPrivateKey(Buffer.from(k.privateKey, 'base64url'));
      expect(e.getPublicKey().toString('base64url')).toBe(k.publicKey);
      expect(() => webpush.getVapidHeaders('https://push.example', k.subject, k.publicKey, k.privateKey, 'aes128gcm')).not.toThrow();
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('are made once per home, and refused when others can read them', () => {
    const home = mkdtempSync(join(tmpdir(), 'hookmap-vapid-'));
    const a = ensureVapidKeys(home);
    const b = ensureVapidKeys(home);
    expect(a.created).toBe(true);
    expect(b.created).toBe(false);
    expect(b.publicKey).toBe(a.publicKey);
    chmodSync(vapidPath(home), 0o644);
    expect(() => readVapidKeys(home)).toThrow(/readable by others .* chmod 600/);
  });
});
