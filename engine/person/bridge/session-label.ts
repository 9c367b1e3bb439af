// What a person calls a session: its project. The session.started envelope's
// extension attribute `hookmapproject` (the project label hookmap stamps)
// when present, else the last segment of `data.cwd` where the capture
// ceiling let the folder through; never the full path (a home path names
// its owner). Views show it beside the session id (`timeline`, `tail`, the
// CLI's id prefix matches).
import type { AepEvent } from './projection/common.ts';

export function sessionLabel(started: AepEvent): string | undefined {
  const project = started.hookmapproject;
  if (typeof project === 'string' && project.trim() !== '') return project.trim();
  const cwd = started.data?.cwd;
  if (typeof cwd !== 'string') return undefined;
  const base = cwd
    .replace(/[\\/]+$/, '')
    .split(/[\\/]/)
    .pop();
  return base || undefined;
}
