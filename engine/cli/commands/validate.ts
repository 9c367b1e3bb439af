// `hookmap validate <file.jsonl|->`: checks a JSONL stream of AEP Events as a
// conformant consumer would. Exit 0 valid, 1 with every violation located,
// 2 on usage or I/O errors. stdout carries only the violations (text lines or
// a JSON array) so other tools can parse it; the summary goes to stderr.
import { parseArgs, ArgError } from '../args.ts';
import { validateReadable, formatViolation, violationsJson, openInput } from '../../core/validate/index.ts';

const USAGE = 'usage: hookmap validate <file.jsonl|-> [--json]';

export async function run(argv: string[]): Promise<number> {
  let file: string;
  let json: boolean;
  try {
    const { flags, positionals } = parseArgs(argv, { json: { type: 'boolean' } });
    if (positionals.length !== 1) throw new ArgError(positionals.length ? 'exactly one input, a file or -' : 'missing input file (use - for stdin)');
    file = positionals[0];
    json = flags.json === true;
  } catch (err) {
    if (!(err instanceof ArgError)) throw err;
    process.stderr.write(`hookmap validate: ${err.message}\n${USAGE}\n`);
    return 2;
  }

  const label = file === '-' ? '<stdin>' : file;
  let result;
  try {
    result = await validateReadable(openInput(file));
  } catch (err) {
    process.stderr.write(`hookmap validate: cannot read ${label}: ${(err as Error).message}\n`);
    return 2;
  }
  const { violations, events } = result;
  if (json) process.stdout.write(`${violationsJson(label, violations)}\n`);
  else for (const v of violations) process.stdout.write(`${formatViolation(label, v)}\n`);
  process.stderr.write(violations.length ? `${label}: ${violations.length} violation(s) in ${events} event(s)\n` : `${label}: ${events} event(s), valid\n`);
  return violations.length ? 1 : 0;
}
