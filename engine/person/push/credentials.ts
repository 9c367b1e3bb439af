// One-time action credentials: what a notification's Allow / Deny / Allow
// always button (or a chat channel's button, or an ntfy action) presents to
// answer one held request from one device. Each is 256 random bits, kept only
// as its SHA-256, bound to (request, device), usable once, and dead when the
// request settles, when it expires, or when the device is revoked (checked by
// the caller at redemption). They live in memory: a held request does not
// outlive the `up` that holds it either.
import { createHash, randomBytes } from 'node:crypto';

export const CREDENTIAL_PREFIX = 'hma_';

export interface Grant {
  request: string;
  session: string;
  device: string;
  expires: number;
}

export type Redeemed = { ok: true; grant: Grant } | { ok: false; code: 'unknown-credential' | 'credential-used' | 'credential-expired'; detail: string };

const sha = (s: string) => createHash('sha256').update(s).digest('hex');
const MAX_GRANTS = 10_000;

export class ActionCredentials {
  private readonly grants = new Map<string, Grant & { used: boolean }>();

  constructor(private readonly now: () => number = Date.now) {}

  /** A new credential for this request on this device, valid until `expires` (epoch ms). */
  issue(g: Grant): string {
    this.sweep();
    if (this.grants.size >= MAX_GRANTS) this.grants.delete(this.grants.keys().next().value!);
    const token = `${CREDENTIAL_PREFIX}${randomBytes(32).toString('base64url')}`;
    this.grants.set(sha(token), { ...g, used: false });
    return token;
  }

  /** Spend a credential: the grant it was issued for, once. A used one stays known (so a replay is named as one) until its request settles. */
  redeem(token: unknown): Redeemed {
    if (typeof token !== 'string' || !token.startsWith(CREDENTIAL_PREFIX) || token.length > 200)
      return { ok: false, code: 'unknown-credential', detail: 'not an action credential of this hookmap' };
    const g = this.grants.get(sha(token));
    if (!g) return { ok: false, code: 'unknown-credential', detail: 'no such action credential (its request was settled, or it never existed)' };
    if (g.used) return { ok: false, code: 'credential-used', detail: 'this action was used already: a credential answers once' };
    if (g.expires <= this.now()) return { ok: false, code: 'credential-expired', detail: 'this action expired with its request' };
    g.used = true;
    const { used: _used, ...grant } = g;
    return { ok: true, grant };
  }

  /** The request settled (answered anywhere, timed out, dismissed): every credential for it dies. */
  settle(request: string): void {
    for (const [k, g] of this.grants) if (g.request === request) this.grants.delete(k);
  }

  /** A device was revoked: its credentials die. */
  forgetDevice(device: string): void {
    for (const [k, g] of this.grants) if (g.device === device) this.grants.delete(k);
  }

  get size(): number {
    return this.grants.size;
  }

  private sweep(): void {
    const t = this.now();
    for (const [k, g] of this.grants) if (g.expires <= t) this.grants.delete(k);
  }
}
