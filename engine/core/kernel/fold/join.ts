// How the fold (fold.ts) finds the call an event is about: by what the stream
// says first (a call id, a `cause` naming the call's event, a request whose
// subject is the call id), and only then by the tool's name. Browser-safe.
import type { CallStory, FoldEvent, SessionStory } from './story.ts';

/** The call a tool terminal closes: by call id, by cause, else the oldest open call of that tool (no call id) in its run. */
export function callForTerminal<E extends FoldEvent>(
  s: SessionStory<E>,
  ev: E,
  callId: string | undefined,
  name: string | undefined,
  run: string | undefined,
): CallStory<E> | undefined {
  const named = callId ? s.callById.get(callId) : undefined;
  if (named && !named.end) return named;
  if (ev.cause) {
    const c = s.callByEvent.get(ev.cause);
    if (c && !c.end) return c;
  }
  for (const c of s.calls.values()) if (!c.end && !c.closedBy && !c.callId && c.name === name && (run === undefined || c.run === run) && c.req) return c;
  return undefined;
}

/**
 * The call a request asks about: the one its `cause` names, or whose call id
 * is its subject (a protocol may name the call by its id alone); else, for a
 * permission request naming a tool, the newest open call of that tool in the
 * same run not yet asked about (the agent asks right after announcing it).
 */
export function callForRequest<E extends FoldEvent>(s: SessionStory<E>, req: E): CallStory<E> | undefined {
  const byCause = req.cause ? s.callByEvent.get(req.cause) : undefined;
  if (byCause) return byCause;
  const named = req.subject ? s.callById.get(req.subject) : undefined;
  if (named && (req.run === undefined || named.run === req.run)) return named;
  if (req.data?.kind !== 'permission' || !req.subject) return undefined;
  const calls = [...s.calls.values()];
  for (let i = calls.length - 1; i >= 0; i--) {
    const c = calls[i];
    if (c.end || c.closedBy || c.requests.length || c.run !== req.run || !c.req) continue;
    if (c.name === req.subject) return c;
  }
  return undefined;
}
