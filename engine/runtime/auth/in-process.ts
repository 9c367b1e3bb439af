// The credential `hookmap up` gives its own in-process links (its daemons'
// relay links, the operator log, its bridges): a random token made at start,
// held only in memory, never written to a file or argv, and valid for as long
// as that `up` runs. It is asked before the token files, so replacing or
// deleting the owner token file (which revokes every client holding the old
// token) never cuts up off from its own relay: before, the links presented
// the owner token read at start and were refused on every reconnect.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { presentedToken, type CredentialSource } from './authorizer.ts';
import { makePrincipal, SCOPES, type Principal } from './principal.ts';
import { OWNER, tokenDigest } from './tokens.ts';

export class InProcessSource implements CredentialSource {
  readonly kind = 'in-process';
  /** The bearer token up's own links present. */
  readonly token = `hmk_up_${randomBytes(32).toString('base64url')}`;
  private readonly digest = Buffer.from(tokenDigest(this.token), 'hex');
  private readonly principal: Principal = makePrincipal(OWNER, SCOPES, this.kind, this.digest.toString('hex'));

  /** Not this token: undefined, so the token files are asked next (they refuse what nobody knows). */
  authenticate(req: IncomingMessage): Principal | undefined {
    const t = presentedToken(req);
    if (t === undefined) return undefined;
    const d = Buffer.from(tokenDigest(t), 'hex');
    return d.length === this.digest.length && timingSafeEqual(d, this.digest) ? this.principal : undefined;
  }

  isLive(p: Principal): boolean {
    return p === this.principal;
  }
}
