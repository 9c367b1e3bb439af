// Issue 25, `up` within its start-up budget: a descriptor whose exact bytes
// passed every check of this hookmap before is built from the validated
// cache (engine/core/descriptor/descriptor-cache.ts) without the checks, each
// expression compiled on first use. What must hold: it maps exactly as the
// fully checked one; a changed descriptor (valid or not) is compiled and
// checked again; a corrupt entry is ignored (and rewritten); another
// hookmap (stamp) never reads this one's entries; `hookmap check` always
// runs every check.
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { loadDescriptorFile } from '../../../engine/core/descriptor/compile.ts';
import { cacheDescriptorsIn } from '../../../engine/core/descriptor/descriptor-cache.ts';
import { VENDORS_DIR } from '../../../engine/core/descriptor/registry.ts';
import { compilePending, pendingCompiles } from '../../../engine/core/expr/compile.ts';
import { Mapper } from '../../../engine/core/map/mapper.ts';

const tmp = mkdtempSync(join(tmpdir(), 'hookmap-descriptor-cache-'));
const cache = join(tmp, 'cache');
const file = join(tmp, 'claude-code.yaml');
copyFileSync(join(VENDORS_DIR, 'claude-code.yaml'), file);
const original = readFileSync(file, 'utf8');
afterEach(() => {
  cacheDescriptorsIn(undefined, '');
  writeFileSync(file, original);
  rmSync(cache, { recursive: true, force: true });
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const entries = () => readdirSync(cache).filter((f) => f.endsWith('.json'));
const prompt = { hook_event_name: 'UserPromptSubmit', session_id: 's1', transcript_path: '/t', cwd: '/p', prompt: 'hi' };
const tool = {
  hook_event_name: 'PreToolUse',
  session_id: 's1',
  transcript_path: '/t',
  cwd: '/p',
  tool_name: 'Bash',
  tool_use_id: 'tu1',
  tool_input: { command: 'ls' },
};
/** What a descriptor makes of two hooks, without the parts drawn fresh each time (event and run ids, times). */
async function mapped(d: NonNullable<ReturnType<typeof loadDescriptorFile>['descriptor']>): Promise<unknown> {
  const m = new Mapper(d, { now: () => 0, host: 'h' });
  const out = [];
  for (const p of [prompt, tool]) {
    const r = await m.map(undefined, p);
    out.push({ reply: r.reply, events: r.events.map(({ id: _id, time: _time, run: _run, ...e }) => e) });
  }
  return out;
}

describe('the validated-descriptor cache', () => {
  it('builds validated bytes without the checks, expressions compiled on first use, mapping exactly as the checked build', async () => {
    cacheDescriptorsIn(cache, 'stamp-1');
    const checked = loadDescriptorFile(file);
    expect(checked.errors).toEqual([]);
    expect(entries()).toHaveLength(1);
    const before = pendingCompiles();
    const fast = loadDescriptorFile(file);
    expect(fast.errors).toEqual([]);
    // built from the entry: its expressions wait to be compiled
    expect(pendingCompiles()).toBeGreaterThan(before);
    expect(await mapped(fast.descriptor!)).toEqual(await mapped(checked.descriptor!));
    await compilePending();
    expect(pendingCompiles()).toBe(0);
  });

  it('builds every shipped descriptor from its entry with the same hooks, emits, holds, commands and defaults', () => {
    cacheDescriptorsIn(cache, 'stamp-1');
    const shape = (d: NonNullable<ReturnType<typeof loadDescriptorFile>['descriptor']>) => ({
      hooks: [...d.hooks].map(([n, h]) => [
        n,
        h.emit.map((e) => [e.type, !!e.whenExpr]),
        h.holds.map((x) => [x.kind, [...x.decisions.keys()]]),
        h.lookups.length,
        h.stores.length,
        !!h.decide,
      ]),
      commands: [...d.commands.keys()],
      vars: d.vars.map(([k]) => k),
      config: d.config,
      fallback: !!d.fallback,
      firstSight: d.firstSight?.emit.length,
    });
    for (const f of readdirSync(VENDORS_DIR).filter((n) => n.endsWith('.yaml'))) {
      const checked = loadDescriptorFile(join(VENDORS_DIR, f));
      const fast = loadDescriptorFile(join(VENDORS_DIR, f));
      expect(fast.errors, f).toEqual([]);
      expect(shape(fast.descriptor!), f).toEqual(shape(checked.descriptor!));
    }
  });

  it('compiles and checks a changed descriptor again: a valid change takes effect, a broken one is refused', async () => {
    cacheDescriptorsIn(cache, 'stamp-1');
    loadDescriptorFile(file);
    const before = pendingCompiles();
    writeFileSync(file, original.replace('name: Claude Code', 'name: Claude Code (edited)'));
    const edited = loadDescriptorFile(file);
    expect(edited.errors).toEqual([]);
    expect(edited.descriptor!.name).toBe('Claude Code (edited)');
    expect(pendingCompiles()).toBe(before); // fully compiled, not from an entry
    writeFileSync(file, original.replace('type: session.started', 'type: session.begun'));
    const broken = loadDescriptorFile(file);
    expect(broken.descriptor).toBeUndefined();
    expect(broken.errors.map((e) => e.code)).toContain('unknown-event-type');
  });

  it('ignores a corrupt entry (compiles in full) and rewrites it', () => {
    cacheDescriptorsIn(cache, 'stamp-1');
    loadDescriptorFile(file);
    const [name] = entries();
    const good = JSON.parse(readFileSync(join(cache, name), 'utf8'));
    const truncated = { ...good, value: { vendor: 'claude-code' } };
    for (const junk of [
      '',
      '{not json',
      JSON.stringify({ ...good, value: [1] }),
      JSON.stringify(truncated),
      JSON.stringify({ ...good, format: 'descriptor-validated/0' }),
    ]) {
      writeFileSync(join(cache, name), junk);
      const before = pendingCompiles();
      const r = loadDescriptorFile(file);
      // not an entry: the full compile from the file's own bytes, and the entry rewritten
      expect(r.errors).toEqual([]);
      expect(pendingCompiles()).toBe(before);
      expect(r.descriptor!.hooks.size).toBeGreaterThan(3);
      expect(JSON.parse(readFileSync(join(cache, name), 'utf8'))).toEqual(good);
    }
    const kept = JSON.parse(readFileSync(join(cache, entries()[0]), 'utf8'));
    expect(kept.value.vendor).toBe('claude-code');
    expect(Object.keys(kept.value.hooks).length).toBeGreaterThan(3);
  });

  it('keeps entries per hookmap: another stamp compiles in full', () => {
    cacheDescriptorsIn(cache, 'stamp-1');
    loadDescriptorFile(file);
    cacheDescriptorsIn(cache, 'stamp-2');
    const before = pendingCompiles();
    expect(loadDescriptorFile(file).errors).toEqual([]);
    expect(pendingCompiles()).toBe(before);
    expect(entries()).toHaveLength(2);
  });

  it('`hookmap check` (checkAll) runs every check even for validated bytes', () => {
    cacheDescriptorsIn(cache, 'stamp-1');
    loadDescriptorFile(file);
    const before = pendingCompiles();
    const r = loadDescriptorFile(file, { checkAll: true });
    expect(r.errors).toEqual([]);
    expect(r.src!.positions.size).toBeGreaterThan(100);
    expect(pendingCompiles()).toBe(before);
  });

  it("reads the package's shipped entries (npm run build) when the home has none, and never writes there", () => {
    const shipped = join(tmp, 'shipped');
    cacheDescriptorsIn(shipped, 'stamp-1');
    expect(loadDescriptorFile(file).errors).toEqual([]);
    const shippedEntries = readdirSync(shipped);
    expect(shippedEntries).toHaveLength(1);
    cacheDescriptorsIn(cache, 'stamp-1', shipped);
    const before = pendingCompiles();
    const r = loadDescriptorFile(file);
    expect(r.errors).toEqual([]);
    // built from the entry: its expressions wait for their first use, and the home holds nothing
    expect(pendingCompiles()).toBeGreaterThan(before);
    expect(readdirSync(tmp).includes('cache') ? entries() : []).toEqual([]);
    expect(readdirSync(shipped)).toEqual(shippedEntries);
    rmSync(shipped, { recursive: true, force: true });
  });
});
