// The project a session runs in, as a label every view can show at the
// default capture (issue 31 item 2): the name of the agent's working folder,
// never its path, carried by the session.started envelope as the AEP-0001
// §5.4 extension attribute `hookmapproject`. The path itself stays where the
// schema puts it (`cwd`, gated at redacted). A person can name a folder
// (`projects.names` in the up config, matched on the folder or any parent),
// or turn the label off (`projects.label: off`, `hookmap up --project-label off`).
import { basename, resolve } from 'node:path';

export const PROJECT_ATTR = 'hookmapproject';
const MAX_LABEL = 80;

export type ProjectLabelMode = 'folder' | 'off';

export interface ProjectLabels {
  /** `folder` (default): the working folder's name; `off`: no label at all. */
  mode?: ProjectLabelMode;
  /** Absolute folder path -> the name to show (a session in a subfolder takes its nearest named parent). */
  names?: Readonly<Record<string, string>>;
}

/** One short line of printable text, or undefined. */
function clean(s: string): string | undefined {
  // eslint-disable-next-line no-control-regex
  const t = s.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ').trim();
  return t ? (t.length > MAX_LABEL ? `${t.slice(0, MAX_LABEL - 1)}…` : t) : undefined;
}

/** The label for a session whose agent reports `cwd`, or undefined (no cwd, labels off). */
export function projectLabel(cwd: unknown, o: ProjectLabels = {}): string | undefined {
  if (o.mode === 'off' || typeof cwd !== 'string' || !cwd.trim()) return undefined;
  // a Windows agent's path reads the same way
  const path = cwd.replace(/\\/g, '/').replace(/\/+$/, '') || '/';
  if (o.names) {
    let best: { len: number; name: string } | undefined;
    for (const [folder, name] of Object.entries(o.names)) {
      const f = resolve(folder).replace(/\/+$/, '') || '/';
      if ((path === f || path.startsWith(f === '/' ? '/' : `${f}/`)) && (!best || f.length > best.len)) best = { len: f.length, name };
    }
    if (best) return clean(best.name);
  }
  return clean(basename(path) || path);
}
