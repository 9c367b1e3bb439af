// The mark of an event `hookmap history import` made from an agent's own
// files (engine/runtime/usage/import-events.ts): an envelope extension attribute
// (AEP-0001 §5.4), `true` on every imported event; the history shows such a
// session in the state `imported` (engine/person/history/rows.ts).
export const IMPORTED_ATTR = 'hookmapimported';
