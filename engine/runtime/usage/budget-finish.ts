// An ask budget's "let this run finish" (docs/usage.md "Budgets"): the run a
// person let go on past the cap, said on the stream as
// x.hookmap.budget.finishing on hookmap's own session (budget, session, run,
// who, the card), so it outlives the daemon that asked (an `up` restart reads
// it back from the relay's replay) and every machine of a fleet folds the
// same. Only hookmap's own emitter is believed (the book checks the agent).
// The session's next run is asked again. At most MAX_FINISHING sessions (the
// least recent forgotten first).
import { lineOf } from '../../core/kernel/fold/index.ts';
import { str, touch } from './budget-text.ts';

export const BUDGET_FINISHING = 'x.hookmap.budget.finishing';
export const MAX_FINISHING = 10_000;

export class LetFinish {
  /** session line -> the run let finish. */
  private readonly runs = new Map<string, string>();

  constructor(
    private readonly announce?: (type: string, data: Record<string, unknown>) => void,
    private readonly say?: (line: string) => void,
  ) {}

  /** A record some machine said (or this one, already applied). */
  note(data: Record<string, unknown>): void {
    const [session, run] = [str(data.session), str(data.run)];
    if (session && run) touch(this.runs, lineOf(session), run, MAX_FINISHING);
  }

  /** A person let this run finish: applied here, said on the stream. */
  let(budget: string, session: string, run: string, by: string | undefined, request: string): void {
    const data = { budget, session, run, by: by ?? '(no authenticated sender)', request };
    this.note(data);
    try {
      this.announce?.(BUDGET_FINISHING, data);
    } catch (e) {
      this.say?.(`budget ${budget}: could not put "let this run finish" on the stream: ${(e as Error).message}`);
    }
  }

  /** Whether a person let this run of the session finish. */
  passes(session: string, run: string | undefined): boolean {
    return run !== undefined && this.runs.get(lineOf(session)) === run;
  }
}
