// Authenticity on the fleet backplane (engine/runtime/relay/backplane/): whoever
// can publish on the NATS server could otherwise inject events, roster
// entries or commands, and name any sender. Every message a relay puts on
// NATS carries `Hookmap-Sig` = HMAC-SHA256(key, body); relays drop what
// does not verify (counted as `forged`: /healthz, `hookmap doctor`).
//
// The key derives from the relay's server token as engine/runtime/auth resolves it
// (resolveServerAuth: --token-file, HOOKMAP_TOKEN_FILE, --token,
// HOOKMAP_TOKEN, $HOOKMAP_HOME/token): HMAC-SHA256(token, a fixed label),
// so the fleet shares one owner token and a leaked signature key is not a
// leaked bearer token. A --no-auth relay has no key: it signs nothing and
// accepts unsigned messages, and it routes no commands anyway (AEP-0004
// §4.1: commands only on authenticated bindings).
//
// Rotation: when the relay's owner token came from a file, the Signer
// re-reads it when it changes (watchTokenFile) and re-derives the key; for
// a grace window (default 60 s) it signs with the new key AND the old one
// (`Hookmap-Sig-Prev`), so relays that have not seen the new token yet still
// accept its messages, and it accepts messages signed with either key, so
// it still accepts theirs. After the window only the new key counts.
//
// Also here: how any string becomes one NATS subject token.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { headers as natsHeaders, type MsgHdrs } from '@nats-io/transport-node';
import { followTokenFile } from '../../auth/tokens.ts';

const KEY_LABEL = 'hookmap fleet backplane signing key v1';
export const SIG_HEADER = 'Hookmap-Sig';
export const PREV_SIG_HEADER = 'Hookmap-Sig-Prev';
export const KEY_GRACE_MS = 60_000;
export const RELAY_HEADER = 'relay';

/** The fleet's signing key from the relay's server token (undefined without one). */
export function fleetKey(token: string | undefined): Buffer | undefined {
  return token ? createHmac('sha256', token).update(KEY_LABEL).digest() : undefined;
}

/**
 * One NATS subject token from any string: [A-Za-z0-9_-] pass, everything
 * else (dots, wildcards, spaces, `~`) becomes ~HH per UTF-8 byte; long
 * tokens are cut and suffixed with a hash so distinct inputs stay distinct.
 */
export function subjectToken(s: string): string {
  if (s === '') return '~';
  let out = '';
  for (const b of Buffer.from(s, 'utf8')) {
    const c = String.fromCharCode(b);
    out += /[A-Za-z0-9_-]/.test(c) ? c : `~${b.toString(16).padStart(2, '0')}`;
  }
  if (out.length > 120) out = `${out.slice(0, 100)}~${createHash('sha256').update(s).digest('hex').slice(0, 16)}`;
  return out;
}

export class Signer {
  /** Messages dropped for a missing or wrong signature. */
  forged = 0;
  lastError = '';
  /** The key before the last rotation, accepted (and signed with too) until `prevUntil`. */
  private prev?: Buffer;
  private prevUntil = 0;

  constructor(
    readonly relayId: string,
    private key: Buffer | undefined,
    readonly graceMs = KEY_GRACE_MS,
  ) {}

  private static sign(key: Buffer, body: Uint8Array): string {
    return createHmac('sha256', key).update(body).digest('base64url');
  }

  private inGrace(): boolean {
    return this.prev !== undefined && Date.now() < this.prevUntil;
  }

  /** A new key (the owner token changed): the old one stays valid, and is signed with too, for the grace window. */
  rekey(key: Buffer): boolean {
    if (!this.key || this.key.equals(key)) return false;
    this.prev = this.key;
    this.prevUntil = Date.now() + this.graceMs;
    this.key = key;
    return true;
  }

  /** Headers for a message this relay puts on NATS: its origin and, with a key, its signature(s). */
  headers(body: Uint8Array): MsgHdrs {
    const h = natsHeaders();
    h.set(RELAY_HEADER, this.relayId);
    if (this.key) h.set(SIG_HEADER, Signer.sign(this.key, body));
    if (this.inGrace()) h.set(PREV_SIG_HEADER, Signer.sign(this.prev!, body));
    return h;
  }

  /** Does a message from NATS carry this fleet's signature, by the current key or (in the grace window) the previous one? (Always, without a key.) */
  verify(body: Uint8Array, h: { get(k: string): string } | undefined): boolean {
    if (!this.key) return true;
    const keys = this.inGrace() ? [this.key, this.prev!] : [this.key];
    const got = [h?.get(SIG_HEADER) ?? '', h?.get(PREV_SIG_HEADER) ?? ''].filter(Boolean).map((g) => Buffer.from(g, 'utf8'));
    for (const k of keys) {
      const want = Buffer.from(Signer.sign(k, body), 'utf8');
      for (const g of got) if (g.length === want.length && timingSafeEqual(g, want)) return true;
    }
    this.forged++;
    this.lastError = 'dropped a message on the backplane that is not signed with this fleet key (derived from the relay token)';
    return false;
  }
}

/**
 * Re-derive the signer's key when the owner token file changes (polled
 * every `everyMs`, as engine/runtime/auth's TokenSource does). A file that cannot
 * be read (deleted, unsafe mode) keeps the key in force and is said once.
 * Returns the stop function.
 */
export function watchTokenFile(file: string, signer: Signer, log: (line: string) => void, everyMs = 1000): () => void {
  const current = followTokenFile(file, undefined, (m) => log(`backplane: ${m}: still signing with the key from the token read before`));
  const t = setInterval(() => {
    const token = current();
    if (token !== undefined && signer.rekey(fleetKey(token)!))
      log(
        `backplane: the owner token in ${file} changed: signing with the key derived from the new ` +
          `one; messages signed with the old key are accepted (and also signed) for ${Math.round(signer.graceMs / 1000)} ` +
          `s more`,
      );
  }, everyMs);
  t.unref();
  return () => clearInterval(t);
}
