// The escalation ladder (issue 43, docs/escalation.md): per kind of moment,
// optionally per project (folder name) and per agent, an ordered list of
// steps, each naming the surfaces it reaches and when:
//
//   push:
//     ladder:
//       permission:
//         - { to: inbox }                      # at once (the inbox lists every held request anyway)
//         - { to: push, after_ms: 10000, when_away: at_once }
//         - { to: telegram, after_ms: 60000 }
//       projects: { shop-api: { permission: [...] } }
//       agents: { <agent id>: { question: [...] } }
//
// A step is skipped once someone has seen the request (x.hookmap.attention.seen on
// the stream: the inbox card opened, the notification tapped, "I'm on it"
// on a chat card), unless it says `even_if_seen`; then its card says who
// has seen it. `when_away: at_once`: with no inbox tab visible anywhere
// (nobody at the desk), the step does not wait. Without a ladder for a
// kind, the default is push.delay_ms's one step: every surface after the
// delay, at once when nobody is at the desk, seen or not (as before there
// were ladders). A step names surfaces; who each reaches follows people
// (docs/people.md): a request is seen by everyone it is routed to, and a step
// with `people: [bob]` reaches only bob's own devices and chats (a second
// person after five minutes; a person in their quiet hours is skipped).
import { ALERT_KINDS } from './payload.ts';
import { askedKind } from '../../core/kernel/option-effects.ts';

/** What a seen event is on the stream: hookmap's own record in the operator's session, naming the request (subject), who and where. */
export const SEEN = 'x.hookmap.attention.seen';
/** The surfaces a step can name: the inbox, Web Push, the chat channels (engine/person/channels/schema.ts CHANNEL_KINDS). */
export const SURFACES = ['inbox', 'push', 'telegram', 'slack', 'ntfy', 'webhook'] as const;
/** Every surface the moments reach (the default ladder's one step). */
export const EVERY = '*';
/** The surfaces that reach one person (their push devices, their private Telegram chat, a mention on Slack): what a step with people may name. */
export const PERSONAL = ['push', 'telegram', 'slack'] as const;
const STEP_KEYS = ['to', 'after_ms', 'when_away', 'even_if_seen', 'people'];
export const LADDER_KINDS = ['permission', 'question', 'watch', ...ALERT_KINDS.filter((k) => k !== 'permission' && k !== 'question')] as const;
export type LadderKind = (typeof LADDER_KINDS)[number];

export interface Step {
  /** Surface names (SURFACES), or EVERY. */
  to: string[];
  afterMs: number;
  /** With nobody at the desk, the step fires at once. */
  atOnceWhenAway?: boolean;
  /** Fires even once someone has seen the request (its card says who). */
  evenIfSeen?: boolean;
  /** Only these people's own devices and chats (a Slack card mentions them), among those the request is routed to. */
  people?: string[];
}

export type Steps = Partial<Record<LadderKind, Step[]>>;

export interface Ladder extends Steps {
  projects?: Record<string, Steps>;
  agents?: Record<string, Steps>;
}

export interface Seen {
  by: string;
  via: string;
}

export class LadderError extends Error {}

function stepOf(v: unknown, where: string): Step {
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw new LadderError(`${where} must be a mapping { ${STEP_KEYS.join(', ')} }`);
  const o = v as Record<string, unknown>;
  for (const k of Object.keys(o)) if (!STEP_KEYS.includes(k)) throw new LadderError(`${where}: unknown key '${k}' (known: ${STEP_KEYS.join(', ')})`);
  const to = typeof o.to === 'string' ? [o.to] : o.to;
  if (!Array.isArray(to) || !to.length || !to.every((x) => typeof x === 'string')) throw new LadderError(`${where}: to names a surface or a list of them`);
  for (const s of to as string[]) {
    if (s === 'person') throw new LadderError(`${where}: 'person' is no surface (people decide who: docs/people.md); known: ${SURFACES.join(', ')}`);
    if (!(SURFACES as readonly string[]).includes(s)) throw new LadderError(`${where}: unknown surface '${s}' (known: ${SURFACES.join(', ')})`);
  }
  const after = o.after_ms ?? 0;
  if (!Number.isSafeInteger(after) || (after as number) < 0) throw new LadderError(`${where}: after_ms must be a non-negative integer (milliseconds)`);
  if (o.when_away !== undefined && o.when_away !== 'at_once' && o.when_away !== 'wait') throw new LadderError(`${where}: when_away is at_once or wait`);
  if (o.even_if_seen !== undefined && typeof o.even_if_seen !== 'boolean') throw new LadderError(`${where}: even_if_seen is true or false`);
  const people = o.people;
  if (people !== undefined && (!Array.isArray(people) || !people.length || !people.every((p) => typeof p === 'string' && p)))
    throw new LadderError(`${where}: people is a list of people's names (people:)`);
  const on = (to as string[]).filter((s) => !(PERSONAL as readonly string[]).includes(s));
  if (people && on.length) throw new LadderError(`${where}: a step with people reaches their own ${PERSONAL.join(', ')}; ${on.join(', ')} reach no one person`);
  return {
    to: [...new Set(to as string[])],
    afterMs: after as number,
    atOnceWhenAway: o.when_away === 'at_once',
    evenIfSeen: o.even_if_seen === true,
    ...(people ? { people: [...new Set(people as string[])] } : {}),
  };
}

function stepsOf(v: Record<string, unknown>, where: string, more: string[] = []): Steps {
  const out: Steps = {};
  for (const [k, list] of Object.entries(v)) {
    if (more.includes(k)) continue;
    if (!(LADDER_KINDS as readonly string[]).includes(k))
      throw new LadderError(`${where}: unknown key '${k}' (known: ${[...LADDER_KINDS, ...more].join(', ')})`);
    if (!Array.isArray(list) || !list.length) throw new LadderError(`${where}.${k} is a list of steps`);
    out[k as LadderKind] = list.map((s, i) => stepOf(s, `${where}.${k}[${i}]`));
  }
  return out;
}

const mapping = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/** The `push.ladder:` block, checked (each error says where). */
export function ladderOf(doc: unknown, where = 'push.ladder'): Ladder | undefined {
  if (doc === undefined || doc === null) return undefined;
  if (!mapping(doc)) throw new LadderError(`${where} maps a kind (${LADDER_KINDS.join(', ')}), projects or agents to steps`);
  const out: Ladder = stepsOf(doc, where, ['projects', 'agents']);
  for (const part of ['projects', 'agents'] as const) {
    const v = doc[part];
    if (v === undefined) continue;
    if (!mapping(v)) throw new LadderError(`${where}.${part} maps a name to { <kind>: [steps] }`);
    out[part] = Object.fromEntries(
      Object.entries(v).map(([name, s]) => {
        if (!mapping(s)) throw new LadderError(`${where}.${part}.${name} maps a kind to steps`);
        return [name, stepsOf(s, `${where}.${part}.${name}`)];
      }),
    );
  }
  return out;
}

/** Every person a ladder's steps name (the up config checks each is a person of people:), with where. */
export function ladderPeople(l: Ladder | undefined): { name: string; where: (string | number)[] }[] {
  const out: { name: string; where: (string | number)[] }[] = [];
  const walk = (s: Steps | undefined, at: (string | number)[]) => {
    for (const k of LADDER_KINDS) (s?.[k] ?? []).forEach((st, i) => st.people?.forEach((name) => out.push({ name, where: [...at, k, i, 'people'] })));
  };
  walk(l, []);
  for (const part of ['projects', 'agents'] as const) for (const [n, s] of Object.entries(l?.[part] ?? {})) walk(s, [part, n]);
  return out;
}

/** The ladder kind of a request (form: question; a tool gate asks permission) or an alert. */
export const ladderKind = (kind: string): LadderKind => askedKind(kind) as LadderKind;

/** The steps of a moment: the agent's, else its project's, else the kind's, else the default (every surface after `defaultMs`, at once when away). */
export function stepsFor(l: Ladder | undefined, kind: LadderKind, agent: string, project: string | undefined, defaultMs: number): Step[] {
  const own = l?.agents?.[agent]?.[kind] ?? (project ? l?.projects?.[project]?.[kind] : undefined) ?? l?.[kind];
  // as before ladders: seen or not, every surface hears of it (a configured ladder is what skips on seen)
  return own ?? [{ to: [EVERY], afterMs: defaultMs, atOnceWhenAway: true, evenIfSeen: true }];
}

/** When a step fires, from now. */
export const waitOf = (s: Step, away: boolean): number => (away && s.atOnceWhenAway ? 0 : s.afterMs);

/** Whether a step reaches the sink of this name. */
export const reaches = (s: Step, sink: string): boolean => s.to.includes(EVERY) || s.to.includes(sink);

/** "seen by alice via inbox, bob via telegram" (empty when nobody has). */
export const seenLine = (seen: readonly Seen[] | undefined): string => (seen?.length ? `seen by ${seen.map((s) => `${s.by} via ${s.via}`).join(', ')}` : '');
