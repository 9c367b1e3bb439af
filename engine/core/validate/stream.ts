// The validator proper: one pass over a stream of Events, stateless checks
// per line plus the stateful trackers, each owning one rule family.
// Violations are collected and returned sorted by line, because a few (the
// dangling-attention sweep) can only be decided at the end of input.
import type { Readable } from 'node:stream';
import type { Violation } from './rules.ts';
import { envelopeFindings, typeAndPayloadFindings, type Finding } from './envelope-rules.ts';
import { captureFindings } from './capture-rules.ts';
import { IdentityTracker } from './identity-tracker.ts';
import { OrderTracker } from './order-tracker.ts';
import { LifecycleTracker } from './lifecycle-tracker.ts';
import { AckTracker } from './ack-tracker.ts';
import { FormRules } from './form-rules.ts';
import { readLines, type NumberedLine } from './line-reader.ts';

function snippet(text: string): string {
  const t = text.trim();
  return t.length > 40 ? `${t.slice(0, 37)}...` : t;
}

export class StreamValidator {
  private violations: Violation[] = [];
  private identities = new IdentityTracker();
  private order = new OrderTracker();
  private lifecycle = new LifecycleTracker();
  private acks = new AckTracker();
  private forms = new FormRules();
  private nextLine = 1;
  /** Events seen (parsed objects), redeliveries included. */
  events = 0;

  /** One input line (raw JSONL text) or an already-parsed Event; `line` defaults to the next index. */
  push(input: string | unknown, line = this.nextLine): void {
    this.nextLine = line + 1;
    let ev: unknown = input;
    let raw: string | undefined;
    if (typeof input === 'string') {
      if (input.trim() === '') return; // blank lines carry no event; JSONL tolerates them
      raw = input;
      try {
        ev = JSON.parse(input);
      } catch (err) {
        this.add(line, undefined, [{ rule: 'syntax/not-json', message: `${(err as Error).message} (line starts: ${snippet(input)})` }]);
        return;
      }
    }
    if (ev === null || typeof ev !== 'object' || Array.isArray(ev)) {
      const kind = ev === null ? 'null' : Array.isArray(ev) ? 'an array' : typeof ev;
      this.add(line, undefined, [{ rule: 'syntax/not-object', message: `an Event is a JSON object, got ${kind}` }]);
      return;
    }
    this.events++;
    this.check(ev as Record<string, unknown>, raw, line);
  }

  private check(ev: Record<string, unknown>, raw: string | undefined, line: number): void {
    const id = typeof ev.id === 'string' ? ev.id : undefined;
    const identity = this.identities.observe(ev, line);
    // at-least-once delivery: the identical Event again is legal and already judged
    if (identity.kind === 'redelivery') return;
    const findings: Finding[] = [...envelopeFindings(ev, raw), ...typeAndPayloadFindings(ev), ...captureFindings(ev)];
    if (identity.kind === 'conflict') {
      findings.push({ rule: 'id/conflict', message: `(source, id) already names a different event at line ${identity.firstLine}` });
    }
    findings.push(...this.order.observe(ev, line), ...this.lifecycle.observe(ev, line), ...this.acks.observe(ev, line), ...this.forms.observe(ev, line));
    this.add(line, id, findings);
  }

  private add(line: number, id: string | undefined, findings: Finding[]): void {
    for (const f of findings) this.violations.push({ line, ...(id !== undefined ? { id } : {}), rule: f.rule, message: f.message });
  }

  /** End of input: the end-of-stream checks, then every violation in line order. */
  finish(): Violation[] {
    this.violations.push(...this.lifecycle.finish());
    // stable sort keeps the per-line order the checks produced
    return this.violations.sort((a, b) => a.line - b.line);
  }
}

/**
 * Validate a whole stream in process: parsed Events (line = 1-based index) or
 * raw JSONL lines. What `hookmap validate` reports, minus the file name.
 */
export function validateStream(input: Iterable<unknown>): Violation[] {
  const v = new StreamValidator();
  for (const item of input) v.push(item);
  return v.finish();
}

/** Validate a JSONL text (e.g. a whole log read into memory). */
export function validateText(text: string): Violation[] {
  return validateStream(text.split(/\r?\n/));
}

/** Validate numbered lines as they stream in; the CLI path for files and stdin. */
export async function validateLines(lines: AsyncIterable<NumberedLine>): Promise<{ violations: Violation[]; events: number }> {
  const v = new StreamValidator();
  for await (const { line, text } of lines) v.push(text, line);
  return { violations: v.finish(), events: v.events };
}

export async function validateReadable(input: Readable): Promise<{ violations: Violation[]; events: number }> {
  return validateLines(readLines(input));
}
