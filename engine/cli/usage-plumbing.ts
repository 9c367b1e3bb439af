// The command table's plumbing group (engine/cli/usage.ts renders it with the rest):
// the pieces `up` runs, the shims, and the stream in and out.
import { DEFAULT_ATTENTION_TIMEOUT_MS, DEFAULT_PORT, DEFAULT_URL } from '../core/config/defaults.ts';
import { BACKPLANE_HELP } from '../runtime/relay/backplane/config.ts';
import { LISTENER_AUTH_HELP, type CommandEntry } from './usage-entry.ts';

export const PLUMBING: CommandEntry[] = [
  {
    name: 'relay',
    group: 'plumbing',
    module: 'relay',
    synopsis: 'relay [--port N] [--host H] [--token-file F | --no-auth] [--buffer N] [--backplane nats://H:P]',
    summary: 'the AEP relay alone, or one of a fleet on NATS JetStream',
    help: `  --port N             listen port (default ${DEFAULT_PORT})
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
${BACKPLANE_HELP}`,
  },
  {
    name: 'serve',
    group: 'plumbing',
    module: 'serve',
    synopsis: 'serve <agent|path/to/descriptor.yaml> [options]',
    summary: 'one daemon from one descriptor',
    help: `  --port N                  listen port (default 8788; 0 = ephemeral)
  --host H                  listen address (default 127.0.0.1)
  --relay URL[,URL...]      relay(s) to emit to, failing over in turn (default $HOOKMAP_RELAY or ${DEFAULT_URL})
  --no-relay                log only; held hooks fail open at once
  --token-file F            the relay token in a file (default: HOOKMAP_TOKEN_FILE, HOOKMAP_TOKEN, then
                            $HOOKMAP_HOME/token for a loopback relay); without one control is off
  --token T                 the relay token itself (works, but argv is visible in ps)
  --log-dir D               this agent's log folder (default $HOOKMAP_HOME/logs/<agent>, HOOKMAP_HOME=~/.hookmap)
  --attention-timeout-ms N  hold timeout (default $HOOKMAP_ATTENTION_TIMEOUT_MS, else the descriptor's, else ${DEFAULT_ATTENTION_TIMEOUT_MS})
  --max-body N              largest hook body, bytes (default 8388608)
  --durability none|fsync   what an acknowledged event survives: a hookmap crash (none, default) or power loss too (fsync: group commit)
  --fsync                   the same as --durability fsync
  --set KEY=VALUE           a descriptor config option (repeatable; JSON values accepted), e.g. --set primary=true
Endpoint: POST /hooks/<agent>[/<hook>] with x-hookmap-key: <the key in $HOOKMAP_HOME/hook-key> -> 200, body =
the agent's reply bytes, x-hookmap-exit: <code> (no key or a wrong one: 403, x-hookmap-error: hook-key,
the neutral bytes); an otlp-receiver agent: POST /otlp/<agent>/v1/logs (OTLP/HTTP);
GET /healthz -> {ok, relay}`,
  },
  {
    name: 'hook',
    group: 'plumbing',
    module: 'hook',
    synopsis: 'hook <agent> [hook]',
    summary: 'the portable Node shim (stdin → daemon → stdout)',
    help: `  Run by the agent (the shim): reads the hook payload on stdin, answers the agent's reply on stdout,
  always exits 0 within its bound ($HOOKMAP_URL: where the daemon is; $HOOKMAP_SHIM_TIMEOUT_MS: the bound).`,
  },
  {
    name: 'autostart',
    group: 'plumbing',
    module: 'autostart',
    synopsis: 'autostart [--locked]',
    summary: 'start hookmap up in the background unless one answers (what a shim runs when none does)',
    help: `  Starts hookmap up on $HOOKMAP_URL (a loopback http address) for $HOOKMAP_HOME, logging to $HOOKMAP_HOME/up.log,
  and waits until it answers /healthz. One start at a time ($HOOKMAP_HOME/autostart.lock; --locked: the caller holds it);
  a start that fails writes $HOOKMAP_HOME/autostart.failed and no shim tries again for 5 minutes (hookmap doctor shows it).
  Off: HOOKMAP_AUTOSTART=0, or hookmap setup <agent> --no-autostart.`,
  },
  {
    name: 'tee',
    group: 'plumbing',
    module: 'tee',
    synopsis: 'tee <agent> [--url U] [--max-line BYTES] -- <agent command...>',
    summary: "wrap an editor's agent command: its stdio passed on unchanged, read as moments",
    help: `  --url U           where the agent's daemon is (default $HOOKMAP_URL or ${DEFAULT_URL})
  --max-line BYTES  the longest line read as a moment (default 8 MiB); a longer one passes, reported once
Set as the editor's agent command: every byte passes unchanged, whether hookmap up runs or not;
the tee's own notes go to $HOOKMAP_HOME/logs/tee/<agent>.log, never to the editor's streams.`,
  },
  {
    name: 'bridge',
    group: 'plumbing',
    module: 'bridge',
    synopsis: 'bridge otlp|cloudevents|ocsf [--endpoint URL] [--from-file F|-] [--capture L] [options]',
    summary: 'the stream out to OpenTelemetry, CloudEvents or OCSF (AEP-0005), or CloudEvents in',
    help: `  Projects the AEP stream (AEP-0005) to OpenTelemetry (OTLP logs + GenAI traces), CloudEvents or OCSF.
  Live from the relay (resumes where it left off), or once over a JSONL file with --from-file.
  --endpoint URL        (or --sink URL) where batches go (otlp: the collector's OTLP/HTTP base, e.g. http://localhost:4318;
                        cloudevents/ocsf: the receiving URL); absent: JSONL on stdout
  --capture L           ceiling: nothing above it leaves (none|metadata|redacted|full, default metadata)
  --from-file F         read a JSONL capture (an agent's session log, a sink file, - for stdin) instead of the relay
  --url U --token T     the relay (default $HOOKMAP_URL or ${DEFAULT_URL})
                        token: --token-file, $HOOKMAP_TOKEN_FILE, $HOOKMAP_TOKEN, else $HOOKMAP_HOME/token
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
2 usage or refused.`,
  },
  {
    name: 'sink',
    group: 'plumbing',
    module: 'sink',
    synopsis: 'sink <dir> [--filter F] [--session S] [--capture L] [--retain-days N] [--max-mb N]',
    summary: 'durable capture: JSONL per day and session',
    help: `  Writes every event the relay carries to <dir>/<YYYY-MM-DD>/<agent>/<session>.jsonl (one file per day and
  session, UTC), fsynced in batches; a restart resumes where the files end (no duplicates, no gaps while
  the relay still holds the events).
  --url U --token T   the relay (default $HOOKMAP_URL or ${DEFAULT_URL})
                      token: --token-file, $HOOKMAP_TOKEN_FILE, $HOOKMAP_TOKEN, else $HOOKMAP_HOME/token
  --capture L         ceiling for what is written (default metadata; full keeps everything the relay has)
  --retain-days N     delete day folders older than N days (default 30; 0 = keep)
  --max-mb N          keep the capture under N MiB, deleting whole days, oldest first (default 2048; 0 = unbounded)
  --flush-ms MS       batch window before write + fsync (default 250)
  --no-fsync          skip fsync (faster; a power loss may lose the last batch)`,
  },
  {
    name: 'replay',
    group: 'plumbing',
    module: 'replay',
    synopsis: 'replay <file> [--session S] [--speed N] [--max-gap MS] [--dry-run]',
    summary: 're-emit a captured session as a new session',
    help: `  Re-emits the sessions of a JSONL capture (an agent's log, a sink file, - for stdin) into the relay as new
  sessions: new ids, same shape, recorded pacing. Commands are never replayed.
  --session S     only this recorded session (repeatable; any unique prefix of its id)
  --speed N       pacing: 1 = as recorded (default), 10 = ten times faster, 0 = no waiting
  --max-gap MS    longest pause kept between two events (default 2000)
  --dry-run       print the plan, send nothing
  --json          the plan (--dry-run: one event per line) or the outcome as JSON
  --url U --token T   the relay (default $HOOKMAP_URL or ${DEFAULT_URL})
                      token: --token-file, $HOOKMAP_TOKEN_FILE, $HOOKMAP_TOKEN, else $HOOKMAP_HOME/token
Exit: 0 emitted (or planned), 1 the relay refused events or the file had bad lines, 2 usage.`,
  },
  {
    name: 'validate',
    group: 'plumbing',
    module: 'validate',
    synopsis: 'validate <file.jsonl|->',
    summary: 'AEP envelope/payload/order/lifecycle/capture checks',
    help: `  --json                 the findings as JSON\nExit: 0 valid, 1 findings, 2 usage.`,
  },
];
