// What a session is called in the inbox: its project (the name the engine
// put on session.started as the `hookmapproject` extension attribute,
// AEP-0001 §5.4: the folder's name or one the user gave), else the last
// folder of the session's cwd where capture carried it, else its id. Beside
// a project, a short id (the first characters, as git shortens hashes) and
// the start time tell sessions of one project apart.

export interface SessionLabel {
  /** The project, when one is known. */
  project?: string;
  /** Where the project came from, for a tooltip: the cwd or "project". */
  from?: string;
  /** The id cut to what a person can compare at a glance. */
  short: string;
}

export function projectName(cwd: string | undefined): string | undefined {
  if (!cwd) return undefined;
  const parts = cwd.replace(/[\\/]+$/, '').split(/[\\/]/);
  return parts[parts.length - 1] || cwd;
}

export function sessionLabel(s: { id: string; project?: string; cwd?: string }): SessionLabel {
  const short = shortId(s.id);
  if (s.project) return { project: s.project, from: s.cwd ?? `project ${s.project}`, short };
  const folder = projectName(s.cwd);
  return folder ? { project: folder, from: s.cwd, short } : { short };
}

/** The first 8 characters of a session id (an id that short stays whole). */
export function shortId(id: string): string {
  return id.length > 10 ? id.slice(0, 8) : id;
}

/** A session id where it is the only name: long enough to recognise, cut with an ellipsis. */
export function longId(id: string): string {
  return id.length > 18 ? `${id.slice(0, 16)}…` : id;
}
