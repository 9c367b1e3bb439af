// People (issue 43, docs/people.md): named persons in the up config, each
// with the credentials that are theirs (named tokens, push devices, chat
// accounts) and what they approve. A held request is routed, when it is
// opened, to the people whose `approve` rows match it: the holding daemon
// stamps their names on the attention.requested event (the extension
// attribute `hookmappeople`, AEP-0002 §5.4), and, when a floor row or a rule
// of `two_people` keeps it, how many different people must allow it
// (`hookmapapprovals`). From then on every relay of a fleet reads who may see
// and answer it from the stream itself, never from one process's memory.
//
//   people:
//     - name: alice
//       tokens: [alice-laptop, alice-phone]     # `hookmap tokens add NAME`
//       devices: [3f2a…]                        # push device ids (`hookmap push devices`)
//       telegram: [111]                         # Telegram user ids
//       slack: [U0123]                          # Slack user ids
//       approve:
//         - { project: shop-api }               # every request of the project
//         - { agent: <agent id>, kind: permission }
//         - { floor: force-push }               # a floor row id, or any
//   two_people:
//     floor: [force-push, privilege]            # or [any]
//     rules: [deploy-prod]                      # rule ids (an `ask` rule)
//
// The owner token is the person `owner` and sees and answers everything. A
// principal whose name belongs to no person keeps today's behaviour (sees
// and answers everything its scopes allow): with no `people:` nothing changes.
import { z } from 'zod';
import { OWNER } from './tokens.ts';
import { askedKind } from '../../core/kernel/option-effects.ts';
import { inQuietHours, parseQuietHours, QUIET_HOURS_RE, type QuietHours } from '../../core/config/quiet-hours.ts';

/** The extension attributes a routed request carries (AEP-0002 §5.4: lowercase letters and digits). */
export const PEOPLE_ATTR = 'hookmappeople';
export const APPROVALS_ATTR = 'hookmapapprovals';
/** The stream's record of a first allow of a request that needs two people. */
export const PARTIAL_TYPE = 'x.hookmap.approval.partial';
/** The person the owner token is: sees and answers everything. */
export const OWNER_PERSON = OWNER;
export const APPROVE_KINDS = ['permission', 'question'] as const;

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const name = (what: string) => z.string().regex(NAME, "1-64 letters, digits, '.', '_' or '-'").describe(what);

const ApproveRowSchema = z
  .strictObject({
    project: z.string().min(1).optional().describe("the project label (the folder's name, or its projects.names name)"),
    agent: z.string().min(1).optional().describe('an agent id'),
    kind: z.enum(APPROVE_KINDS).optional().describe('permission (a tool gate too) | question (a form)'),
    floor: z.string().min(1).optional().describe('a floor row id (docs/rules.md), or any: requests a floor row keeps'),
  })
  .describe('one row of what a person approves: every key given must match (an empty row matches every request)');

const PersonSchema = z
  .strictObject({
    name: name('the person (what cards and the audit say)'),
    tokens: z.array(name('a named token (`hookmap tokens add NAME`)')).optional().describe('the named tokens that are theirs'),
    devices: z.array(z.string().min(1).max(128)).optional().describe('their push device ids'),
    telegram: z
      .array(z.union([z.number().int(), z.string().regex(/^-?\d{1,20}$/)]))
      .optional()
      .describe('their Telegram user ids'),
    slack: z
      .array(z.string().regex(/^[A-Z0-9]{2,32}$/, 'a Slack user id (U0123…)'))
      .optional()
      .describe('their Slack user ids'),
    approve: z.array(ApproveRowSchema).optional().describe('what is routed to them; absent: nothing (the owner sees everything)'),
    quiet_hours: z
      .string()
      .regex(QUIET_HOURS_RE, '"HH:MM-HH:MM" in local time (e.g. "22:00-07:00")')
      .optional()
      .describe('local time: their devices and private chats hear nothing then (the ladder goes on to whoever is next)'),
  })
  .describe('one person');

export const PeopleSchema = z.array(PersonSchema).max(256).describe('named people: who sees and answers which held requests (docs/people.md)');

export const TwoPeopleSchema = z
  .strictObject({
    floor: z.array(z.string().min(1)).optional().describe('floor row ids (or any) whose requests need two different people to allow'),
    rules: z.array(z.string().min(1)).optional().describe('rule ids whose matching requests need two different people to allow'),
  })
  .describe('the two-person rule: what needs an allow from two different people; any deny settles it');

export type PeopleDoc = z.infer<typeof PeopleSchema>;
export type TwoPeopleDoc = z.infer<typeof TwoPeopleSchema>;
export type ApproveRow = z.infer<typeof ApproveRowSchema>;

export class PeopleError extends Error {}

export interface Person {
  name: string;
  approve: ApproveRow[];
  quiet?: QuietHours;
  slack: string[];
}

/** Who a step of the ladder reaches (engine/person/push/ladder.ts): only these people's own devices and chats; absent, everyone routed. */
export interface Audience {
  people?: readonly string[];
}

/** What a request is, for routing: its agent, project label, kind, the floor row it hits and the rule that decided it. */
export interface RouteFacts {
  agent: string;
  project?: string;
  kind: string;
  floor?: string;
  rule?: string;
}

export interface Route {
  /** The people it is routed to (the owner always sees it, never named). */
  people: string[];
  /** How many different people must allow it (1 or 2). */
  approvals: number;
}

/** Channel principal names (engine/person/channels: `users` maps a chat user id to the name it answers as). */
export interface ChatNames {
  telegram?: Record<string, string>;
  slack?: Record<string, string>;
}

export class People {
  private readonly byPrincipal = new Map<string, string>();
  private readonly persons: Person[];

  constructor(
    doc: PeopleDoc,
    private readonly two: TwoPeopleDoc = {},
    chat: ChatNames = {},
    floorRows?: readonly string[],
  ) {
    this.persons = [];
    const seen = new Set<string>();
    const claim = (key: string, person: string, what: string) => {
      const had = this.byPrincipal.get(key);
      if (had && had !== person) throw new PeopleError(`people: ${what} belongs to both ${had} and ${person} (a credential is one person's)`);
      this.byPrincipal.set(key, person);
    };
    for (const p of doc) {
      if (p.name === OWNER_PERSON) throw new PeopleError(`people: '${OWNER_PERSON}' is the owner token's person; choose another name`);
      if (seen.has(p.name)) throw new PeopleError(`people: two people are named ${p.name}`);
      seen.add(p.name);
      for (const t of p.tokens ?? []) {
        if (t === OWNER) throw new PeopleError(`people.${p.name}: the owner token is the person '${OWNER_PERSON}', never another's`);
        claim(t, p.name, `token ${t}`);
      }
      for (const d of p.devices ?? []) claim(`device:${d}`, p.name, `push device ${d}`);
      for (const id of (p.telegram ?? []).map(String)) {
        claim(`telegram:${id}`, p.name, `Telegram user ${id}`);
        const as = chat.telegram?.[id];
        if (as) claim(as, p.name, `Telegram user ${id} (answering as ${as})`);
      }
      for (const id of p.slack ?? []) {
        claim(`slack:${id}`, p.name, `Slack user ${id}`);
        const as = chat.slack?.[id];
        if (as) claim(as, p.name, `Slack user ${id} (answering as ${as})`);
      }
      for (const [i, r] of (p.approve ?? []).entries())
        if (r.floor && r.floor !== 'any' && floorRows && !floorRows.includes(r.floor))
          throw new PeopleError(`people.${p.name}.approve[${i}].floor: unknown floor row '${r.floor}' (known: any, ${floorRows.join(', ')})`);
      const quiet = p.quiet_hours === undefined ? undefined : parseQuietHours(p.quiet_hours, `people.${p.name}`);
      this.persons.push({ name: p.name, approve: p.approve ?? [], quiet, slack: p.slack ?? [] });
    }
    checkTwoPeople(two, floorRows);
  }

  get names(): string[] {
    return this.persons.map((p) => p.name);
  }

  /** The person a principal name is (a token's name, a chat account's principal, `device:<id>`); the owner token is `owner`. */
  personOf(principal: string | undefined): string | undefined {
    if (principal === undefined) return undefined;
    if (principal === OWNER) return OWNER_PERSON;
    return this.byPrincipal.get(principal);
  }

  has(name: string): boolean {
    return this.persons.some((p) => p.name === name);
  }

  /** Whether it is within the person's own quiet hours now. */
  quiet(person: string | undefined, at: Date): boolean {
    return inQuietHours(this.persons.find((p) => p.name === person)?.quiet, at);
  }

  /** The person's Slack user ids (a card mentions them). */
  slackOf(person: string): string[] {
    return this.persons.find((p) => p.name === person)?.slack ?? [];
  }

  /**
   * Whether a holder (a device's or a chat's person; undefined: no person, e.g. a group chat) is reached by a step for a
   * request routed to `routed` (its hookmappeople attribute): it may see the request, the step names it when it names people, and it is not in its quiet hours.
   */
  reached(person: string | undefined, routed: string | undefined, audience: Audience | undefined, at: Date): boolean {
    if (!mayReach(person, { [PEOPLE_ATTR]: routed })) return false;
    if (audience?.people && (person === undefined || !audience.people.includes(person))) return false;
    return !this.quiet(person, at);
  }

  /** Who a request is routed to and how many different people must allow it. */
  route(f: RouteFacts): Route {
    const people = this.persons.filter((p) => p.approve.some((r) => rowMatches(r, f))).map((p) => p.name);
    const floorTwo = f.floor !== undefined && (this.two.floor ?? []).some((r) => r === 'any' || r === f.floor);
    const ruleTwo = f.rule !== undefined && (this.two.rules ?? []).includes(f.rule);
    return { people, approvals: floorTwo || ruleTwo ? 2 : 1 };
  }
}

/** `two_people:` names only rows the floor has (a typo would otherwise protect nothing). */
export function checkTwoPeople(two: TwoPeopleDoc | undefined, floorRows?: readonly string[]): void {
  for (const r of two?.floor ?? [])
    if (r !== 'any' && floorRows && !floorRows.includes(r))
      throw new PeopleError(`two_people.floor: unknown floor row '${r}' (known: any, ${floorRows.join(', ')})`);
}

function rowMatches(r: ApproveRow, f: RouteFacts): boolean {
  if (r.project !== undefined && r.project !== f.project) return false;
  if (r.agent !== undefined && r.agent !== f.agent) return false;
  if (r.kind !== undefined && r.kind !== askedKind(f.kind)) return false;
  if (r.floor !== undefined && (f.floor === undefined || (r.floor !== 'any' && r.floor !== f.floor))) return false;
  return true;
}

/** The people a request event is routed to; undefined when it was not routed (no people configured where it was held). */
export function routedTo(ev: { [k: string]: unknown } | undefined): string[] | undefined {
  const v = ev?.[PEOPLE_ATTR];
  if (typeof v !== 'string') return undefined;
  return v.split(',').filter(Boolean);
}

/** How many different people must allow a request event (1 unless stamped). */
export function approvalsOf(ev: { [k: string]: unknown } | undefined): number {
  const v = Number(ev?.[APPROVALS_ATTR]);
  return Number.isInteger(v) && v > 1 ? v : 1;
}

/**
 * Whether the person may see and answer a request event: a principal of no person, the owner, an
 * unrouted request (held where no people are configured) yes; otherwise only a person it is routed to.
 */
export function mayReach(person: string | undefined, ev: { [k: string]: unknown } | undefined): boolean {
  if (person === undefined || person === OWNER_PERSON) return true;
  const to = routedTo(ev);
  return to === undefined || to.includes(person);
}
