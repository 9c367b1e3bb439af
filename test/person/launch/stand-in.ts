// The stand-in agent of the launch tests (fake-agent.mjs) as a descriptor
// with a launch block: written into `home`, its path returned. Its headless
// argv takes a model option from a closed list; it has an interactive and a
// resume argv, so every mode of the launcher can start it.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const launchAgentDescriptor = (home: string): string => {
  const file = join(home, 'launch-agent.yaml');
  const agent = JSON.stringify(join(import.meta.dirname, 'fake-agent.mjs'));
  writeFileSync(
    file,
    `vendor: launch-agent
name: Launch agent (test stand-in)
surface: { kind: command-hook, pin: "hand-written test descriptor", hook_name: =hook_event_name }
identity: { session: =session_id }
hooks:
  SessionStart:
    emit:
      - type: session.started
        data: { client: { name: launch-agent }, cwd: =cwd }
  SessionEnd:
    emit: [{ type: session.ended, session_end: true, data: { reason: =reason } }]
replies: { neutral: "" }
capabilities: {}
posture: observe-only
launch:
  command: ${JSON.stringify(process.execPath)}
  headless: [${agent}, "{options}", "{dir}", "{prompt}"]
  interactive: [${agent}, "{dir}", "{prompt}"]
  resume: [${agent}, "{dir}", "{prompt}", --resume, "{id}"]
  options:
    model: { argv: [--model, "{value}"], values: [small, large] }
  evidence: test stand-in
`,
  );
  return file;
};
