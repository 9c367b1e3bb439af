// The floor's rows about what options do (issue 40): a program an option or
// a script runs (`find -exec`, `git -c core.pager=…`, `rg --pre`, `tar
// --to-command`, sed's `e`, awk's `system()` ...) is a command the rule for
// the outer one never saw, and an option of a listed command that the table
// does not know, given a value, could be either: both go to a person. The
// paths options write are in writeTargets (floor-row.ts), so they meet the
// same start-up-file and write-outside rows as a redirection. The options
// are data: option-table.yaml, read by options.ts.
import { firstHit, type FloorRow } from './floor-row.ts';
import { readOptions } from './options.ts';

export const optionRuns: FloorRow = {
  id: 'option-runs',
  why: 'runs a program an option or a script names (find -exec, git -c core.pager, rg --pre, sed e, awk system() ...)',
  hits: [
    'find . -exec "$TOOL" {} \\;',
    `git grep --open-files-in-pager='sh -c "id"' TODO`,
    "git -c core.pager='sh -c id' log",
    'rg --pre ./x TODO',
    "tar -xf a.tar --to-command='sh -c id'",
    "sed 's/.*/id/e' f",
    `awk 'BEGIN{system("id")}'`,
  ],
  misses: [
    'find . -name "*.ts"',
    'find . -exec grep -l TODO {} +',
    'git grep TODO',
    'git -c color.ui=never log',
    'rg TODO',
    "sed 's/a/b/' f",
    "awk '{print $1}' f",
  ],
  check(reading) {
    return firstHit(reading.commands, (c) => {
      // find -exec with plain words: the command it runs is read as one of its own (commands.ts), met by every row and rule
      const run = readOptions(c).runs.find((r) => !r.read);
      return run && `${run.what} (${run.row.why})`;
    });
  },
};

export const optionUnknown: FloorRow = {
  id: 'option-unknown',
  why: 'gives an option with a value that the options table does not know for this command (it could write or run something)',
  hits: ['git log --frobnicate=x', 'curl --frob=1 https://example.com', 'sort --weird=x f', 'find . -frobnicate x'],
  misses: ['git log --format=%H', 'curl --max-time=5 https://example.com', 'sort -k2 f', 'find . -maxdepth 1 -name x', 'npm test --frobnicate=x'],
  check(reading) {
    return firstHit(reading.commands, (c) => readOptions(c).unknown[0]);
  },
};
