// One past session's file read through the descriptor's `transcript.import`
// (docs/usage.md, "History from before hookmap"): the session id, its working
// folder, its runs (first and last time), its tool calls and each model
// response's tokens, counted once by the line's id. Only metadata is kept
// (ids, names, times, counts); no line's text leaves this function. Bounded:
// the file's size as it was when the read began (a file still growing is
// read to there; the rest waits for the next import), whole lines only, a
// line over the limit skipped whole, a line that is not JSON skipped, and a
// deadline after which the file is given up (nothing of it kept).
import { statSync } from 'node:fs';
import { evaluate, type Expr } from '../../core/expr/compile.ts';
import type { CompiledTranscript } from '../../core/descriptor/types.ts';
import type { Tokens } from './prices.ts';
import { tokensOf } from './tally.ts';
import { readAppended, type FilePosition } from './transcript-file.ts';

export interface ImportedRun {
  id: string;
  start: string;
  end: string;
}

export interface ImportedTool {
  key: string;
  name: string;
  call_id?: string;
  time: string;
  run?: string;
}

export interface ImportedResult {
  key: string;
  call_id: string;
  name: string;
  failed: boolean;
  time: string;
  /** Since the call, when both times are known. */
  duration_ms?: number;
  run?: string;
}

export interface ImportedResponse {
  key: string;
  model?: string;
  tokens: Tokens;
  time: string;
  run?: string;
}

export interface ImportedSession {
  session?: string;
  cwd?: string;
  first?: string;
  last?: string;
  runs: Map<string, ImportedRun>;
  tools: ImportedTool[];
  /** Outcomes of calls in `tools` (a result naming no call seen is left out). */
  results: ImportedResult[];
  responses: ImportedResponse[];
  /** Lines skipped: not JSON, or longer than the line limit. */
  skipped: number;
  lines: number;
}

export class ImportDeadline extends Error {}
export class ImportFileChanged extends Error {}

/** Bytes read per step (the whole file is read in steps of this size). */
const CHUNK = 8 * 1024 * 1024;
const MAX_TOOLS_PER_LINE = 256;

function isoTime(v: unknown): string | undefined {
  if (typeof v !== 'string' || v.length > 64) return undefined;
  const t = Date.parse(v);
  return Number.isNaN(t) ? undefined : new Date(t).toISOString();
}

/** An expression's object or array of objects, bounded. */
const list_ = (v: unknown): unknown[] => (Array.isArray(v) ? v.slice(0, MAX_TOOLS_PER_LINE) : v ? [v] : []);

const text = (v: unknown, max = 512): string | undefined => (typeof v === 'string' && v && v.length <= max ? v : undefined);

export interface ReadOptions {
  bindings: Record<string, unknown>;
  /** Epoch ms: past it the file is given up (ImportDeadline). */
  deadline: number;
  now?: () => number;
  /** The time of a file none of whose lines names one (its modification time). */
  fallbackTime: string;
}

/** Read `real` (resolved inside the agent's folders) up to its size now: its session, runs, tool calls and responses. */
export async function readPastSession(real: string, t: CompiledTranscript, o: ReadOptions): Promise<ImportedSession> {
  const imp = t.import!;
  const now = o.now ?? Date.now;
  const value = async (e: Expr | undefined, input: unknown): Promise<unknown> => {
    if (!e) return undefined;
    try {
      return await evaluate(e, input, o.bindings);
    } catch {
      return undefined;
    }
  };
  const s: ImportedSession = { runs: new Map(), tools: [], results: [], responses: [], skipped: 0, lines: 0 };
  const calls = new Map<string, ImportedTool>();
  const seen = new Set<string>();
  let model: string | undefined;
  let run: string | undefined;
  let time: string | undefined;
  let at: FilePosition | undefined;
  // the size when the read began: what is appended meanwhile waits for the next import
  const end = statSync(real).size;
  for (;;) {
    const chunk = readAppended(real, at, Math.max(CHUNK, 2 * t.maxLineBytes), t.maxLineBytes);
    if (at && chunk.next.ino !== at.ino) throw new ImportFileChanged('the file was replaced while it was read');
    s.skipped += chunk.skippedLong;
    let last = at?.pos ?? 0;
    for (const line of chunk.lines) {
      if (line.end > end) break;
      if (now() > o.deadline) throw new ImportDeadline('the import reached its time limit');
      last = line.end;
      s.lines++;
      let v: unknown;
      try {
        v = JSON.parse(line.text);
      } catch {
        s.skipped++;
        continue;
      }
      if (!v || typeof v !== 'object') continue;
      time = isoTime(await value(imp.time, v)) ?? time;
      const lineTime = time ?? o.fallbackTime;
      s.first ??= lineTime;
      if (!s.last || lineTime > s.last) s.last = lineTime;
      s.session ??= text(await value(imp.session, v), 256);
      s.cwd ??= text(await value(imp.cwd, v), 4096);
      const r = text(await value(imp.run, v), 256);
      if (r) run = r;
      if (run) {
        const cur = s.runs.get(run);
        if (!cur) s.runs.set(run, { id: run, start: lineTime, end: lineTime });
        else if (lineTime > cur.end) cur.end = lineTime;
      }
      list_(await value(imp.tools, v)).forEach((c, i) => {
        const name = text((c as { name?: unknown })?.name, 256);
        const callId = text((c as { call_id?: unknown })?.call_id, 256);
        if (!name) return;
        const key = callId ? `call:${callId}` : `line:${line.end}:${i}`;
        if (seen.has(key)) return;
        seen.add(key);
        const call = { key, name, ...(callId ? { call_id: callId } : {}), time: lineTime, ...(run ? { run } : {}) };
        s.tools.push(call);
        if (callId) calls.set(callId, call);
      });
      for (const r of list_(await value(imp.results, v))) {
        const call = calls.get(text((r as { call_id?: unknown })?.call_id, 256) ?? '');
        if (!call || seen.has(`result:${call.call_id}`)) continue;
        seen.add(`result:${call.call_id}`);
        const ms = Date.parse(lineTime) - Date.parse(call.time);
        s.results.push({
          key: `result:${call.call_id}`,
          call_id: call.call_id!,
          name: call.name,
          failed: (r as { failed?: unknown }).failed === true,
          time: lineTime,
          ...(ms >= 0 ? { duration_ms: ms } : {}),
          ...(call.run ? { run: call.run } : {}),
        });
      }
      if (t.when && (await value(t.when, v)) !== true) continue;
      const m = await value(t.model, v);
      if (typeof m === 'string' && m) model = m;
      const tokens = tokensOf(await value(t.usage, v));
      if (!tokens) continue;
      const id = await value(t.id, v);
      const key = id !== undefined && id !== null ? `usage:${String(id).slice(0, 256)}` : `line:${line.end}`;
      if (seen.has(key)) continue;
      seen.add(key);
      s.responses.push({ key, ...(model ? { model } : {}), tokens, time: lineTime, ...(run ? { run } : {}) });
    }
    // done: the size the read began at is reached, or only a line not yet ended is left
    if (last >= end || chunk.next.pos >= end || chunk.next.pos === (at?.pos ?? 0)) return s;
    at = chunk.next;
  }
}
