// Hooks that got no answer from hookmap (engine/core/io/failed-open.ts): the ones
// no `up` start has reported yet (a warning: those runs left no events), and
// what the last start reported (information: it happened, it was said).
import { describeFailedOpen, failedOpenPaths, readFailedOpen, readSeenFailedOpen } from '../../core/io/failed-open.ts';
import type { Finding } from './types.ts';

export function checkFailedOpen(home: string): Finding[] {
  const out: Finding[] = [];
  const subject = failedOpenPaths(home).log;
  const pending = readFailedOpen(home);
  if (pending.count)
    out.push({
      area: 'shim',
      subject,
      status: 'warn',
      message:
        `hooks that got no answer from hookmap: ${describeFailedOpen(pending)}; the agents went on ` +
        `with their neutral reply and those moments left no events`,
      fix: 'keep hookmap up running (hookmap up); the next start reports and clears this list',
    });
  const seen = readSeenFailedOpen(home);
  if (seen.count)
    out.push({
      area: 'shim',
      subject: failedOpenPaths(home).seen,
      status: 'info',
      message: `reported at the last hookmap up start: ${describeFailedOpen(seen)}`,
    });
  return out;
}
