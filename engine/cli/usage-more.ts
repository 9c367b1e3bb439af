// The command table after the daily ones (engine/cli/usage.ts renders them with the rest, in this
// order): tokens, the MCP server, then the authoring commands (checking, mapping and documenting
// descriptors, recording an agent's payloads).
import type { CommandEntry } from './usage-entry.ts';

export const MORE: CommandEntry[] = [
  {
    name: 'tokens',
    group: 'agents',
    module: 'tokens',
    synopsis: 'tokens add <name> [--scope S] [--out FILE] | list [--json] | revoke <name>',
    summary: 'named relay tokens with scopes',
    help: `  add <name>     a new named token: --scope read,emit,control (default read); --out FILE writes it there (0600)
  list [--json]  names, scopes, created (never the tokens)
  revoke <name>  refused at once, open connections closed
Scopes: read (the stream), emit (publish events: daemons), control (answer, cancel; implies read).
The token is printed once (or written to --out, 0600) and never stored: only its SHA-256 is kept.`,
  },
  {
    name: 'mcp',
    group: 'agents',
    module: 'mcp',
    synopsis: 'mcp --agent A [--session S] [--timeout S]',
    summary: 'an MCP server over stdio for an agent to start: ask_human, emit_event',
    help: `  --agent A        the agent whose daemon carries the calls (or HOOKMAP_AGENT)
  --url U          hookmap up (default $HOOKMAP_URL, http://127.0.0.1:8787)
  --token T        the relay token (found as the other clients find it); --token-file F: in a file
  --session S      the agent's session (or HOOKMAP_SESSION); default: the session
                   that just announced the tool call on its pre-tool hook
  --timeout S      how long ask_human waits for a human, seconds (default 300)
Register it in the agent's MCP server list as the command: hookmap mcp --agent <agent>`,
  },
  {
    name: 'check',
    group: 'authoring',
    module: 'check',
    synopsis: 'check [agent]',
    summary: 'descriptors + fixtures + capability evidence',
    help: `  [agent] is an agent id or a descriptor path; absent: every descriptor in vendors/.
Prints every error as one located line (file:line:col code: path: message), then one summary
line per agent.
Exit: 0 everything holds, 1 any error, 2 usage.`,
  },
  {
    name: 'map',
    group: 'authoring',
    module: 'map',
    synopsis: 'map <agent> [--capture L] [--max-step-bytes N]',
    summary: 'pure mapping: NDJSON steps in, NDJSON results out',
    help: `  --capture L            capture ceiling of the produced events: none|metadata|redacted|full (default: the descriptor's)
  --max-step-bytes N     longest input line accepted, bytes (default 8 MiB); a longer one is answered with an error line
Exit: 0 every step mapped, 1 a step errored (its line says why), 2 usage or descriptor error.`,
  },
  {
    name: 'docs',
    group: 'authoring',
    module: 'docs',
    synopsis: 'docs [--check]',
    summary: "regenerate capabilities/, docs/reference/, the README's CLI section (--check: drift)",
    help: `  --check                write nothing; exit 1 listing every drifted, missing, stray or untracked generated file`,
  },
  {
    name: 'codegen',
    group: 'authoring',
    module: 'codegen',
    synopsis: 'codegen [--check]',
    summary: 'regenerate schema types and imported AEP pins (or fail on drift)',
    help: `  --check                write nothing; exit 1 listing every drifted generated file`,
  },
  {
    name: 'new',
    group: 'authoring',
    module: 'new',
    synopsis: 'new <agent> [--like <existing>] [--surface command-hook|http-hook|plugin|extension|stdio-tee|stream-subscriber] [--dir D]',
    summary: 'start a new agent from the closest existing one: a descriptor and a fixture folder, then check lists what to fill in',
    help: `  --like A       start from this agent's descriptor and fixtures (never over an existing file)
  --surface K    start from the closest agent of this surface kind (default command-hook)
  --dir D        write D/<agent>.yaml and D/<agent>/, not vendors/ and fixtures/ (guide: docs/authoring.md)`,
  },
  {
    name: 'record',
    group: 'authoring',
    module: 'record',
    synopsis: 'record <agent> | record promote <agent> | record scan <path>',
    summary: 'save real payloads, strictly redacted, as fixture candidates; promote, scan',
    help: `  --out DIR            where candidates go (default $HOOKMAP_HOME/recorded/<agent>, HOOKMAP_HOME=~/.hookmap)
  --port N             listen port (default 8788; 0 = ephemeral)
  --host H             listen address (default 127.0.0.1)
  --relay URL          also emit to a relay (default: none; held hooks fail open at once)
  --token-file F       the relay token in a file (default: HOOKMAP_TOKEN_FILE, HOOKMAP_TOKEN, then $HOOKMAP_HOME/token
                       for a loopback relay; --token T works but warns: argv is visible in ps)
  --log-dir D          the daemon's log folder
  --agent-version V    the agent's version when payloads do not state it (or HOOKMAP_AGENT_VERSION)
Every POST /hooks/<agent>[/<hook>] is answered exactly as 'hookmap serve' answers it and its
body saved as one 'kind: recorded' YAML file (mode 0600), redacted with the strictest settings
(secrets, secret-named keys, PII, home paths, values of secret-named environment variables).
A file in which the secret scanner still finds anything is refused, not written.

hookmap record promote <agent> [file...] [--from DIR] [--dry-run]
  copy candidates (default: every file in --from, default $HOOKMAP_HOME/recorded/<agent>) into
  fixtures/<agent>/recorded/, printing the diff of each; a candidate the scanner flags is refused.
  --dry-run prints the diffs and copies nothing. Exit 1 if any candidate was refused.

hookmap record scan <file|dir>...
  run the secret scanner; prints file:line:column: rule for each finding, exit 1 if any.`,
  },
];
