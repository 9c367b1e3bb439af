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

/** A step as the up config writes it (engine/person/push/schema.ts checks it: its one checker). */
export interface StepDoc {
  to: string | string[];
  after_ms?: number;
  when_away?: 'at_once' | 'wait';
  even_if_seen?: boolean;
  people?: string[];
}
type StepsDoc = Partial<Record<string, StepDoc[]>>;
export type LadderDoc = StepsDoc & { projects?: Record<string, StepsDoc>; agents?: Record<string, StepsDoc> };

/** A checked step as the ladder runs it. */
function stepOf(o: StepDoc): Step {
  return {
    to: [...new Set(typeof o.to === 'string' ? [o.to] : o.to)],
    afterMs: o.after_ms ?? 0,
    atOnceWhenAway: o.when_away === 'at_once',
    evenIfSeen: o.even_if_seen === true,
    ...(o.people ? { people: [...new Set(o.people)] } : {}),
  };
}

function stepsOf(v: StepsDoc): Steps {
  const out: Steps = {};
  for (const k of LADDER_KINDS) if (v[k]) out[k] = v[k]!.map(stepOf);
  return out;
}

/** The `push.ladder:` block the schema checked, as the ladder runs it. */
export function ladderOf(doc: LadderDoc | undefined): Ladder | undefined {
  if (!doc) return undefined;
  const out: Ladder = stepsOf(doc);
  for (const part of ['projects', 'agents'] as const)
    if (doc[part]) out[part] = Object.fromEntries(Object.entries(doc[part]!).map(([name, s]) => [name, stepsOf(s)]));
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
