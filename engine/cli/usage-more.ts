// The command table's agents and authoring groups (engine/cli/usage.ts renders them with the rest;
// `hookmap --help` lists each group in this order): capabilities, timeline, history, cancel,
// policy, tokens, the MCP server, then checking, mapping and documenting descriptors and recording
// an agent's payloads.
import { DEFAULT_URL } from '../core/config/defaults.ts';
import type { CommandEntry } from './usage-entry.ts';

export const MORE: CommandEntry[] = [
  {
    name: 'run',
    group: 'agents',
    module: 'run',
    synopsis: 'run <agent> [--dir D] [--tmux] [--model M] "prompt" | run <agent> --resume <session> "prompt"',
    summary: 'start an agent in an allowed project (headless, or in tmux to attach to), or continue one of its sessions',
    help: `  <agent>                an agent with a launch block (its page: Start, Continue)
  --dir D                the project folder (default: here); it must be allowed: a project folder
                         \`hookmap setup <agent>\` recorded (its project scope), or launch.projects in the up config
  --tmux                 the interactive agent in a named tmux session; prints the \`tmux attach\` line
  --model M              the model (only a value the agent's launch block allows)
  --option K=V           another option the launch block lists (e.g. permission_mode=plan), repeatable
  --resume S             continue session S (any unique prefix, a ~N lineage included)
  --wait N               seconds to wait for the agent's first hook (default 60)
  --url U                the running hookmap up (default $HOOKMAP_URL or ${DEFAULT_URL})
  --token-file F         its owner token (default $HOOKMAP_TOKEN_FILE, $HOOKMAP_TOKEN, else $HOOKMAP_HOME/token)
  --token T              the owner token itself (works, but argv is visible in ps)
  --json                 the run as JSON
The agent is started by \`hookmap up\` (a child of it, logged to $HOOKMAP_HOME/launch/, stopped at
launch.timeout_ms or by \`hookmap cancel <session>\`); the prompt is one argument, never a shell line.
Exit: 0 the session is on the stream (its id printed), 1 refused or no hook in time, 2 usage.`,
  },
  {
    name: 'attach',
    group: 'agents',
    module: 'attach',
    synopsis: 'attach <session> [--print]',
    summary: 'take over, in this terminal, a session `hookmap run --tmux` started',
    help: `  <session>              any unique prefix of its id (a ~N lineage included), or its launch id
  --print                print the tmux command instead of running it
  --url U                the running hookmap up (default $HOOKMAP_URL or ${DEFAULT_URL})
  --token-file F         its owner token (default $HOOKMAP_TOKEN_FILE, $HOOKMAP_TOKEN, else $HOOKMAP_HOME/token)
  --token T              the owner token itself (works, but argv is visible in ps)
up names the run's tmux session and server (launch.tmux_socket); the tmux on PATH attaches to it
(\`tmux [-L socket] attach -t <name>\`; detach with its prefix key, then d: the agent goes on).
Exit: tmux's own once it ran; 1 a headless or ended run, no such run, no tmux, refused; 2 usage.`,
  },
  {
    name: 'capabilities',
    group: 'agents',
    module: 'capabilities',
    synopsis: 'capabilities [agent] [--evidence] [--json]',
    summary: 'what each agent proves, and what not',
    help: `  Each capability under its state (supported, unsupported, not implemented, ...), each state
  explained in words, the agent's reason where it has one.
  --evidence             also the fixture cases behind each claim, and the live runs
  --json                 the reports as JSON (evidence included)
Exit: 0 every agent checks out, 1 any error (as hookmap check reports it), 2 usage.`,
  },
  {
    name: 'timeline',
    group: 'agents',
    module: 'timeline',
    synopsis: 'timeline <session> [--file F] [--dag] [--json]',
    summary: 'a session as a tree of runs, tool calls and attention',
    help: `  A session (any unique prefix of its id) as a tree: runs, tool calls (with outcome and duration)
  and attention waits, other events where they happened. A call with no outcome event of its own
  says what its permission came to ("denied by owner", "not answered; the agent decided") or
  "no outcome reported". --dag: the tree of cause links instead. --json: the nodes (or events).
  --verbose           every row, vendor x.* events and answers included (folded by default)
  --file F            read a JSONL file (an agent's log, a sink file, - for stdin) instead of the relay
  --url U --token T   the relay (default $HOOKMAP_URL or ${DEFAULT_URL})
                      token: --token-file, $HOOKMAP_TOKEN_FILE, $HOOKMAP_TOKEN, else $HOOKMAP_HOME/token`,
  },
  {
    name: 'history',
    group: 'agents',
    module: 'history',
    synopsis: 'history reindex | status | import [agent...] [--max-seconds N] [--json]',
    summary: 'rebuild the history database from the JSONL logs, say what it holds, or import the sessions from before hookmap',
    help: `  reindex                delete $HOOKMAP_HOME/history.db and index every log again (the logs are the record)
  status                 its file, sessions, events and usage records
  import [agent...]      the sessions the agents kept before hookmap (their own transcript files, the descriptor's
                         transcript.import; default every agent that has one) into the history: runs, tool calls,
                         tokens and cost at the capture ceiling (metadata: no prompt text), shown in the state
                         imported; a second import adds nothing, a session hookmap logged itself is left alone
  --max-seconds N        import: stop after N seconds (default 600; run it again to go on)
  --json                 the same as JSON (import: one report per agent, every skipped file with its code)`,
  },
  {
    name: 'cancel',
    group: 'agents',
    module: 'cancel',
    synopsis: 'cancel <session> [--run R] [--reason TEXT]',
    summary: 'stop the running turn (a held hook at once, else its next eligible reply)',
    help: `  <session>              the session's id, or any unique prefix of it
  --url U --token T      the relay (default $HOOKMAP_URL or ${DEFAULT_URL}; token: --token or $HOOKMAP_TOKEN)
  --token-file F         the token in a file (or $HOOKMAP_TOKEN_FILE)
  --run R                cancel this run only (default: the session's current work)
  --reason TEXT          why, carried on the command
  --wait N               seconds to wait for the outcome (default 10)
  --json                 the ack and outcome as JSON`,
  },
  {
    name: 'policy',
    group: 'agents',
    module: 'policy',
    synopsis: 'policy check <file> [--json]',
    summary: 'check an operator policy file the way hookmap up --policy loads it (coded errors)',
    help: `  --json                 the result as JSON ({ok, digest, rules} or {ok: false, errors})
Exit: 0 the file loads, 1 it is refused (every error printed with its code and position), 2 usage.`,
  },
  {
    name: 'config',
    group: 'agents',
    module: 'config',
    synopsis: 'config check <file>... [--json]',
    summary: 'check an up config file the way hookmap up --config loads it (coded, located findings)',
    help: `  --json                 the result as JSON ({ok, findings: [{code, file, line, col, path, message}]})
Every key, default and environment variable: docs/reference/up-config.md (JSON Schema: schemas/up-config.schema.json).
Exit: 0 the file loads, 1 findings (each printed as file:line:col code: message), 2 usage or an unreadable file.`,
  },
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
  --url U          hookmap up (default $HOOKMAP_URL, ${DEFAULT_URL})
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
    synopsis: 'map <agent> [--capture L] [--set KEY=VALUE] [--max-step-bytes N]',
    summary: 'pure mapping: NDJSON steps in, NDJSON results out',
    help: `  --capture L            capture ceiling of the produced events: none|metadata|redacted|full (default: the descriptor's)
  --set KEY=VALUE        a descriptor config option for this run (repeatable; JSON values accepted), e.g. --set primary=true
  --max-step-bytes N     longest input line accepted, bytes (default 8 MiB); a longer one is answered with an error line
Exit: 0 every step mapped, 1 a step errored (its line says why), 2 usage or descriptor error.`,
  },
  {
    name: 'docs',
    group: 'authoring',
    module: 'docs',
    synopsis: 'docs [--check]',
    summary:
      "regenerate capabilities/, docs/reference/, docs/cli.md's command tables, docs/performance.md (from bench/results/) " +
      "and the README's agent table (--check: drift)",
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
    synopsis: 'new <agent> [--like <existing>] [--surface command-hook|http-hook|plugin|extension|stdio-tee|stream-subscriber] [--hooks A,B] [--dir D]',
    summary: 'start a new agent from the closest existing one: a descriptor and a fixture folder, then check lists what to fill in',
    help: `  --like A       start from this agent's descriptor and fixtures (never over an existing file)
  --surface K    start from the closest agent of this surface kind (default command-hook)
  --hooks A,B    keep only these of its hooks (default: all but the ones no other agent has); the rest, and the
                 fixture cases firing them, are left out and said
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
  --log-dir D          the daemon's log folder (default <out>/log: its own, so 'up' keeps running and recordings stay out of the history)
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
