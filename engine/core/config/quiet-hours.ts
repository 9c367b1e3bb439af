// Quiet hours, "HH:MM-HH:MM" in local time (the range may wrap midnight): the
// whole push block's (push.quiet_hours, nothing is pushed then) and a
// person's own (people[].quiet_hours: their devices and private chats hear
// nothing then, and the ladder goes on to whoever is next).

/** The pattern a quiet_hours string matches (the config schema's, the parser's). */
export const QUIET_HOURS_RE = /^\s*([01]?\d|2[0-3]):([0-5]\d)-([01]?\d|2[0-3]):([0-5]\d)\s*$/;

export interface QuietHours {
  /** Minutes of the day. */
  from: number;
  to: number;
}

export class QuietHoursError extends Error {}

/** `HH:MM-HH:MM` as minutes of the day. */
export function parseQuietHours(s: unknown, where: string): QuietHours {
  const m = typeof s === 'string' ? QUIET_HOURS_RE.exec(s) : null;
  if (!m) throw new QuietHoursError(`${where}: quiet_hours is "HH:MM-HH:MM" in local time (e.g. "22:00-07:00"), got ${JSON.stringify(s)}`);
  const from = Number(m[1]) * 60 + Number(m[2]);
  const to = Number(m[3]) * 60 + Number(m[4]);
  if (from === to) throw new QuietHoursError(`${where}: quiet_hours ${s} is empty (from equals to)`);
  return { from, to };
}

export function inQuietHours(q: QuietHours | undefined, at: Date): boolean {
  if (!q) return false;
  const m = at.getHours() * 60 + at.getMinutes();
  return q.from < q.to ? m >= q.from && m < q.to : m >= q.from || m < q.to;
}
