// Small Markdown helpers for the generated docs: table cells that survive
// pipes and newlines in JSONata, and inline code that survives backticks.
import { stringify } from 'yaml';

/** Inline code; multi-line expressions collapse to one line, pipes escaped for tables. */
export function code(text: string): string {
  const one = text
    .replace(/\s*\n\s*/g, ' ')
    .trim()
    .replace(/\|/g, '\\|');
  if (!one) return '` `';
  const fence = one.includes('`') ? '``' : '`';
  const pad = one.startsWith('`') || one.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${one}${pad}${fence}`;
}

/** Plain text in a table cell: one line, pipes escaped, `<x>` shown literally instead of read as HTML. */
export function cell(text: string | undefined): string {
  return (text ?? '')
    .replace(/\s*\n\s*/g, ' ')
    .trim()
    .replace(/\|/g, '\\|')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;');
}

export function table(head: string[], rows: string[][]): string {
  const line = (r: string[]) => `| ${r.join(' | ')} |`;
  return [line(head), line(head.map(() => '---')), ...rows.map(line)].join('\n');
}

/** A template as written in the descriptor: `=expression` text, a literal, or its mapping as YAML flow. */
export function templateText(tpl: unknown): string {
  return typeof tpl === 'string' ? tpl : stringify(tpl, { collectionStyle: 'flow', lineWidth: 0 }).trim();
}

/**
 * The id GitHub gives a heading (what `page.md#id` links to): its text lower-cased, inline code
 * and tags unwrapped, every character but letters, digits, spaces, `_` and `-` dropped, spaces
 * to hyphens. A repeated id is numbered by its caller (`-1`, `-2`, ...), in page order.
 */
export function headingId(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/<[^>]+>/g, '')
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}
