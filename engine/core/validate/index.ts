// The in-process API of `hookmap validate`, for the CLI and for other tests
// (e.g. asserting the mapping engine only emits Events the validator accepts).
export { validateStream, validateText, validateLines, validateReadable, StreamValidator } from './stream.ts';
export { RULES, RULE_IDS, type RuleId, type Violation } from './rules.ts';
export { formatViolation, violationsJson } from './format.ts';
export { readLines, openInput } from './line-reader.ts';
