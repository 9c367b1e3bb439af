// How violations are printed: one per line, `file:line id rule: message`,
// the shape editors and CI annotators already parse as a location.
import type { Violation } from './rules.ts';

export function formatViolation(file: string, v: Violation): string {
  return `${file}:${v.line} ${v.id ?? '-'} ${v.rule}: ${v.message.replace(/[\r\n]+/g, ' ')}`;
}

export function violationsJson(file: string, vs: Violation[]): string {
  return JSON.stringify(
    vs.map((v) => ({ file, ...v })),
    null,
    2,
  );
}
