// Every descriptor problem, and every problem of an `up` config file, is one
// of these codes (one closed list), located at file:line:col with the path
// inside the file. `hookmap check` and `hookmap config check` print them all
// at once, sorted and de-duplicated.

export const ERROR_CODES = {
  'yaml-syntax': 'the file is not valid YAML (or has duplicate keys)',
  'schema-violation': "the descriptor does not match hookmap's descriptor schema",
  'invalid-expression': 'a JSONata expression does not compile',
  'unmarked-expression': 'an expression written without its `=` mark (plain values are literal)',
  'unknown-variable': 'an expression reads a `$variable` its position does not bind',
  'unknown-function': "an expression calls a function that is neither a JSONata built-in nor the engine's",
  'function-arity': 'a function is called with too few or too many arguments',
  'unknown-field': 'a rule writes a field its event type does not define, or reads a config key the descriptor does not declare',
  'unknown-event-type': 'an emitted type is not a registered AEP type, or an x.* type outside the vendor namespace',
  'unknown-reference': 'a lookup reads a table no hook stores, or a name that does not resolve',
  'vendor-mismatch': "the descriptor's vendor id does not match its file name",
  'unknown-capability': 'a capability id outside the closed vocabulary',
  'missing-reason': 'a capability state other than supported without a reason',
  'capability-without-evidence': 'a supported capability that no fixture exercises',
  'payload-rejected': "a rule produced a payload its type's schema rejects",
  'fixture-mismatch': 'a fixture expected something the engine did not produce',
  'invalid-stream': 'the events a fixture case produces are not a valid AEP stream (order, lifecycle, identity)',
  'fixture-invalid': 'a fixture file is malformed',
  'fixtures-missing': 'an agent has no normalized-event fixtures',
  'fail-closed-neutral': "a hook's refusing answer under a launch's gate (fail_closed) is its neutral reply, which lets the call go ahead",
  'fail-open-allows': "a hook's fail-open answer (what its shim gives when hookmap is down, slow or wrong) is one of its allowing decisions",
  'to-fill-in': 'a placeholder `hookmap new` wrote that is not filled in yet',
  'unknown-key': 'an up config key the schema does not define (with the closest known key)',
  'unknown-channel': 'a `channels:` entry of the up config naming no channel kind hookmap has',
  'wrong-type': 'an up config value of the wrong type (a string where a number goes, a mapping where a list goes)',
  'invalid-value': 'an up config value outside what its key allows (a choice, a range, a URL, a pattern, a file or variable it names)',
  'missing-key': 'an up config key its block requires is absent',
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

export interface DescriptorError {
  code: ErrorCode;
  file: string;
  line: number;
  col: number;
  /** Path inside the descriptor, dotted (hooks.PreToolUse.emit[0].data) */
  path: string;
  message: string;
}

export class DescriptorLoadError extends Error {
  constructor(readonly errors: DescriptorError[]) {
    super(errors.map(formatError).join('\n'));
  }
}

export function formatError(e: DescriptorError): string {
  return `${e.file}:${e.line}:${e.col} ${e.code}: ${e.path ? `${e.path}: ` : ''}${e.message}`;
}

/** De-duplicated, by file (`first`, the descriptor, before its fixtures), line, column, code. */
export function sortErrors(errors: DescriptorError[], first?: string): DescriptorError[] {
  const seen = new Set<string>();
  const rank = (f: string) => (f === first ? 0 : 1);
  return errors
    .filter((e) => {
      const k = formatError(e);
      if (seen.has(k)) return false;
      seen.add(k);
      return true;
    })
    .sort((a, b) => rank(a.file) - rank(b.file) || a.file.localeCompare(b.file) || a.line - b.line || a.col - b.col || a.code.localeCompare(b.code));
}

export function pathString(segs: (string | number)[]): string {
  let s = '';
  for (const p of segs) {
    if (typeof p === 'number') s += `[${p}]`;
    else s += s ? `.${p}` : p;
  }
  return s;
}
