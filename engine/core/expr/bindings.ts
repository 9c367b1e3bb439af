// The `$names` an expression can read, per position in a descriptor
// (docs/expressions.md). The mapper (engine/core/map/mapper.ts) and the daemon's
// decision rendering bind exactly these; the name checker (names.ts)
// resolves every `$variable` against the table of its position when a
// descriptor loads, and the expression reference is generated from it.

/** Where in a descriptor an expression sits; each position has its own bindings. */
export type Position =
  | 'hook_name'
  | 'defer'
  | 'session'
  | 'run'
  | 'vars'
  | 'lookup'
  | 'suppress'
  | 'emit'
  | 'snapshot'
  | 'snapshot_emit'
  | 'hold'
  | 'settle'
  | 'store'
  | 'fallback'
  | 'decision'
  | 'command'
  | 'reply'
  | 'policy'
  | 'transcript';

export interface Binding {
  name: string;
  /** What it holds. */
  doc: string;
  /** A function binding (called, not read). */
  fn?: boolean;
  positions: readonly Position[];
}

const MAPPING: Position[] = ['vars', 'lookup', 'suppress', 'emit', 'snapshot', 'snapshot_emit', 'hold', 'settle', 'store', 'fallback'];
const AFTER_EMITS: Position[] = ['emit', 'snapshot', 'snapshot_emit', 'hold', 'settle', 'store', 'fallback', 'reply'];

export const BINDINGS: readonly Binding[] = [
  { name: 'hook', doc: 'the name of the hook that fired', positions: ['defer', 'session', 'run', ...MAPPING, 'decision', 'reply', 'policy'] },
  {
    name: 'agent',
    doc: "this descriptor's agent id (its `vendor`)",
    positions: ['defer', 'run', ...MAPPING, 'decision', 'command', 'reply', 'policy', 'transcript'],
  },
  {
    name: 'config',
    doc: "the agent's configuration: the descriptor's `config` with operator overrides applied",
    positions: ['defer', 'run', ...MAPPING, 'decision', 'command', 'reply', 'transcript'],
  },
  {
    name: 'surface',
    doc: 'what the surface knows beside the payload (a tee connection, a subscribed stream id), when it says anything',
    positions: ['hook_name', 'defer', 'session', 'run', ...MAPPING, 'reply'],
  },
  {
    name: 'known_session',
    doc: '`$known_session(id)`: true when this engine has already seen a session with that id (join a foreign key onto a known session, never mint one)',
    fn: true,
    positions: ['session'],
  },
  {
    name: 'session',
    doc: 'the session id of this firing (commands: the session the command addresses)',
    positions: ['run', ...MAPPING, 'decision', 'command', 'reply', 'policy'],
  },
  { name: 'first_sight', doc: 'true on the first firing of a session this engine has seen', positions: ['run', ...MAPPING, 'reply'] },
  {
    name: 'run',
    doc: "the current run id (the agent's own, or the synthesized one), if a run is open (policy: the run open before the firing)",
    positions: [...MAPPING, 'decision', 'command', 'reply', 'policy'],
  },
  { name: 'run_open', doc: 'true while a run is open (updated as this firing opens and closes runs)', positions: [...MAPPING, 'command', 'reply'] },
  { name: 'run_start', doc: "the id of the current run's opening event (a `cause` for its terminal)", positions: [...MAPPING, 'reply'] },
  { name: 'previous', doc: 'the id of the event this firing emitted last (a `cause` for the next one)', positions: AFTER_EMITS },
  { name: 'first', doc: 'the id of the first event this firing emitted', positions: AFTER_EMITS },
  { name: 'prev', doc: 'snapshot emits: the previous version of this item (undefined when it is new)', positions: ['snapshot_emit'] },
  { name: 'id', doc: "snapshot emits: this item's id (the snapshot's `id` expression)", positions: ['snapshot_emit'] },
  { name: 'events', doc: 'store: the events this firing emitted, `[{id, type}]`', positions: ['store'] },
  { name: 'event_id', doc: 'store: the id of the first event this firing emitted', positions: ['store'] },
  { name: 'option', doc: 'decisions: the option the answer applied (allow, deny, ...), if any', positions: ['decision'] },
  {
    name: 'text',
    doc: 'decisions: the guidance text of the answer, if any; decide replies: the instructions to add as context, joined',
    positions: ['decision', 'reply'],
  },
  { name: 'values', doc: 'decisions: the form values of the answer, if any', positions: ['decision'] },
  { name: 'answer', doc: 'decisions: the whole answer command payload', positions: ['decision'] },
  { name: 'request', doc: 'decisions: the attention.requested event the answer settles', positions: ['decision'] },
  {
    name: 'always',
    doc:
      'decisions: the "allow always" an answer asked to persist natively (`{ match: ' +
      'exact|prefix|tool, tool, command, prefix, scope: session|project|user }`), else undefined',
    positions: ['decision'],
  },
  { name: 'command', doc: 'commands: the whole control command event', positions: ['command'] },
  { name: 'verb', doc: 'decide replies: the verb the reply carries (context, cancel, block, continue)', positions: ['reply'] },
  {
    name: 'reason',
    doc:
      'decide replies: why (cancel, block, continue), the text the agent shows the model; hold ' +
      'decisions: the reason of a `cancel` decision (a control.cancel answering a held hook)',
    positions: ['reply', 'decision'],
  },
  { name: 'data', doc: "commands: the command's `data`", positions: ['command'] },
  { name: 'home', doc: "transcript folders: the user's home folder", positions: ['transcript'] },
];

/** A human label for a position, for error messages and the reference. */
export const POSITION_LABEL: Record<Position, string> = {
  hook_name: '`surface.hook_name`',
  defer: '`defer[].when`',
  session: '`identity.session`',
  run: '`identity.run`',
  vars: '`vars`',
  lookup: 'a `lookup` key',
  suppress: '`suppress`',
  emit: 'an emit',
  snapshot: '`snapshot.items` / `snapshot.id`',
  snapshot_emit: 'a snapshot emit',
  hold: 'a `hold` (`when`, `key`)',
  settle: '`settle.key`',
  store: 'a `store`',
  fallback: '`fallback`',
  decision: 'a hold decision or outcome',
  command: 'a `commands` entry',
  reply: 'a `decide` entry (`when`, `reply`)',
  policy: 'an operator policy rule (`when`, `reason`, `text`)',
  transcript: '`transcript` (`path`, `folders`, `line`)',
};

/** The engine-bound names one position sees. */
export function bindingsAt(position: Position): Binding[] {
  return BINDINGS.filter((b) => b.positions.includes(position));
}
