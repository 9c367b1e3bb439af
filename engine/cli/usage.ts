// The command table: the one place each command's synopsis, summary and
// help text live. `hookmap --help`, `hookmap <command> --help` (main.ts) and
// the README's CLI section (`hookmap docs`, drift-checked) are rendered from
// it; test/cli/command-table.test.ts holds every flag a command parses
// documented here, and nothing documented that it does not parse.
import { BACKPLANE_HELP } from '../relay/backplane/config.ts';
import { wrapSynopsis, wrapText, wrapWords } from '../text/wrap.ts';

/** The token, host/origin and TLS flags `up` and `relay` share (one listener guard, engine/auth). */
const LISTENER_AUTH_HELP = `  --token-file F            the owner token in a file (or HOOKMAP_TOKEN_FILE); default $HOOKMAP_HOME/token, created on first start (0600)
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

export const COMMANDS: CommandEntry[] = [
  { name: 'up', group: 'daily', module: 'up', synopsis: 'up [--port N] [--host H] [--config F] [--policy F] [--bridge kind=URL ...] [--token-file F | --no-auth] [--tls-cert F --tls-key K] [--backplane nats://H:P] [--verbose]', summary: 'relay + every enabled daemon (+ bridges), one process, one port', help: `  --port N                  one port for the relay and every hook endpoint (default 8787; 0 = ephemeral)
  --host H                  listen address (default 127.0.0.1; anything but loopback needs a token, and TLS is advised)
  --config F                YAML/JSON: agents to enable and their options (default: every descriptor in vendors/)
  --policy F                operator policy rules (docs/policy.md): loaded now (a broken file refuses the start), then watched
  --attention-timeout-ms N  every agent's hold timeout (default: config, $HOOKMAP_ATTENTION_TIMEOUT_MS, descriptor, 55000)
  --durability none|fsync   what an acknowledged event survives: a hookmap crash (none, default) or power loss too (fsync)
  --capture L               show more: each agent's capture ceiling at least L (default metadata;
                            redacted: commands, paths, prompts, redacted; full: all, unredacted)
  --project-label M         folder (default): sessions carry their folder's name, not its path; off
  --bridge kind=URL[,k=v]   run a bridge inside up, repeatable: otlp=http://collector:4318, cloudevents=URL, ocsf=URL
                            (options as in 'hookmap bridge': capture=, protocol=, signals=, mode=, service_name=, ...)
  -v, --verbose             also print each agent's endpoint, log folder, opt-ins (with the variable that turns
                            each on), every other option with its value, and each relay link's hello; without it a
                            short summary, problems and warnings
${LISTENER_AUTH_HELP}
${BACKPLANE_HELP.replace('(default: --buffer-bytes; per session: --buffer events)', "(default: the relay's buffer size)")}
Prints where it listens, the inbox, the token file, the agents ready, the opt-ins on and what to
run next (stderr; on stdout, when it is not a terminal, the base URL). Ctrl-C stops it.
Exit: 0 stopped, 1 failed to start, 2 usage, a refused configuration, or an up already running
for this HOOKMAP_HOME or address (it says where).` },
  { name: 'setup', group: 'daily', module: 'setup', synopsis: 'setup <agent> [--user|--project] [--dir D] [--mcp] [--uninstall] [--dry-run] [--shim sh|node] [--wrap CMD --name N]', summary: "write/merge the agent's own hook config (--mcp: and its MCP server entry)", help: `  --user | --project     where the agent's config is written (default: the descriptor's setup scope)
  --dir D                the project folder (with --project; default the current directory)
  --mcp                  also register the hookmap MCP server (hookmap mcp) in the agent's MCP config (same scope; with --uninstall: remove it)
  --uninstall            remove hookmap's entries (the rest of the file is kept)
  -n, --dry-run          print the merge as a diff, write nothing
  --shim sh|node         the command shim: POSIX sh (default) or the portable Node shim
  --wrap CMD             a stdio-tee agent: add an editor entry running hookmap tee <agent> -- CMD (repeatable)
  --name N               the name the editor lists that entry under` },
  { name: 'tail', group: 'daily', module: 'tail', synopsis: 'tail [--filter F] [--session S] [--json] [--count N]', summary: 'watch the stream (resumes where it left off)', help: `  --url U                the relay (default $HOOKMAP_URL or http://127.0.0.1:8787)
  --token-file F         the token in a file (default $HOOKMAP_TOKEN_FILE, $HOOKMAP_TOKEN,
                         then $HOOKMAP_HOME/token, the owner token hookmap up made)
  --token T              the token itself (works, but argv is visible in ps)
  --filter F             attribute match, JSON or key=value, repeatable (e.g. type=tool.requested)
  --session S            one session only (any unique prefix of its id)
  --capture L            ask the relay for this ceiling (none|metadata|redacted|full)
  --json                 raw events, one JSON line each (default: a readable line)
  --from all|now         start from everything the relay holds, or from what comes next
                         (given, it wins over the saved position)
  --no-resume            ignore the saved position (default: resume where the last tail of this view stopped)
  --no-follow            stop at the end of what the relay holds
  --count N              stop after N events
  --state F              where positions are saved (default $HOOKMAP_HOME/state/tail.json)` },
  { name: 'answer', group: 'daily', module: 'answer', synopsis: 'answer <attention-id> --allow|--deny|--option ID|--text T|--values J', summary: 'answer an attention request', help: `  <attention-id>         the request's id, or any unique prefix of it
  --url U --token T      the relay (default $HOOKMAP_URL or http://127.0.0.1:8787; token: --token or $HOOKMAP_TOKEN)
  --token-file F         the token in a file (default $HOOKMAP_TOKEN_FILE, else $HOOKMAP_HOME/token)
  --allow | --deny | --option ID   the chosen option
  --text T               free text (guidance the agent reads)
  --values J             a form's values, a JSON object
  --session S            the session that asked (default: found in the relay's buffer by the id)
  --wait N               seconds to wait for the outcome (default 10)
  --json                 the ack and outcome as JSON
The request's fate is read first: one already settled is not sent again.
Exit: 0 answered, 1 refused, 2 usage (or an ambiguous prefix), 3 already answered or closed
(its session ended included), 4 timed out.` },
  { name: 'steer', group: 'daily', module: 'steer', synopsis: 'steer <session> "text" [--agent A] [--wait N]', summary: 'steer a running agent: text its next eligible hook reply carries (opt-in per agent)', help: `  <session>              the session's id, or any unique prefix of it
  --url U --token T      the relay (default $HOOKMAP_URL or http://127.0.0.1:8787; token: --token-file, $HOOKMAP_TOKEN_FILE, $HOOKMAP_TOKEN, else $HOOKMAP_HOME/token)
  --token-file F         the token in a file
  --agent A              the agent that owns the session (default: found in the relay's roster)
  --wait N               seconds to wait for x.<agent>.instruction.delivered / .dropped (default 30)
  --json                 the ack and outcome as JSON` },
  { name: 'open', group: 'daily', module: 'open', synopsis: 'open [--url U] [--token-file F] [--no-browser]', summary: 'the web inbox, signed in (one-time link)', help: `  Prints a one-time sign-in link to the web inbox of a running hookmap up
  (single use, valid 2 minutes) and opens it in a browser where one can be started.
  The link signs in as the token it was made with (a read-only token: no answer buttons).
  --url U          where hookmap up listens (default $HOOKMAP_URL or http://127.0.0.1:8787)
  --token-file F   the token to sign in with (default: $HOOKMAP_TOKEN_FILE, $HOOKMAP_TOKEN,
                   then $HOOKMAP_HOME/token, the owner token hookmap up made)
  --token T        the token itself (works, but argv is visible in ps)
  --no-browser     only print the link` },
  { name: 'doctor', group: 'daily', module: 'doctor', synopsis: 'doctor [agent...] [--json] [--dir D] [--url U]', summary: 'what is wired, running, stale or duplicated', help: `  [agent...]             the agents to look at (default: every descriptor)
  --json                 the findings as JSON
  --dir D                the project folder whose config is inspected too (default the current directory)
  --url U                where hookmap should answer (default $HOOKMAP_URL or http://127.0.0.1:8787)
Exit: 0 healthy, 1 problems, 2 usage.` },
  { name: 'capabilities', group: 'agents', module: 'capabilities', synopsis: 'capabilities [agent] [--evidence] [--json]', summary: 'what each agent proves, and what not', help: `  Each capability under its state (supported, unsupported, not implemented, ...), each state
  explained in words, the agent's reason where it has one.
  --evidence             also the fixture cases behind each claim, and the live runs
  --json                 the reports as JSON (evidence included)
Exit: 0 every agent checks out, 1 any error (as hookmap check reports it), 2 usage.` },
  { name: 'timeline', group: 'agents', module: 'timeline', synopsis: 'timeline <session> [--file F] [--dag] [--json]', summary: 'a session as a tree of runs, tool calls and attention', help: `  A session (any unique prefix of its id) as a tree: runs, tool calls (with outcome and duration)
  and attention waits, other events where they happened. A call with no outcome event of its own
  says what its permission came to ("denied by owner", "not answered; the agent decided") or
  "no outcome reported". --dag: the tree of cause links instead. --json: the nodes (or events).
  --verbose           every row, vendor x.* events and answers included (folded by default)
  --file F            read a JSONL file (an agent's log, a sink file, - for stdin) instead of the relay
  --url U --token T   the relay (default $HOOKMAP_URL or http://127.0.0.1:8787; token: --token-file, $HOOKMAP_TOKEN_FILE, $HOOKMAP_TOKEN, else $HOOKMAP_HOME/token)` },
  { name: 'cancel', group: 'agents', module: 'cancel', synopsis: 'cancel <session> [--run R] [--reason TEXT]', summary: 'stop the running turn (a held hook at once, else its next eligible reply)', help: `  <session>              the session's id, or any unique prefix of it
  --url U --token T      the relay (default $HOOKMAP_URL or http://127.0.0.1:8787; token: --token or $HOOKMAP_TOKEN)
  --token-file F         the token in a file (or $HOOKMAP_TOKEN_FILE)
  --run R                cancel this run only (default: the session's current work)
  --reason TEXT          why, carried on the command
  --wait N               seconds to wait for the outcome (default 10)
  --json                 the ack and outcome as JSON` },
  { name: 'policy', group: 'agents', module: 'policy', synopsis: 'policy check <file> [--json]', summary: 'check an operator policy file the way hookmap up --policy loads it (coded errors)', help: `  --json                 the result as JSON ({ok, digest, rules} or {ok: false, errors})
Exit: 0 the file loads, 1 it is refused (every error printed with its code and position), 2 usage.` },
  { name: 'tokens', group: 'agents', module: 'tokens', synopsis: 'tokens add <name> [--scope S] [--out FILE] | list [--json] | revoke <name>', summary: 'named relay tokens with scopes', help: `  add <name>     a new named token: --scope read,emit,control (default read); --out FILE writes it there (0600)
  list [--json]  names, scopes, created (never the tokens)
  revoke <name>  refused at once, open connections closed
Scopes: read (the stream), emit (publish events: daemons), control (answer, cancel; implies read).
The token is printed once (or written to --out, 0600) and never stored: only its SHA-256 is kept.` },
  { name: 'mcp', group: 'agents', module: 'mcp', synopsis: 'mcp --agent A [--session S] [--timeout S]', summary: 'an MCP server over stdio for an agent to start: ask_human, emit_event', help: `  --agent A        the agent whose daemon carries the calls (or HOOKMAP_AGENT)
  --url U          hookmap up (default $HOOKMAP_URL, http://127.0.0.1:8787)
  --token T        the relay token (found as the other clients find it); --token-file F: in a file
  --session S      the agent's session (or HOOKMAP_SESSION); default: the session
                   that just announced the tool call on its pre-tool hook
  --timeout S      how long ask_human waits for a human, seconds (default 300)
Register it in the agent's MCP server list as the command: hookmap mcp --agent <agent>` },
  { name: 'check', group: 'authoring', module: 'check', synopsis: 'check [agent]', summary: 'descriptors + fixtures + capability evidence', help: `  [agent] is an agent id or a descriptor path; absent: every descriptor in vendors/.
Prints every error as one located line (file:line:col code: path: message), then one summary
line per agent.
Exit: 0 everything holds, 1 any error, 2 usage.` },
  { name: 'map', group: 'authoring', module: 'map', synopsis: 'map <agent> [--capture L] [--max-step-bytes N]', summary: 'pure mapping: NDJSON steps in, NDJSON results out', help: `  --capture L            capture ceiling of the produced events: none|metadata|redacted|full (default: the descriptor's)
  --max-step-bytes N     longest input line accepted, bytes (default 8 MiB); a longer one is answered with an error line
Exit: 0 every step mapped, 1 a step errored (its line says why), 2 usage or descriptor error.` },
  { name: 'docs', group: 'authoring', module: 'docs', synopsis: 'docs [--check]', summary: "regenerate capabilities/, docs/reference/, the README's CLI section (--check: drift)", help: `  --check                write nothing; exit 1 listing every drifted, missing, stray or untracked generated file` },
  { name: 'codegen', group: 'authoring', module: 'codegen', synopsis: 'codegen [--check]', summary: 'regenerate schema types and imported AEP pins (or fail on drift)', help: `  --check                write nothing; exit 1 listing every drifted generated file` },
  { name: 'new', group: 'authoring', module: 'new', synopsis: 'new <agent> [--like <existing>] [--surface command-hook|http-hook|plugin|extension|stdio-tee|stream-subscriber] [--dir D]', summary: 'start a new agent from the closest existing one: a descriptor and a fixture folder, then check lists what to fill in', help: `  --like A       start from this agent's descriptor and fixtures (never over an existing file)
  --surface K    start from the closest agent of this surface kind (default command-hook)
  --dir D        write D/<agent>.yaml and D/<agent>/, not vendors/ and fixtures/ (guide: docs/authoring.md)` },
  { name: 'record', group: 'authoring', module: 'record', synopsis: 'record <agent> | record promote <agent> | record scan <path>', summary: 'save real payloads, strictly redacted, as fixture candidates; promote, scan', help: `  --out DIR            where candidates go (default $HOOKMAP_HOME/recorded/<agent>, HOOKMAP_HOME=~/.hookmap)
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
  run the secret scanner; prints file:line:column: rule for each finding, exit 1 if any.` },
  { name: 'relay', group: 'plumbing', module: 'relay', synopsis: 'relay [--port N] [--host H] [--token-file F | --no-auth] [--buffer N] [--backplane nats://H:P]', summary: 'the AEP relay alone, or one of a fleet on NATS JetStream', help: `  --port N             listen port (default 8787)
  --host H             listen address (default 127.0.0.1; anything but loopback needs a token)
${LISTENER_AUTH_HELP}
  --buffer N           replay buffer per session, events (default 10000)
  --buffer-bytes N     replay buffer in total, bytes (default 128 MiB; least recently written sessions go first)
  --session-buffer-bytes N  replay buffer per session, bytes (default 16 MiB)
  --max-sessions N     sessions held before least-recently-written eviction (default 500)
  --max-body N         largest POST body, bytes (default 16 MiB)
  --max-batch N        most events per NDJSON batch (default 10000)
  --max-from N         most resume positions per subscription (default 500)
  --max-subscriptions N  per WebSocket connection (default 64)
  --max-connections N  SSE streams + sockets (default 1024)
  --max-pending N      bytes queued toward one consumer before it is closed to resume (default 8 MiB)
  --prefix P           serve every route under this path prefix (behind a reverse proxy)
${BACKPLANE_HELP}` },
  { name: 'serve', group: 'plumbing', module: 'serve', synopsis: 'serve <agent|path/to/descriptor.yaml> [options]', summary: 'one daemon from one descriptor', help: `  --port N                  listen port (default 8788; 0 = ephemeral)
  --host H                  listen address (default 127.0.0.1)
  --relay URL[,URL...]      relay(s) to emit to, failing over in turn (default $HOOKMAP_RELAY or http://127.0.0.1:8787)
  --no-relay                log only; held hooks fail open at once
  --token-file F            the relay token in a file (default: HOOKMAP_TOKEN_FILE, HOOKMAP_TOKEN, then
                            $HOOKMAP_HOME/token for a loopback relay); without one control is off
  --token T                 the relay token itself (works, but argv is visible in ps)
  --log-dir D               this agent's log folder (default $HOOKMAP_HOME/logs/<agent>, HOOKMAP_HOME=~/.hookmap)
  --attention-timeout-ms N  hold timeout (default $HOOKMAP_ATTENTION_TIMEOUT_MS, else the descriptor's, else 55000)
  --max-body N              largest hook body, bytes (default 8388608)
  --durability none|fsync   what an acknowledged event survives: a hookmap crash (none, default) or power loss too (fsync: group commit)
  --fsync                   the same as --durability fsync
Endpoint: POST /hooks/<agent>[/<hook>] -> 200, body = the agent's reply bytes,
x-hookmap-exit: <code>; GET /healthz -> {ok, relay}` },
  { name: 'hook', group: 'plumbing', module: 'hook', synopsis: 'hook <agent> [hook]', summary: 'the portable Node shim (stdin → daemon → stdout)', help: `  Run by the agent (the shim): reads the hook payload on stdin, answers the agent's reply on stdout,
  always exits 0 within its bound ($HOOKMAP_URL: where the daemon is; $HOOKMAP_SHIM_TIMEOUT_MS: the bound).` },
  { name: 'tee', group: 'plumbing', module: 'tee', synopsis: 'tee <agent> [--url U] [--max-line BYTES] -- <agent command...>', summary: "wrap an editor's agent command: its stdio passed on unchanged, read as moments", help: `  --url U           where the agent's daemon is (default $HOOKMAP_URL or http://127.0.0.1:8787)
  --max-line BYTES  the longest line read as a moment (default 8 MiB); a longer one passes, reported once
Set as the editor's agent command: every byte passes unchanged, whether hookmap up runs or not;
the tee's own notes go to $HOOKMAP_HOME/logs/tee/<agent>.log, never to the editor's streams.` },
  { name: 'bridge', group: 'plumbing', module: 'bridge', synopsis: 'bridge otlp|cloudevents|ocsf [--endpoint URL] [--from-file F|-] [--capture L] [options]', summary: 'the stream out to OpenTelemetry, CloudEvents or OCSF (AEP-0005), or CloudEvents in', help: `  Projects the AEP stream (AEP-0005) to OpenTelemetry (OTLP logs + GenAI traces), CloudEvents or OCSF.
  Live from the relay (resumes where it left off), or once over a JSONL file with --from-file.
  --endpoint URL        (or --sink URL) where batches go (otlp: the collector's OTLP/HTTP base, e.g. http://localhost:4318;
                        cloudevents/ocsf: the receiving URL); absent: JSONL on stdout
  --capture L           ceiling: nothing above it leaves (none|metadata|redacted|full, default metadata)
  --from-file F         read a JSONL capture (an agent's session log, a sink file, - for stdin) instead of the relay
  --url U --token T     the relay (default $HOOKMAP_URL or http://127.0.0.1:8787; token: --token-file, $HOOKMAP_TOKEN_FILE, $HOOKMAP_TOKEN, else $HOOKMAP_HOME/token)
  --filter F --session S  attr-match filter (JSON or key=value), as for tail
  --state F             checkpoint file (default $HOOKMAP_HOME/state/bridge-<kind>-<hash>.json); --no-resume: none
  --live                first start exports only what arrives from now (default: what the relay holds, then live)
  --batch N --batch-ms MS   batch size and age before a send (default 512, 1000)
  --timeout-ms MS --retries N  per request, and retries on 5xx/429/timeouts before a batch is reported lost (10000, 6)
  --queue N             events read ahead of the sink before reading stops (backpressure, default 2048)
  --header K=V          extra request header, repeatable (e.g. a collector's authorization)
 otlp:
  --protocol P          http/protobuf (default) | http/json   (or $OTEL_EXPORTER_OTLP_PROTOCOL)
  --signals S           logs,traces (default both)
  --service-name N      resource service.name for every record (default: each event's agent)
  --idle-close-ms MS    close the open spans of a session silent this long (default 1800000)
  (--endpoint defaults to $OTEL_EXPORTER_OTLP_ENDPOINT, headers to $OTEL_EXPORTER_OTLP_HEADERS)
 cloudevents:
  --mode M              structured (default) | binary | batch
  --inbound [--port N --host H]   receive CloudEvents and post them to the relay as AEP events
Exit: 0 done (or stopped), 1 lines or items could not be handled (each reported),
2 usage or refused.` },
  { name: 'sink', group: 'plumbing', module: 'sink', synopsis: 'sink <dir> [--filter F] [--session S] [--capture L] [--retain-days N] [--max-mb N]', summary: 'durable capture: JSONL per day and session', help: `  Writes every event the relay carries to <dir>/<YYYY-MM-DD>/<agent>/<session>.jsonl (one file per day and
  session, UTC), fsynced in batches; a restart resumes where the files end (no duplicates, no gaps while
  the relay still holds the events).
  --url U --token T   the relay (default $HOOKMAP_URL or http://127.0.0.1:8787; token: --token-file, $HOOKMAP_TOKEN_FILE, $HOOKMAP_TOKEN, else $HOOKMAP_HOME/token)
  --capture L         ceiling for what is written (default metadata; full keeps everything the relay has)
  --retain-days N     delete day folders older than N days (default 30; 0 = keep)
  --max-mb N          keep the capture under N MiB, deleting whole days, oldest first (default 2048; 0 = unbounded)
  --flush-ms MS       batch window before write + fsync (default 250)
  --no-fsync          skip fsync (faster; a power loss may lose the last batch)` },
  { name: 'replay', group: 'plumbing', module: 'replay', synopsis: 'replay <file> [--session S] [--speed N] [--max-gap MS] [--dry-run]', summary: 're-emit a captured session as a new session', help: `  Re-emits the sessions of a JSONL capture (an agent's log, a sink file, - for stdin) into the relay as new
  sessions: new ids, same shape, recorded pacing. Commands are never replayed.
  --session S     only this recorded session (repeatable; any unique prefix of its id)
  --speed N       pacing: 1 = as recorded (default), 10 = ten times faster, 0 = no waiting
  --max-gap MS    longest pause kept between two events (default 2000)
  --dry-run       print the plan, send nothing
  --json          the plan (--dry-run: one event per line) or the outcome as JSON
  --url U --token T   the relay (default $HOOKMAP_URL or http://127.0.0.1:8787; token: --token-file, $HOOKMAP_TOKEN_FILE, $HOOKMAP_TOKEN, else $HOOKMAP_HOME/token)
Exit: 0 emitted (or planned), 1 the relay refused events or the file had bad lines, 2 usage.` },
  { name: 'validate', group: 'plumbing', module: 'validate', synopsis: 'validate <file.jsonl|->', summary: 'AEP envelope/payload/order/lifecycle/capture checks', help: `  --json                 the findings as JSON\nExit: 0 valid, 1 findings, 2 usage.` },
];

/** `hookmap <name> --help`: every line within 100 columns (the synopsis broken between its groups, options under their column). */
export function commandHelp(c: CommandEntry): string {
  const usage = wrapSynopsis(`usage: hookmap ${c.name} `, c.synopsis.slice(c.name.length + 1), ' '.repeat(`usage: hookmap ${c.name} `.length));
  return `${usage.join('\n')}\n${wrapText(`  ${c.summary}`)}\n${c.help ? `\n${wrapText(c.help.replace(/\n*$/, ''))}\n` : ''}`;
}

/** The commands of one group, in the table's order. */
export const commandsIn = (g: Group) => COMMANDS.filter((c) => c.group === g);

export const README_CLI_BEGIN = '<!-- cli: generated by `hookmap docs` from engine/cli/usage.ts; edit the command table there -->';
export const README_CLI_END = '<!-- /cli -->';

/** The README's CLI section: every command's synopsis and summary, in the groups of `hookmap --help`. */
export function readmeCliSection(): string {
  const cell = (s: string) => s.replace(/\|/g, '\\|');
  const tables = (Object.keys(GROUPS) as Group[]).map((g) => {
    const rows = commandsIn(g).map((c) => `| \`hookmap ${cell(c.synopsis)}\` | ${cell(c.summary)} |`);
    return `**${GROUPS[g]}**\n\n| command | what it does |\n| --- | --- |\n${rows.join('\n')}`;
  });
  return `${README_CLI_BEGIN}\n\n${tables.join('\n\n')}\n\n\`hookmap <command> --help\` prints a command's options.\n\n${README_CLI_END}`;
}

/** The README with its CLI section regenerated (undefined: the markers are missing). */
export function spliceReadme(readme: string): string | undefined {
  const a = readme.indexOf(README_CLI_BEGIN);
  const b = readme.indexOf(README_CLI_END);
  if (a < 0 || b < a) return undefined;
  return readme.slice(0, a) + readmeCliSection() + readme.slice(b + README_CLI_END.length);
}

export function commandNamed(name: string): CommandEntry {
  const c = COMMANDS.find((e) => e.name === name);
  if (!c) throw new Error(`no command '${name}' in the command table`);
  return c;
}

export function printUsage(out: NodeJS.WritableStream): void {
  const w = Math.max(...COMMANDS.map((c) => c.name.length));
  out.write('hookmap: the hooks of AI coding agents as one stream of AEP events\n\nusage: hookmap <command> [options]\n');
  for (const g of Object.keys(GROUPS) as Group[]) {
    out.write(`\n${GROUPS[g]}:\n`);
    for (const c of commandsIn(g)) out.write(`${wrapWords(`  ${c.name.padEnd(w)}  `, c.summary.split(' '), ' '.repeat(w + 4)).join('\n')}\n`);
  }
  out.write('\nhookmap <command> --help prints its options. First time: hookmap up, then hookmap setup <agent>.\n');
}
