#!/usr/bin/env node
// A stand-in for `claude` in the inbox's New session test (test/browser/launch.test.ts):
// started by up's launcher with Claude Code's own launch argv (vendors/claude-code.yaml:
// `--session-id ID -p --output-format json [--model M] PROMPT`, or `-p --output-format
// json --resume ID PROMPT`), it fires Claude Code's hooks as the real one does for a
// turn that needs a Bash permission: SessionStart, UserPromptSubmit, PermissionRequest
// (held until someone answers; the reply is printed), Stop. It records its argv in
// DIR/.fake-claude.jsonl. It never runs a shell or the command it asked about.
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { hookKeyHeaders } from '../../engine/runtime/auth/hook-key.mjs';

const args = process.argv.slice(2);
const opt = (name) => {
  const i = args.indexOf(name);
  return i < 0 ? undefined : args[i + 1];
};
const resume = opt('--resume');
const session = resume ?? opt('--session-id');
const prompt = args.at(-1);
appendFileSync(join(process.cwd(), '.fake-claude.jsonl'), `${JSON.stringify({ argv: args, session, resume, prompt })}\n`);
const hook = async (body) => {
  const r = await fetch(`${process.env.HOOKMAP_URL}/hooks/claude-code`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...hookKeyHeaders(process.env.HOOKMAP_HOME) },
    body: JSON.stringify({ session_id: session, cwd: process.cwd(), permission_mode: 'default', ...body }),
  });
  return r.text();
};
await hook({ hook_event_name: 'SessionStart', source: resume ? 'resume' : 'startup' });
await hook({ hook_event_name: 'UserPromptSubmit', prompt });
const reply = await hook({ hook_event_name: 'PermissionRequest', tool_name: 'Bash', tool_input: { command: 'npm test', description: 'Run the tests' } });
process.stdout.write(`${reply}\n`);
await hook({ hook_event_name: 'Stop', stop_hook_active: false });
