// `hookmap setup <agent> --otel [--uninstall] [--dry-run]` (engine/runtime/setup/otel.ts):
// the agent's own OTel log exporter pointed at hookmap's receiver for it. The
// token the block carries is minted here, emit scope only, named after the
// receiver; --uninstall removes the block and revokes that token.
import { addToken, loadTokens, revokeToken } from '../../runtime/auth/tokens.ts';
import type { Descriptor } from '../../core/descriptor/types.ts';
import type { Target } from '../../core/io/target.ts';
import { commitOtel, planOtel } from '../../runtime/setup/otel.ts';
import { unifiedDiff } from '../../core/text/diff.ts';

export function setupOtel(
  d: Descriptor,
  o: { uninstall: boolean; dryRun: boolean; url: string; target: Target; dir: string; out: (s?: string) => void },
): number {
  const home = o.target.home;
  const probe = planOtel({ agent: d, uninstall: o.uninstall, url: o.url, token: '<a new emit-only token>', target: o.target, dir: o.dir });
  const name = probe.receiver.vendor;
  if (probe.spec.format === 'print') {
    o.out(`${d.vendor} has no config file hookmap writes its exporter into: set these by hand (${probe.receiver.name}, receiver ${probe.endpoint}):`);
    o.out();
    o.out(probe.text!.trimEnd());
    o.out();
    for (const n of probe.spec.notes) o.out(`note: ${n}`);
    for (const u of probe.spec.docs) o.out(`docs: ${u}`);
    return 0;
  }
  const hadToken = loadTokens(home).some((t) => t.name === name);
  let plan = probe;
  let token: string | undefined;
  if (!o.uninstall && probe.changed && !o.dryRun) {
    if (hadToken) revokeToken(home, name);
    token = addToken(home, name, ['emit']).token;
    plan = planOtel({ agent: d, uninstall: false, url: o.url, token, target: o.target, dir: o.dir });
  }
  if (!plan.changed) {
    o.out(
      o.uninstall
        ? `no changes: no hookmap OTel block for ${d.vendor} in ${plan.path}`
        : `no changes: ${d.vendor}'s OTel exporter already points at ${plan.endpoint} (${plan.path})`,
    );
    if (o.uninstall && hadToken && !o.dryRun) {
      revokeToken(home, name);
      o.out(`revoked the token '${name}'`);
    }
    return 0;
  }
  if (o.dryRun) {
    process.stdout.write(unifiedDiff(plan.before ?? '', plan.after ?? '', plan.path!, plan.path!));
    o.out('dry run: nothing written (the block would carry a new emit-only token)');
    return 0;
  }
  commitOtel(plan);
  if (o.uninstall) {
    o.out(`removed hookmap's OTel block for ${d.vendor} from ${plan.path}${plan.after === null ? ' (nothing else was in it: deleted)' : ''}`);
    if (hadToken) {
      revokeToken(home, name);
      o.out(`  revoked the token '${name}'`);
    }
    return 0;
  }
  o.out(`wired ${d.vendor}'s OpenTelemetry logs in ${plan.path}: exporter -> ${plan.endpoint} (${plan.receiver.name})`);
  o.out(`  token: '${name}' (emit scope only; \`hookmap tokens revoke ${name}\` or --otel --uninstall ends it)`);
  for (const n of plan.spec.notes) o.out(`note: ${n}`);
  return 0;
}
