// `up`'s policy file on the stream: said when it loads, watched for changes, a refused change said
// (the previous policy stays in force) and recorded on hookmap's own session.
import { basename } from 'node:path';
import type { OperatorLog } from '../runtime/daemon/operator-log.ts';
import { formatPolicyError } from '../runtime/policy/policy.ts';
import type { PolicySource } from '../runtime/policy/source.ts';

export function announcePolicy(policy: PolicySource, operator: OperatorLog, say: (line: string) => void): void {
  const file = basename(policy.file);
  const loaded = (p: typeof policy.current) => {
    const n = p.rules.length + p.answers.length;
    say(
      `policy: ${n} rule${n === 1 ? '' : 's'} in force from ${policy.file} (digest ${p.digest})` +
        `${p.answers.length ? `, ${p.answers.length} of them answering held requests` : ''}`,
    );
    operator.publish('x.hookmap.policy.loaded', { file, digest: p.digest, rules: n });
  };
  loaded(policy.current);
  policy.watch({
    loaded,
    rejected: (errors, digest) => {
      say(`policy: ${policy.file} changed and is REFUSED (the previous policy stays in force):\n${errors.map((e) => `  ${formatPolicyError(e)}`).join('\n')}`);
      operator.publish('x.hookmap.policy.rejected', {
        file,
        ...(digest ? { digest } : {}),
        in_force: policy.current.digest,
        errors: errors.map((e) => ({ code: e.code, line: e.line, col: e.col, path: e.path })),
      });
    },
  });
}
