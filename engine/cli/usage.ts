export interface CommandEntry { name: string; module: string; synopsis: string; summary: string }

export const COMMANDS: CommandEntry[] = [
  { name: 'up', module: 'up', synopsis: 'up [--port N] [--host H] [--config F] [--policy F] [--bridge kind=URL] [--no-auth] [--backplane nats://H:P]', summary: 'relay + every enabled daemon, one process' },
  { name: 'serve', module: 'serve', synopsis: 'serve <agent|file.yaml> [--port N] [--relay URL[,URL...]]', summary: 'one daemon from one descriptor' },
  { name: 'relay', module: 'relay', synopsis: 'relay [--port N] [--host H] [--no-auth] [--buffer N] [--backplane nats://H:P]', summary: 'the AEP relay alone, or one of a fleet on NATS JetStream' },
  { name: 'hook', module: 'hook', synopsis: 'hook <agent> [hook]', summary: 'the portable shim: stdin -> daemon -> stdout' },
  { name: 'tee', module: 'tee', synopsis: 'tee <agent> [--url U] -- <agent command...>', summary: "an editor's agent command: the agent's stdio passed through, framed into moments" },
  { name: 'map', module: 'map', synopsis: 'map <agent> [--capture L]', summary: 'pure mapping: NDJSON steps in, NDJSON results out' },
  { name: 'check', module: 'check', synopsis: 'check [agent]', summary: 'descriptors + fixtures + capability evidence' },
  { name: 'capabilities', module: 'capabilities', synopsis: 'capabilities [agent] [--json]', summary: 'what each agent proves, and what not' },
  { name: 'docs', module: 'docs', synopsis: 'docs [--check]', summary: 'regenerate capabilities/ (or fail on drift)' },
  { name: 'codegen', module: 'codegen', synopsis: 'codegen [--check]', summary: 'regenerate schema types and imported AEP pins (or fail on drift)' },
  { name: 'setup', module: 'setup', synopsis: 'setup <agent> [--user|--project] [--dir D] [--uninstall] [--dry-run] [--shim sh|node] [--wrap CMD --name N]', summary: "write/merge the agent's own hook config" },
  { name: 'doctor', module: 'doctor', synopsis: 'doctor [agent...] [--json] [--dir D] [--url U]', summary: 'what is installed, running, stale' },
  { name: 'validate', module: 'validate', synopsis: 'validate <file.jsonl|->', summary: 'AEP envelope/payload/order/capture checks' },
  { name: 'tail', module: 'tail', synopsis: 'tail [--filter F] [--session S] [--json]', summary: 'watch the stream' },
  { name: 'answer', module: 'answer', synopsis: 'answer <attention-id> --allow|--deny|--text T|--values J', summary: 'answer an attention request' },
  { name: 'cancel', module: 'cancel', synopsis: 'cancel <session> [--run R] [--reason T]', summary: 'cancel a run' },
  { name: 'steer', module: 'steer', synopsis: 'steer <session> "text" [--agent A]', summary: "an instruction for the agent's next eligible hook reply" },
  { name: 'mcp', module: 'mcp', synopsis: 'mcp --agent A [--session S] [--timeout S]', summary: 'MCP server over stdio: ask_human, emit_event' },
  { name: 'policy', module: 'policy', synopsis: 'policy check <file>', summary: 'check an operator policy file (coded errors)' },
  { name: 'bridge', module: 'bridge', synopsis: 'bridge otlp|cloudevents|ocsf [--endpoint URL] [--from-file F]', summary: 'export the stream to OpenTelemetry, CloudEvents or OCSF' },
  { name: 'sink', module: 'sink', synopsis: 'sink <dir> [--capture L] [--retain-days N] [--max-mb N]', summary: 'durable capture: JSONL per day and session' },
  { name: 'timeline', module: 'timeline', synopsis: 'timeline <session> [--dag] [--file F]', summary: 'a session as a tree of runs, tools, attention' },
  { name: 'replay', module: 'replay', synopsis: 'replay <file> [--speed N] [--dry-run]', summary: 're-emit a capture as a new session' },
  { name: 'tokens', module: 'tokens', synopsis: 'tokens add <name> [--scope S] | list | revoke <name>', summary: 'named relay tokens with scopes' },
  { name: 'open', module: 'open', synopsis: 'open [--url U] [--token-file F] [--no-browser]', summary: 'the web inbox, signed in (one-time link)' },
  { name: 'record', module: 'record', synopsis: 'record <agent> | record promote <agent> | record scan <path>', summary: 'daemon mode saving strictly redacted payloads (0600) as fixture candidates; promote copies them into fixtures/ with a diff; scan runs the secret scanner' },
];

export function printUsage(out: NodeJS.WritableStream): void {
  out.write('hookmap: vendor hooks of AI coding agents as one AEP event stream\n\nUsage:\n');
  for (const c of COMMANDS) out.write(`  hookmap ${c.synopsis.padEnd(62)} ${c.summary}\n`);
}
