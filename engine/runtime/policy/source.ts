// The policy in force for `hookmap up`: loaded from the operator's file at
// start (a broken file refuses the start), then watched. A valid change
// takes effect for the next firing; a broken one is refused whole and the
// previous policy stays (docs/policy.md). Both outcomes are reported to the
// caller (stderr and hookmap's operator session on the stream).
import { unwatchFile, watchFile } from 'node:fs';
import { resolve } from 'node:path';
import { formatPolicyError, loadPolicyFile, type Policy, type PolicyError } from './policy.ts';

export class PolicyLoadError extends Error {
  constructor(readonly errors: PolicyError[]) {
    super(`the policy file is refused:\n${errors.map((e) => `  ${formatPolicyError(e)}`).join('\n')}`);
  }
}

export interface PolicyEvents {
  loaded(p: Policy): void;
  rejected(errors: PolicyError[], digest: string | undefined): void;
}

export class PolicySource {
  private policy: Policy;
  private watching = false;

  /** Load `file` now; a broken file throws PolicyLoadError (nothing takes effect). */
  constructor(
    readonly file: string,
    private readonly knownAgents: readonly string[],
  ) {
    this.file = resolve(file);
    const r = loadPolicyFile(this.file, knownAgents);
    if (!r.policy) throw new PolicyLoadError(r.errors);
    this.policy = r.policy;
  }

  get current(): Policy {
    return this.policy;
  }

  /** Watch the file (polled: works on every filesystem); each change is reloaded and reported. */
  watch(events: PolicyEvents, intervalMs = 1_000): void {
    if (this.watching) return;
    this.watching = true;
    watchFile(this.file, { interval: intervalMs, persistent: false }, (cur, prev) => {
      if (cur.mtimeMs === prev.mtimeMs && cur.size === prev.size && cur.ino === prev.ino) return;
      this.reload(events);
    });
  }

  /** Re-read the file now: a valid file replaces the policy, a broken one changes nothing. */
  reload(events: PolicyEvents): boolean {
    const r = loadPolicyFile(this.file, this.knownAgents);
    if (!r.policy) {
      events.rejected(r.errors, r.digest);
      return false;
    }
    if (r.policy.digest === this.policy.digest) return true; // touched, not changed
    this.policy = r.policy;
    events.loaded(r.policy);
    return true;
  }

  close(): void {
    if (this.watching) unwatchFile(this.file);
    this.watching = false;
  }
}
