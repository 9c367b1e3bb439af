// What a search of the history shows a person (issue 43, docs/people.md):
// the rule of a person's /stream subscription (engine/runtime/relay/
// subscription.ts) applied to the stored events. A request routed to other
// people, and every event about it (its subject or cause: the answer, the
// partial approval, a seen), is left out; a session with nothing left to
// show is not listed. The owner, and a principal of no person, see it all.
import { mayReach, OWNER_PERSON } from '../../runtime/auth/people.ts';
import type { SearchHit } from './search.ts';
import type { Db } from './store.ts';

type Ev = Record<string, unknown>;
const refs = (ev: Ev): string[] => [ev.subject, ev.cause].filter((v): v is string => typeof v === 'string' && v.length > 0);

export function forPerson(db: Db, hits: SearchHit[], person: string | undefined): SearchHit[] {
  if (person === undefined || person === OWNER_PERSON) return hits;
  const about = new Set(hits.flatMap((h) => h.events.flatMap((e) => refs(e.event as Ev))));
  const hidden = new Set<string>();
  if (about.size) {
    const rows = db.prepare('SELECT id, line FROM events WHERE id IN (SELECT value FROM json_each(?))').all(JSON.stringify([...about])) as {
      id: string;
      line: string;
    }[];
    for (const r of rows) {
      let ev: Ev | undefined;
      try {
        ev = JSON.parse(r.line) as Ev;
      } catch {
        ev = undefined;
      }
      if (!ev || !mayReach(person, ev)) hidden.add(r.id); // what cannot be read is not shown
    }
  }
  const shown = (ev: Ev) => mayReach(person, ev) && !refs(ev).some((id) => hidden.has(id));
  return hits.map((h) => ({ ...h, events: h.events.filter((e) => shown(e.event as Ev)) })).filter((h) => h.events.length > 0);
}
