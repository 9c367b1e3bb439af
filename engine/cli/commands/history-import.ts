// `hookmap history import [agent...] [--max-seconds N] [--json]` (its flags
// parsed in history.ts): the
// sessions each agent kept before hookmap (its descriptor's
// `transcript.import`) into the history (engine/person/history/import.ts), with a
// progress line on a terminal (stderr, only when it is a TTY) and a summary.
import { homedir } from 'node:os';
import { ArgError } from '../args.ts';
import type { RuntimeConfig } from '../../core/config/schema.ts';
import { pricesOf } from '../../app/history-routes.ts';
import { listVendors, loadVendor } from '../../core/descriptor/registry.ts';
import { importHistory, type ImportReport } from '../../person/history/import.ts';
import { openHomeHistory, usageError } from './history-common.ts';

function summary(r: ImportReport): string {
  const codes = new Map<string, number>();
  for (const s of r.skipped) codes.set(s.code, (codes.get(s.code) ?? 0) + 1);
  const skipped = [...codes].map(([c, n]) => `${n} ${c}`).join(', ');
  return (
    `${r.agent}: ${r.files} file(s) read, ${r.sessions} session(s) imported (${r.events} events), ${r.unchanged} already imported, ` +
    `${r.unchangedFiles} file(s) unchanged since the last import` +
    `${r.skipped.length ? `, ${r.skipped.length} skipped (${skipped})` : ''}${r.skippedLines ? `, ${r.skippedLines} line(s) skipped` : ''}` +
    `${r.stopped ? `; stopped at the ${r.stopped === 'time' ? 'time limit' : 'file limit'}: run it again to go on` : ''}`
  );
}

export async function runImport(agents: string[], flags: { json: boolean; maxSeconds: number }, config: RuntimeConfig): Promise<number> {
  const known = listVendors();
  const unknown = agents.find((a) => !known.includes(a));
  if (unknown !== undefined) return usageError('history import', new ArgError(`unknown agent '${unknown}' (one of ${known.join(', ')})`));
  const maxMs = flags.maxSeconds * 1000;
  const descriptors = (agents.length ? agents : listVendors()).map((a) => loadVendor(a)).filter((d) => d.transcript?.import);
  if (!descriptors.length) {
    process.stderr.write(`hookmap history import: ${agents.join(', ')}: the descriptor names no transcript.import (nothing to read)\n`);
    return 1;
  }
  const tty = process.stderr.isTTY === true;
  const prices = pricesOf(config.home, (l) => process.stderr.write(`${l}\n`));
  const db = openHomeHistory(config);
  const started = Date.now();
  const reports: ImportReport[] = [];
  try {
    for (const d of descriptors) {
      const left = Math.max(0, maxMs - (Date.now() - started));
      const r = await importHistory({
        home: config.home,
        userHome: homedir(),
        descriptor: d,
        db,
        prices,
        optionVars: config.options,
        hostId: config.hostId,
        maxMs: left,
        progress: tty ? (done, total) => process.stderr.write(`\r${d.vendor}: ${done}/${total} files`) : undefined,
      });
      if (tty) process.stderr.write('\r\x1b[K');
      reports.push(r);
      if (!flags.json) {
        process.stdout.write(`${summary(r)}\n`);
        for (const s of r.skipped) process.stderr.write(`  skipped [${s.code}] ${s.file}: ${s.message}\n`);
      }
    }
  } finally {
    db.close();
  }
  if (flags.json) process.stdout.write(`${JSON.stringify(reports)}\n`);
  return 0;
}
