// Human output of `hookmap doctor`: grouped by area, one line per finding,
// the fix indented under it, a one-line verdict at the end.
import type { DoctorReport } from './index.ts';
import type { Finding } from './types.ts';

const MARK: Record<Finding['status'], string> = { ok: ' ok ', info: ' -- ', warn: 'WARN', problem: 'FAIL' };
const TITLE: Record<Finding['area'], string> = {
  agent: 'agents',
  shim: 'shims',
  daemon: 'daemon',
  backplane: 'backplane',
  push: 'web push and channels',
  logs: 'logs',
  home: "hookmap's home",
};

export function renderReport(r: DoctorReport): string {
  const lines: string[] = [];
  for (const area of Object.keys(TITLE) as Finding['area'][]) {
    const fs = r.findings.filter((f) => f.area === area);
    if (!fs.length) continue;
    lines.push(TITLE[area]);
    for (const f of fs) {
      lines.push(`  [${MARK[f.status]}] ${area === 'agent' ? `${f.subject}: ` : ''}${f.message}`);
      if (f.fix && f.status !== 'ok') lines.push(`         fix: ${f.fix}`);
      for (const d of f.detail ?? []) lines.push(`           ${d}`);
    }
  }
  lines.push('');
  lines.push(
    r.healthy
      ? `healthy${r.warnings ? ` (${r.warnings} warning${r.warnings > 1 ? 's' : ''})` : ''}; wired: ${r.wired.join(', ') || 'none'}`
      : `${r.problems} problem${r.problems > 1 ? 's' : ''}, ${r.warnings} warning${r.warnings === 1 ? '' : 's'}`,
  );
  return `${lines.join('\n')}\n`;
}
