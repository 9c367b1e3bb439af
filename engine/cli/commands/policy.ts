// `hookmap policy check <file>`: compile an operator policy file the way
// `hookmap up --policy` does and print every error with its code and
// position (docs/policy.md). Exit 0: the file loads; 1: it is refused; 2: usage.
import { ArgError, parseArgs } from '../args.ts';
import { listVendors } from '../../core/descriptor/registry.ts';
import { formatPolicyError, loadPolicyFile } from '../../runtime/policy/policy.ts';
import { describeMatch } from '../../runtime/policy/answer-rule.ts';
import { TYPE } from '../../core/kernel/lifecycle.ts';

const SPEC = { json: { type: 'boolean' } } as const;
const USAGE = 'usage: hookmap policy check <file> [--json]';

export async function run(argv: string[]): Promise<number> {
  let flags, file: string;
  try {
    const p = parseArgs(argv, SPEC);
    flags = p.flags;
    if (p.positionals.length !== 2 || p.positionals[0] !== 'check') throw new ArgError(USAGE);
    file = p.positionals[1];
  } catch (e) {
    if (e instanceof ArgError) {
      process.stderr.write(`hookmap policy: ${e.message}\n`);
      return 2;
    }
    throw e;
  }
  const r = loadPolicyFile(file, listVendors());
  if (flags.json) {
    const rules = r.policy && [
      ...r.policy.rules.map((x) => ({ id: x.id, on: [...x.on], decide: x.decide })),
      ...r.policy.answers.map((x) => ({ id: x.id, on: [TYPE.attentionRequested], decide: x.verb, matches: describeMatch(x) })),
    ];
    process.stdout.write(`${JSON.stringify(r.policy ? { ok: true, digest: r.policy.digest, rules } : { ok: false, errors: r.errors })}\n`);
    return r.policy ? 0 : 1;
  }
  if (!r.policy) {
    for (const e of r.errors) process.stderr.write(`${formatPolicyError(e)}\n`);
    process.stderr.write(`hookmap policy: ${file} is refused (${r.errors.length} error${r.errors.length === 1 ? '' : 's'}); nothing of it would take effect\n`);
    return 1;
  }
  const n = r.policy.rules.length + r.policy.answers.length;
  process.stdout.write(`ok: ${n} rule${n === 1 ? '' : 's'} (digest ${r.policy.digest})\n`);
  for (const x of r.policy.rules)
    process.stdout.write(`  ${x.id}: on ${[...x.on].join(', ')} -> ${x.decide}${x.agents ? ` (${[...x.agents].join(', ')})` : ''}\n`);
  for (const x of r.policy.answers)
    process.stdout.write(
      `  ${x.id}: a held request, ${describeMatch(x)} -> ${x.verb}` +
        `${x.origin.repo && x.verb === 'allow' ? ` (grants nothing: the file lies in the repository ${x.origin.repo})` : ''}\n`,
    );
  return 0;
}
