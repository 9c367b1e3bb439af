// Shared bits of the daemon tests: temp folders, an in-memory link, polling.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EventLink } from '../../../engine/runtime/daemon/relay-link.ts';
import type { AppendRecord } from '../../../engine/runtime/daemon/session-log.ts';
import { newId, type AepEvent } from '../../../engine/core/map/envelope.ts';

export function tempDir(prefix = 'hookmap-daemon-'): { dir: string; done: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, done: () => rmSync(dir, { recursive: true, force: true }) };
}

export class MemoryLink implements EventLink {
  readonly delivered: AppendRecord[] = [];
  readonly resent: string[] = [];
  ready = true;
  deliver(rec: AppendRecord): void {
    this.delivered.push(rec);
  }
  resend(line: string): void {
    this.resent.push(line);
  }
  async close(): Promise<void> {}
}

/** Every event in every session log of a folder, file by file in write order. */
export function readLogs(dir: string): AepEvent[] {
  const out: AepEvent[] = [];
  for (const f of readdirSync(dir)
    .filter((x) => x.endsWith('.jsonl'))
    .sort()) {
    for (const line of readFileSync(join(dir, f), 'utf8').split('\n')) if (line) out.push(JSON.parse(line));
  }
  return out;
}

export async function until<T>(what: string, fn: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs = 15_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A steering command (`x.<agent>.control.instruct`) for `session`, as `hookmap steer` sends it. */
export function instructCommand(text: string, session = 's1', agent = 'claude-code'): AepEvent {
  return {
    aep: '0.1',
    id: newId(),
    type: `x.${agent}.control.instruct`,
    time: new Date().toISOString(),
    source: 'aep://test/agent/t',
    agent: 't',
    session,
    data: { text },
  };
}
