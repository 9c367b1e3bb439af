// The command table: the one place each command's synopsis, summary and
// help text live. `hookmap --help`, `hookmap <command> --help` (main.ts) and
// docs/cli.md's command tables (`hookmap docs`, drift-checked) are rendered from
// it; test/cli/command-table.test.ts holds every flag a command parses
// documented here, and nothing documented that it does not parse.
import { DEFAULT_ATTENTION_TIMEOUT_MS, DEFAULT_PORT, DEFAULT_URL } from '../core/config/defaults.ts';
import { wrapSynopsis, wrapText, wrapWords } from '../core/text/wrap.ts';
import { BACKPLANE_HELP } from '../runtime/relay/backplane/config.ts';
import { GROUPS, LISTENER_AUTH_HELP, type CommandEntry, type Group } from './usage-entry.ts';
import { HISTORY } from './usage-history.ts';
import { MORE } from './usage-more.ts';
import { PLUMBING } from './usage-plumbing.ts';

export { GROUPS, type CommandEntry, type Group } from './usage-entry.ts';

export const COMMANDS: CommandEntry[] = [
  {
    name: 'up',
    group: 'daily',
    module: 'up',
    synopsis:
      'up [--port N] [--host H] [--config F] [--policy F] [--bridge kind=URL ...] [--token-file F ' +
      '| --no-auth] [--tls-cert F --tls-key K] [--backplane nats://H:P] [--verbose]',
    summary: 'relay + every enabled daemon (+ bridges), one process, one port',
    help: `  --port N                  one port for the relay and every hook endpoint (default ${DEFAULT_PORT}; 0 = ephemeral)
  --host H                  listen address (default 127.0.0.1; anything but loopback needs a token, and TLS is advised)
  --config F                YAML/JSON: agents to enable and their options (default: every descriptor in vendors/);
                            every key: docs/reference/up-config.md; check it first: hookmap config check F
  --policy F                operator policy rules (docs/policy.md): loaded now (a broken file refuses the start), then watched
  --attention-timeout-ms N  every agent's hold timeout (default: config, $HOOKMAP_ATTENTION_TIMEOUT_MS, descriptor, ${DEFAULT_ATTENTION_TIMEOUT_MS})
  --durability none|fsync   what an acknowledged event survives: a hookmap crash (none, default) or power loss too (fsync)
  --capture L               show more: each agent's capture ceiling at least L (default metadata;
                            redacted: commands, paths, prompts, redacted; full: all, unredacted)
  --project-label M         folder (default): sessions carry their folder's name, not its path; off
  --public-url U            the https address a TLS-terminating proxy (tailscale serve, a tunnel) serves this
                            up at: its name and origin are this server's own (sign-in, the inbox, Web Push)
  --push-delay-ms N         push a held request to the registered devices after N ms unanswered (default 10000;
                            at once when no inbox tab is visible; the config's push: block says more)
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
for this HOOKMAP_HOME or address (it says where).`,
  },
  {
    name: 'setup',
    group: 'daily',
    module: 'setup',
    synopsis: 'setup <agent> [--user|--project] [--dir D] [--mcp] [--otel] [--uninstall] [--dry-run] [--shim sh|node] [--no-autostart] [--wrap CMD --name N]',
    summary: "write/merge the agent's own hook config (--mcp: and its MCP server entry)",
    help: `  --user | --project     where the agent's config is written (default: the descriptor's setup scope)
  --dir D                the project folder (with --project; default the current directory)
  --mcp                  also register the hookmap MCP server (hookmap mcp) in the agent's MCP config (same scope; with --uninstall: remove it)
  --otel                 instead: point the agent's own OpenTelemetry log exporter at hookmap's receiver for it (a fenced block in its config,
                         with an emit-only token; with --uninstall: remove it exactly), or print the settings where hookmap writes none
  --uninstall            remove hookmap's entries (the rest of the file is kept)
  -n, --dry-run          print the merge as a diff, write nothing
  --shim sh|node         the command shim: POSIX sh (default) or the portable Node shim
  --no-autostart         shims never start hookmap up when none answers (on by default; --autostart turns it back on;
                         HOOKMAP_AUTOSTART=0 in the agent's environment turns it off there)
  --wrap CMD             a stdio-tee agent: add an editor entry running hookmap tee <agent> -- CMD (repeatable)
  --name N               the name the editor lists that entry under`,
  },
  {
    name: 'tail',
    group: 'daily',
    module: 'tail',
    synopsis: 'tail [--filter F] [--session S] [--json] [--count N]',
    summary: 'watch the stream (resumes where it left off)',
    help: `  --url U                the relay (default $HOOKMAP_URL or ${DEFAULT_URL})
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
  --state F              where positions are saved (default $HOOKMAP_HOME/state/tail.json)`,
  },
  {
    name: 'answer',
    group: 'daily',
    module: 'answer',
    synopsis: 'answer <attention-id> --allow [--always]|--deny|--option ID|--text T|--values J',
    summary: 'answer an attention request',
    help: `  <attention-id>         the request's id, or any unique prefix of it
  --url U --token T      the relay (default $HOOKMAP_URL or ${DEFAULT_URL}; token: --token or $HOOKMAP_TOKEN)
  --token-file F         the token in a file (default $HOOKMAP_TOKEN_FILE, else $HOOKMAP_HOME/token)
  --allow | --deny | --option ID   the chosen option
  --always               with --allow: also a rule, so the same request is allowed from now on
  --match M              what the rule matches: exact (this command; the default), prefix, tool
  --prefix "W"           --match prefix: the words a command must start with (default: proposed)
  --scope S              where: project (the default), session, user (everywhere)
  --native               the agent persists the allow itself too, where it can (its own settings)
  --dry-run              with --always: print exactly what the rule would allow (its text as saved); save and send nothing
  --text T               free text (guidance the agent reads)
  --values J             a form's values, a JSON object
  --session S            the session that asked (default: found in the relay's buffer by the id)
  --wait N               seconds to wait for the outcome (default 10)
  --json                 the ack and outcome as JSON
The request's fate is read first: one already settled is not sent again.
Exit: 0 answered, 1 refused, 2 usage (or an ambiguous prefix), 3 already answered or closed
(its session ended included), 4 timed out.`,
  },
  {
    name: 'steer',
    group: 'daily',
    module: 'steer',
    synopsis: 'steer <session> "text" [--agent A] [--wait N]',
    summary: 'steer an agent: text its next eligible hook reply carries, or that wakes an idle session where it has a next-turn carrier (opt-in per agent)',
    help: `  <session>              the session's id, or any unique prefix of it
  --url U --token T      the relay (default $HOOKMAP_URL or ${DEFAULT_URL})
                         token: --token-file, $HOOKMAP_TOKEN_FILE, $HOOKMAP_TOKEN, else $HOOKMAP_HOME/token
  --token-file F         the token in a file
  --agent A              the agent that owns the session (default: found in the relay's roster)
  --wait N               seconds to wait for x.<agent>.instruction.delivered / .dropped (default 30)
  --json                 the ack and outcome as JSON`,
  },
  {
    name: 'open',
    group: 'daily',
    module: 'open',
    synopsis: 'open [--url U] [--token-file F] [--no-browser] [--qr]',
    summary: 'the web inbox, signed in (one-time link)',
    help: `  Prints a one-time sign-in link to the web inbox of a running hookmap up
  (single use, valid 2 minutes) and opens it in a browser where one can be started.
  The link signs in as the token it was made with (a read-only token: no answer buttons).
  --url U          where hookmap up listens (default $HOOKMAP_URL or ${DEFAULT_URL})
  --token-file F   the token to sign in with (default: $HOOKMAP_TOKEN_FILE, $HOOKMAP_TOKEN,
                   then $HOOKMAP_HOME/token, the owner token hookmap up made)
  --token T        the token itself (works, but argv is visible in ps)
  --no-browser     only print the link
  --qr             print the link as a QR code too, for a phone's camera (no browser is opened); give
                   the address the phone reaches as --url (docs/push.md, "Reach from the phone")`,
  },
  ...HISTORY,
  {
    name: 'doctor',
    group: 'daily',
    module: 'doctor',
    synopsis: 'doctor [agent...] [--json] [--dir D] [--url U]',
    summary: 'what is wired, running, stale or duplicated',
    help: `  [agent...]             the agents to look at (default: every descriptor)
  --json                 the findings as JSON
  --dir D                the project folder whose config is inspected too (default the current directory)
  --url U                where hookmap should answer (default $HOOKMAP_URL or ${DEFAULT_URL})
Exit: 0 healthy, 1 problems, 2 usage.`,
  },
  {
    name: 'service',
    group: 'daily',
    module: 'service',
    synopsis: 'service install|uninstall|status [--dry-run]',
    summary: 'hookmap up as a user service that survives a reboot (systemd user unit, launchd agent)',
    help: `  install      write the unit (Linux: ~/.config/systemd/user/hookmap.service) or agent (macOS:
               ~/Library/LaunchAgents/dev.hookmap.up.plist) running this hookmap's up on $HOOKMAP_URL's port, with
               this HOOKMAP_HOME and HOOKMAP_* settings (never a token), restarted on failure; then enable and start it
  uninstall    stop and disable it, and remove exactly the file install wrote
  status       whether it is installed, what it runs, and what the service manager says
  -n, --dry-run      print the file (or what uninstall would do), write and start nothing
  --platform P       with --dry-run: render for linux or darwin (win32: not automated; docs/service.md shows Task Scheduler)`,
  },
  {
    name: 'push',
    group: 'daily',
    module: 'push',
    synopsis: 'push key | list [--json] | revoke NAME | test [NAME] | add --subscription FILE [--name N]',
    summary: 'the devices Web Push reaches, with Allow/Deny on the lock screen (docs/push.md)',
    help: `  key                    the VAPID public key devices subscribe with ($HOOKMAP_HOME/push/vapid.json, 0600)
  list [--json]          each device: its name, push service, who registered it, since when
  revoke NAME            remove a device: nothing more reaches it, its buttons answer nothing
  test [NAME]            send a test notification to every device (or NAME); exit 1 when one failed
  add --subscription F   register a PushSubscription JSON made elsewhere (endpoint, keys.p256dh,
                         keys.auth) under the owner token; --name N names it
Devices register themselves with "Notify me" in the inbox. Works whether or not hookmap up runs.
When a push goes out: the up config's push: block (delay_ms, quiet_hours, kinds, capture);
hookmap up's own flag overrides the delay (hookmap up --help).`,
  },
  {
    name: 'channels',
    group: 'daily',
    module: 'channels',
    synopsis: 'channels list | test NAME --config F',
    summary: 'chat channels cards go to: Telegram, Slack, ntfy, a signed webhook (docs/channels.md)',
    help: `  list                   the channels the up config's channels: block names, where each goes, who may answer
  test NAME              send one test message through telegram, slack, ntfy or webhook, as up would
                         (no polling: works beside a running up); exit 1 when it could not
  --config F             the up config (hookmap up --config F) holding the channels: block
Cards follow the same escalation as Web Push (the push: block) and the capture ceiling.`,
  },
  {
    name: 'rules',
    group: 'daily',
    module: 'rules',
    synopsis: 'rules list | show ID | revoke ID | test --agent A --command "..." | preset [NAME] [--enable]',
    summary: 'the rules that answer held requests: "Allow always", presets, the floor (docs/rules.md)',
    help: `  list [--json]          every rule in force: what it matches, its scope, who added it, how often it answered
  show ID                one rule whole (an id prefix is enough)
  revoke ID              through the running up (audited as the token's principal), else in the file (--offline)
  test                   what a request would get, as its first word: allow, deny or ask; then the deciding
                         rule or floor row. --agent A [--tool T] [--command "..."] [--path P]... [--cwd D]
                         [--session S] [--mcp-server S] [--mcp-tool T]
  preset [NAME]          read-only (each agent's read tools) or tests (the project's test command, --dir D):
                         printed as rules; --enable adds them to the learned rules
  --policy F             also read this operator policy file (as hookmap up --policy F does)
  --url U --token T      revoke through this up (default $HOOKMAP_URL; --token-file F, else $HOOKMAP_HOME/token)
Learned rules: $HOOKMAP_HOME/rules.yaml (0600). A rules file inside a project grants nothing.
Exit: 0 done (test: whatever the decision), 1 refused (no such rule), 2 usage.`,
  },
  ...MORE,
  ...PLUMBING,
];

/** `hookmap <name> --help`: every line within 100 columns (the synopsis broken between its groups, options under their column). */
export function commandHelp(c: CommandEntry): string {
  const usage = wrapSynopsis(`usage: hookmap ${c.name} `, c.synopsis.slice(c.name.length + 1), ' '.repeat(`usage: hookmap ${c.name} `.length));
  return `${usage.join('\n')}\n${wrapText(`  ${c.summary}`)}\n${c.help ? `\n${wrapText(c.help.replace(/\n*$/, ''))}\n` : ''}`;
}

/** The commands of one group, in the table's order. */
export const commandsIn = (g: Group) => COMMANDS.filter((c) => c.group === g);

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
