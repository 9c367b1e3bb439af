// The bridges' offline input (`--from-file`): a JSONL capture (an agent's
// session log, a `hookmap sink` file, stdin with `-`), one event per line.
// A line that is not JSON, not an AEP envelope or too long is reported with
// its line number and skipped; every other line is processed. Duplicates
// (a capture may hold redeliveries) are dropped on (source, id).
import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { formatAjvErrors, validateEnvelope } from '../../core/aep/schemas.ts';
import { readLines } from '../../core/io/lines.ts';
import type { AepEvent } from './projection/common.ts';

export interface LineProblem {
  line: number;
  code: 'invalid-json' | 'invalid-event' | 'line-too-long';
  detail: string;
}

export interface FileSourceStats {
  lines: number;
  events: number;
  duplicates: number;
  problems: number;
}

export const MAX_LINE_BYTES = 8 * 1024 * 1024;

export async function* readEventFile(path: string, onProblem: (p: LineProblem) => void, stats?: FileSourceStats): AsyncGenerator<AepEvent> {
  const input: Readable = path === '-' ? process.stdin : createReadStream(path);
  const seen = new Set<string>();
  const order: string[] = [];
  const st = stats ?? { lines: 0, events: 0, duplicates: 0, problems: 0 };
  for await (const l of readLines(input, MAX_LINE_BYTES)) {
    st.lines++;
    if (l.oversize !== undefined) {
      st.problems++;
      onProblem({ line: l.lineNo, code: 'line-too-long', detail: `${l.oversize} bytes (limit ${MAX_LINE_BYTES})` });
      continue;
    }
    const text = (l.lineNo === 1 ? l.text.replace(/^\uFEFF/, '') : l.text).trim();
    if (!text) continue;
    let ev: unknown;
    try {
      ev = JSON.parse(text);
    } catch (e) {
      st.problems++;
      onProblem({ line: l.lineNo, code: 'invalid-json', detail: (e as Error).message });
      continue;
    }
    const errs = validateEnvelope(ev);
    if (errs.length) {
      st.problems++;
      onProblem({ line: l.lineNo, code: 'invalid-event', detail: formatAjvErrors(errs) });
      continue;
    }
    const e = ev as AepEvent;
    const key = `${e.source}\u0000${e.id}`;
    if (seen.has(key)) {
      st.duplicates++;
      continue;
    }
    seen.add(key);
    order.push(key);
    if (order.length > 100_000) seen.delete(order.shift()!);
    st.events++;
    yield e;
  }
}
