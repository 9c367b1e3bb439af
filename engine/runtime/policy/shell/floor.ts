// The floor (issue 22 "A floor no rule can cross"): shapes of command that
// always go to a person, whatever the rules say. `floorHit` reads the whole
// command line (every command it runs, through wrappers and `-c` scripts:
// commands.ts) and answers the first row it hits; a line that cannot be read
// is a hit of its own. The rows, their reasons and their examples are data
// (FLOOR); test/runtime/policy/shell-floor.test.ts holds every row to its examples.
import { homedir } from 'node:os';
import { readShell } from './commands.ts';
import { agentSandbox, chmodWorld, fetchExecute, forcePush, privilege } from './floor-commands.ts';
import { credentials, gitHooks, recursiveDelete, sshFolder, startupFile, writeOutside } from './floor-paths.ts';
import { optionRuns, optionUnknown } from './floor-options.ts';
import { OptionTableError } from './options.ts';
import { resolvedHit } from './floor-resolved.ts';
import type { FloorRow } from './floor-row.ts';
import type { FloorContext } from './paths.ts';

export { EXAMPLE_CONTEXT, type FloorRow } from './floor-row.ts';
export type { FloorContext } from './paths.ts';

/** The row for what cannot be read; it has no check of its own (floorHit decides it). */
export const UNREADABLE = {
  id: 'unreadable',
  why: 'cannot be read: a person decides',
  hits: [
    'npm test &&',
    'if true',
    "echo 'unterminated",
    'sh -c "$SCRIPT"',
    'eval "$(cat f)"',
    'echo ls | sh',
    'bash -c "echo (("',
    '$(echo rm) -rf x',
    '$CMD x',
    '/bin/s? -c x',
  ],
  misses: ['npm test', 'bash -c "npm test"', "eval 'echo hi'"],
} as const;

export const FLOOR: readonly FloorRow[] = [
  privilege,
  fetchExecute,
  recursiveDelete,
  startupFile,
  sshFolder,
  credentials,
  gitHooks,
  forcePush,
  chmodWorld,
  agentSandbox,
  writeOutside,
  optionRuns,
  optionUnknown,
];

/** Every row id (the people's `approve: [{ floor }]` and `two_people.floor` name them). */
export const FLOOR_ROWS: readonly string[] = [...FLOOR.map((r) => r.id), UNREADABLE.id];

export interface FloorHit {
  row: string;
  why: string;
}

/** The floor row this command line hits, or undefined when rules may answer it. */
export function floorHit(command: string, ctx: FloorContext = {}): FloorHit | undefined {
  const home = ctx.home ?? homedir();
  const reading = readShell(command, home);
  if (reading.commands.length === 0 && reading.unreadable) return { row: UNREADABLE.id, why: `${UNREADABLE.why} (it ${reading.unreadable})` };
  for (const row of FLOOR) {
    let hit: string | undefined;
    try {
      hit = row.check(reading, { ...ctx, home });
    } catch (e) {
      // a broken options table reads nothing: every request goes to a person, saying why
      if (e instanceof OptionTableError) return { row: UNREADABLE.id, why: `${UNREADABLE.why} (${e.code}: ${e.message})` };
      throw e;
    }
    if (hit !== undefined) return { row: row.id, why: `${row.why}: ${hit}` };
  }
  const resolved = resolvedHit(reading, ctx);
  if (resolved) return resolved;
  if (reading.unreadable) return { row: UNREADABLE.id, why: `${UNREADABLE.why} (${reading.unreadable})` };
  return undefined;
}
