// The shape of one command table entry (engine/cli/usage.ts) and the help text
// several entries share.

/** The token, host/origin and TLS flags `up` and `relay` share (one listener guard, engine/runtime/auth). */
export const LISTENER_AUTH_HELP = `  --token-file F            the owner token in a file (or HOOKMAP_TOKEN_FILE)
                            default $HOOKMAP_HOME/token, created on first start (0600)
  --token T                 the owner token itself (or HOOKMAP_TOKEN); works, but argv is visible in ps
  --no-auth                 no token: anyone on this machine may read the stream, nobody may answer (loopback only)
  --allow-host H            also accept this Host name (repeatable; loopback names and the bound address always are)
  --allow-origin O          also accept this web origin (repeatable; same-origin always is)
  --tls-cert F --tls-key K  serve https/wss with these PEM files`;

/** The groups `hookmap --help` lists commands in, in this order (git's habit: the daily ones first, plumbing last). */
export const GROUPS = {
  daily: 'Every day',
  agents: 'Agents, sessions and access',
  authoring: 'Writing descriptors and fixtures',
  plumbing: 'Plumbing: the pieces up runs, and the stream in and out',
} as const;
export type Group = keyof typeof GROUPS;

export interface CommandEntry {
  name: string;
  group: Group;
  module: string;
  synopsis: string;
  summary: string;
  /** The options and notes `hookmap <name> --help` prints after the synopsis. */
  help?: string;
}
