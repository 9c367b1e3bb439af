// The floor's rows (engine/runtime/policy/shell/floor.ts, issue 22 "A floor no rule
// can cross"): every row stops each of its `hits` (its own check fires and
// floorHit answers a row) and lets each of its `misses` through its own
// check; the row for unreadable lines stops what cannot be read and nothing
// that can. The rows are read in EXAMPLE_CONTEXT (a project in a home).
import { describe, expect, it } from 'vitest';
import { readShell } from '../../../engine/runtime/policy/shell/commands.ts';
import { EXAMPLE_CONTEXT, FLOOR, floorHit, UNREADABLE } from '../../../engine/runtime/policy/shell/floor.ts';

const ctx = EXAMPLE_CONTEXT;

describe('the floor', () => {
  it('has unique row ids, a reason and examples both ways on every row', () => {
    const ids = [...FLOOR.map((r) => r.id), UNREADABLE.id];
    expect(new Set(ids).size).toBe(ids.length);
    for (const row of [...FLOOR, UNREADABLE]) {
      expect(row.why, row.id).toMatch(/\S/);
      expect(row.hits.length, `${row.id} hits`).toBeGreaterThanOrEqual(3);
      expect(row.misses.length, `${row.id} misses`).toBeGreaterThanOrEqual(2);
    }
  });

  for (const row of FLOOR) {
    describe(`row ${row.id}`, () => {
      it.each(row.hits)(`stops %j (${row.why})`, (command) => {
        expect(row.check(readShell(command, ctx.home), ctx), `${row.id} must stop ${command}`).toBeDefined();
        expect(floorHit(command, ctx), `the floor must stop ${command}`).toBeDefined();
      });
      it.each(row.misses)('lets %j through this row', (command) => {
        expect(row.check(readShell(command, ctx.home), ctx), `${row.id} must not stop ${command}`).toBeUndefined();
      });
    });
  }

  describe('row unreadable', () => {
    it.each(UNREADABLE.hits)('stops %j', (command) => {
      expect(floorHit(command, ctx)?.row).toBe('unreadable');
    });
    it.each(UNREADABLE.misses)('lets %j through the whole floor', (command) => {
      expect(floorHit(command, ctx)).toBeUndefined();
    });
  });

  it('says which row and why', () => {
    expect(floorHit('npm test && rm -rf ~', ctx)).toEqual({
      row: 'recursive-delete',
      why: 'a recursive delete of home, / or outside the project: deletes /home/dev, which holds home',
    });
    expect(floorHit('npm test', ctx)).toBeUndefined();
  });
});
