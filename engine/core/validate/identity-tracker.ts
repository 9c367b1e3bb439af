// (source, id) identity (AEP-0001 §5.1 #2, §7 rule 4). Delivery is
// at-least-once, so the identical Event seen again is a legal redelivery and
// is skipped by every stateful check; the same (source, id) on different
// content is an emitter fault. Only a digest of each Event is kept, so memory
// grows by one short string per distinct Event.
import { aepDigest } from '../capture/canonical.ts';

export type Identity = { kind: 'new' } | { kind: 'redelivery'; firstLine: number } | { kind: 'conflict'; firstLine: number };

export class IdentityTracker {
  private seen = new Map<string, { digest: string; line: number }>();

  observe(ev: Record<string, unknown>, line: number): Identity {
    if (typeof ev.source !== 'string' || typeof ev.id !== 'string') return { kind: 'new' };
    const key = `${ev.source}\u0000${ev.id}`;
    // member order is not identity (AEP-0005 §2: "modulo JSON member order")
    const digest = aepDigest(ev);
    const prior = this.seen.get(key);
    if (!prior) {
      this.seen.set(key, { digest, line });
      return { kind: 'new' };
    }
    return prior.digest === digest ? { kind: 'redelivery', firstLine: prior.line } : { kind: 'conflict', firstLine: prior.line };
  }
}
