// Authenticity on the fleet backplane (engine/relay/backplane/): whoever
// can publish on the NATS server could otherwise inject events, roster
// entries or commands, and name any sender. Every message a relay puts on
// NATS carries `Hookmap-Sig` = HMAC-SHA256(key, body); relays drop what
// does not verify (counted as `forged`: /healthz, `hookmap doctor`).
//
// The key derives from the relay's server token as engine/auth resolves it
// (resolveServerAuth: --token-file, HOOKMAP_TOKEN_FILE, --token,
// HOOKMAP_TOKEN, $HOOKMAP_HOME/token): HMAC-SHA256(token, a fixed label),
// so the fleet shares one owner token and a leaked signature key is not a
// leaked bearer token. A --no-auth relay has no key: it signs nothing and
// accepts unsigned messages, and it routes no commands anyway (AEP-0004
// §4.1: commands only on authenticated bindings).
//
// Also here: how any string becomes one NATS subject token.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { headers as natsHeaders, type MsgHdrs } from '@nats-io/transport-node';

const KEY_LABEL = 'hookmap fleet backplane signing key v1';
export const SIG_HEADER = 'Hookmap-Sig';
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

  constructor(
    readonly relayId: string,
    private readonly key: Buffer | undefined,
  ) {}

  private sign(body: Uint8Array): string {
    return createHmac('sha256', this.key!).update(body).digest('base64url');
  }

  /** Headers for a message this relay puts on NATS: its origin and, with a key, its signature. */
  headers(body: Uint8Array): MsgHdrs {
    const h = natsHeaders();
    h.set(RELAY_HEADER, this.relayId);
    if (this.key) h.set(SIG_HEADER, this.sign(body));
    return h;
  }

  /** Does a message from NATS carry this fleet's signature? (Always, without a key.) */
  verify(body: Uint8Array, h: { get(k: string): string } | undefined): boolean {
    if (!this.key) return true;
    const got = Buffer.from(h?.get(SIG_HEADER) ?? '', 'utf8');
    const want = Buffer.from(this.sign(body), 'utf8');
    if (got.length === want.length && timingSafeEqual(got, want)) return true;
    this.forged++;
    this.lastError = 'dropped a message on the backplane that is not signed with this fleet key (derived from the relay token)';
    return false;
  }
}
