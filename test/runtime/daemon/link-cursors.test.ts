// The relay link's confirmed offsets on disk (engine/runtime/daemon/link-cursors.ts):
// written off the main thread while the link runs (a hook is never answered
// behind an fsync), one write at a time, the last confirmed offsets winning;
// written at once at the link's stop; read back by a restarted daemon, which
// re-sends only what was never confirmed.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LinkCursors } from '../../../engine/runtime/daemon/link-cursors.ts';
import { SessionLog } from '../../../engine/runtime/daemon/session-log.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function rig() {
  const dir = mkdtempSync(join(tmpdir(), 'hookmap-cursors-'));
  dirs.push(dir);
  const log = new SessionLog(dir);
  const said: string[] = [];
  const open = () => new LinkCursors({ log, cursorFile: join(dir, 'relay-cursors.json'), ping: () => true, say: (l) => said.push(l) });
  const append = (n: number) => {
    let r: { file: string; end: number } | undefined;
    for (let i = 0; i < n; i++) {
      const rec = log.append({
        aep: '0.1',
        id: `e${i}-${Math.random()}`,
        type: 'tool.completed',
        time: new Date().toISOString(),
        source: 'aep://h/agent/a/session/s',
        agent: 'a',
        session: 's',
        seq: i,
        epoch: 0,
      } as any);
      r = { file: rec.file, end: rec.end };
    }
    return r!;
  };
  return { dir, log, open, append, said, file: () => JSON.parse(readFileSync(join(dir, 'relay-cursors.json'), 'utf8')) };
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('the relay link cursors', () => {
  it('confirmed offsets reach the file after the persist delay, off the main thread, the last confirmed winning', async () => {
    const r = rig();
    const c = r.open();
    expect(r.file()).toEqual({}); // the first run: what is logged predates the link
    let t = 0;
    let last = { file: '', end: 0 };
    for (let k = 0; k < 20; k++) {
      last = r.append(3);
      c.markSent(last.file, last.end);
      await sleep(30); // the ping goes out (25 ms)
      c.confirm(++t);
    }
    await sleep(150);
    await c.flushed();
    expect(r.file()).toEqual({ [last.file]: last.end });
    r.append(1); // logged, never confirmed
    expect(r.log.size(last.file)).toBeGreaterThan(last.end);
    c.stop();
    expect(r.file()).toEqual({ [last.file]: last.end }); // written at once at the stop
    expect(r.said).toEqual([]);
    // a restarted daemon re-sends from the confirmed offset: exactly the unconfirmed line
    const again = r.open();
    expect([...again.dirty]).toEqual([last.file]);
    expect(again.position(last.file)).toBe(last.end);
  });
});
