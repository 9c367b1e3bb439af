// One finding of `hookmap doctor`. `problem` makes doctor exit 1; `warn` is
// worth a look but does not lose events; `info` and `ok` are state.
export type Status = 'ok' | 'info' | 'warn' | 'problem';

export interface Finding {
  area: 'agent' | 'daemon' | 'shim' | 'logs' | 'backplane' | 'push' | 'home';
  /** What it is about: an agent id, a URL, a folder. */
  subject: string;
  status: Status;
  message: string;
  /** What to do about it, when there is something to do. */
  fix?: string;
  /** Lines shown under it: what the fix would change (a diff, at most DETAIL_LINES of it). */
  detail?: string[];
}

/** The longest detail a finding shows. */
export const DETAIL_LINES = 14;
