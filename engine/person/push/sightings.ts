// What the stream says of who has seen a pending request, and from which
// surface each answer came (moments.ts, ladder.ts): read off the relay's
// stream, never an in-process object, so an up on another machine of the
// fleet sees the same. A seen is hookmap's own record (x.hookmap.attention.seen in an
// operator session; moments.ts believes it from no agent's session);
// an answer's surface is its command's emitter (`hookmap-telegram`), said
// beside the answer's `by` (which the relay authenticated).
import type { AepEvent } from '../../runtime/relay/index.ts';
import type { Seen } from './ladder.ts';

const MAX_SEEN = 32;
const MAX_IDS = 2000;

function bounded<V>(m: Map<string, V>, key: string): void {
  if (!m.has(key) && m.size >= MAX_IDS) m.delete(m.keys().next().value as string);
}

export class Sightings {
  private readonly seenOf = new Map<string, Seen[]>();
  private readonly viaOf = new Map<string, string>();

  /** Who has seen it so far (the same list grows as seen events come). */
  of(id: string): Seen[] {
    let list = this.seenOf.get(id);
    if (!list) {
      bounded(this.seenOf, id);
      this.seenOf.set(id, (list = []));
    }
    return list;
  }

  /** A seen event (hookmap's own record), for a request `known` says is pending or shown. */
  seen(ev: AepEvent, known: (id: string) => boolean): void {
    const d = (ev.data ?? {}) as Record<string, unknown>;
    const id = String(ev.subject ?? '');
    if (typeof d.by !== 'string' || typeof d.via !== 'string' || !known(id)) return;
    const list = this.of(id);
    if (list.length < MAX_SEEN && !list.some((x) => x.by === d.by && x.via === d.via)) list.push({ by: d.by.slice(0, 80), via: d.via.slice(0, 40) });
  }

  /** An answer command: its surface, from its emitter's name. */
  command(ev: AepEvent): void {
    bounded(this.viaOf, ev.id);
    const agent = String(ev.agent ?? '');
    this.viaOf.set(ev.id, agent.startsWith('hookmap-') ? agent.slice('hookmap-'.length) : agent);
  }

  /** " via telegram" for the answer caused by that command (a rule's answer names the rule already). */
  answeredVia(by: string, cause: string | undefined): string {
    const via = cause ? this.viaOf.get(cause) : undefined;
    if (cause) this.viaOf.delete(cause);
    return via && !by.startsWith('rule:') ? ` via ${via}` : '';
  }

  settled(id: string): void {
    this.seenOf.delete(id);
  }
}
