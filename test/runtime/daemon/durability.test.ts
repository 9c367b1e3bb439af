// Durability settings (engine/runtime/daemon/session-log.ts): `none` answers once
// the OS has the line (survives a hookmap crash), `fsync` once the disk has
// it (survives power loss), with group commit: firings that arrive while a
// flush runs share the next one, and appends never wait on the disk.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Daemon } from '../../../engine/runtime/daemon/daemon.ts';
import { SessionLog } from '../../../engine/runtime/daemon/session-log.ts';
import { ConfigError, loadUpConfig } from '../../../engine/app/up-config.ts';
import { loadVendor } from '../../../engine/core/descriptor/registry.ts';
import { ev } from '../relay/helpers.ts';
import { readLogs } from './helpers.ts';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));
const temp = () => {
  const d = mkdtempSync(join(tmpdir(), 'hookmap-durable-'));
  dirs.push(d);
  return d;
};

describe('session log durability', () => {
  it('none: commit has nothing to wait for', () => {
    const log = new SessionLog(temp());
    log.append(ev('s', 0) as any);
    expect(log.commit()).toBeNull();
    log.close();
  });

  it('fsync: commit covers everything appended before it; appends during a flush share the next one', async () => {
    const log = new SessionLog(temp(), { durability: 'fsync' });
    expect(log.commit()).toBeNull(); // nothing written yet
    log.append(ev('a', 0) as any);
    log.append(ev('b', 0) as any);
    const first = log.commit()!;
    log.append(ev('a', 1) as any); // after the first flush began
    const second = log.commit()!;
    const third = log.commit()!; // nothing new since the second was asked for
    expect(second).toBe(third);
    expect(second).not.toBe(first);
    await Promise.all([first, second]);
    expect(log.flushes).toBe(2);
    expect(log.commit()).toBeNull();
    log.close();
  });

  it('fsync through the daemon: 40 concurrent firings, each answered after its flush, fewer flushes than firings', async () => {
    const dir = temp();
    const d = Daemon.open({ descriptor: loadVendor('codex'), logDir: dir, durability: 'fsync' });
    const pre = (i: number) => ({
      hook_event_name: 'PreToolUse',
      session_id: `s${i % 4}`,
      turn_id: 't',
      tool_name: 'Bash',
      tool_input: { command: 'ls' },
      tool_use_id: `c${i}`,
    });
    const replies = await Promise.all(Array.from({ length: 40 }, (_, i) => d.handle({ payload: pre(i) })));
    expect(replies.every((r) => r.error === undefined)).toBe(true);
    expect(readLogs(dir).filter((e) => e.type === 'tool.requested')).toHaveLength(40);
    expect(d.log.flushes).toBeGreaterThan(0);
    expect(d.log.flushes).toBeLessThan(40);
    await d.close();
  });

  it('the up config takes durability: none|fsync (fsync: true still means fsync) and names a wrong value', () => {
    const dir = temp();
    const f = (text: string) => {
      const p = join(dir, `c${Math.random()}.yaml`);
      writeFileSync(p, text);
      return p;
    };
    expect(loadUpConfig(f('durability: fsync\n'), {}).durability).toBe('fsync');
    expect(loadUpConfig(f('fsync: true\n'), {}).durability).toBe('fsync');
    expect(loadUpConfig(f('{}\n'), {}).durability).toBeUndefined();
    expect(() => loadUpConfig(f('durability: paranoid\n'), {})).toThrow(ConfigError);
    expect(() => loadUpConfig(f('durability: paranoid\n'), {})).toThrow(/none, fsync/);
  });
});
