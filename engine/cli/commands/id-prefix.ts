// Session and attention ids by any unique prefix, as git takes hashes: an
// exact id always wins; a prefix that fits one known id stands for it; one
// that fits several is a usage error listing them (exit 2); one that fits
// none is passed on unchanged (the command says what it finds, or does not).
// Shared by every command taking a session or attention id (timeline,
// answer, steer, cancel, tail --session).
import type { AepEvent } from '../../runtime/relay/store.ts';
import type { Endpoint } from './command-common.ts';
import { heldRequests, heldSessions, type KnownSession } from './held.ts';

export const EXIT_AMBIGUOUS = 2;

export type Match<T> = { kind: 'one'; id: string; item?: T } | { kind: 'none' } | { kind: 'ambiguous'; ids: string[] };

export function matchPrefix<T>(prefix: string, known: Map<string, T>): Match<T> {
  if (known.has(prefix)) return { kind: 'one', id: prefix, item: known.get(prefix) };
  const ids = [...known.keys()].filter((id) => id.startsWith(prefix)).sort();
  if (ids.length === 1) return { kind: 'one', id: ids[0], item: known.get(ids[0]) };
  return ids.length ? { kind: 'ambiguous', ids } : { kind: 'none' };
}

/** Thrown for an ambiguous prefix: the message lists every match. */
export class AmbiguousId extends Error {
  readonly exit = EXIT_AMBIGUOUS;
}

const MAX_LISTED = 20;

function ambiguous(what: string, prefix: string, lines: string[]): AmbiguousId {
  const more = lines.length > MAX_LISTED ? [`  ... and ${lines.length - MAX_LISTED} more`] : [];
  return new AmbiguousId(
    `${what} '${prefix}' is ambiguous; it starts ${lines.length} ids (give more of it):\n` +
      `${[...lines.slice(0, MAX_LISTED).map((l) => `  ${l}`), ...more].join('\n')}`,
  );
}

export const describeSession = (s: KnownSession) => `${s.id}  ${s.agent}${s.label ? `  ${s.label}` : ''}  since ${s.first.slice(0, 19).replace('T', ' ')}`;

/** The session `prefix` names among `known`: its full id (or the prefix itself when it names none). */
export function pickSession(prefix: string, known: Map<string, KnownSession>): string {
  const m = matchPrefix(prefix, known);
  if (m.kind === 'ambiguous')
    throw ambiguous(
      'session',
      prefix,
      m.ids.map((id) => describeSession(known.get(id)!)),
    );
  return m.kind === 'one' ? m.id : prefix;
}

/** A session id (or a unique prefix of one) resolved against the relay's buffer. */
export async function resolveSession(ep: Endpoint, prefix: string): Promise<string> {
  return pickSession(prefix, await heldSessions(ep));
}

/** As resolveSession, but the id as given when the relay's buffer cannot be read now (the command's own request says why); an ambiguous prefix still throws. */
export async function resolveSessionOrAsGiven(ep: Endpoint, prefix: string): Promise<string> {
  try {
    return await resolveSession(ep, prefix);
  } catch (e) {
    if (e instanceof AmbiguousId) throw e;
    return prefix;
  }
}

/** An attention id (or a unique prefix of one) resolved against the relay's buffer: its attention.requested, if held. */
export async function resolveRequest(ep: Endpoint, prefix: string): Promise<{ id: string; request?: AepEvent }> {
  const known = await heldRequests(ep);
  const m = matchPrefix(prefix, known);
  if (m.kind === 'ambiguous') {
    throw ambiguous(
      'attention id',
      prefix,
      m.ids.map((id) => {
        const r = known.get(id)!;
        return (
          `${id}  ${r.agent} ${r.session ?? ''}  ${String(r.data?.kind ?? '')}${r.subject ? ` (${r.subject})` : ''} ` +
          ` ${r.time.slice(0, 19).replace('T', ' ')}`
        );
      }),
    );
  }
  return m.kind === 'one' ? { id: m.id, request: m.item } : { id: prefix };
}
