#!/usr/bin/env node
// A stand-in for an agent in the SDK's stream-json mode (test/person/launch/stream-host.test.ts):
// it reads the user message from stdin, asks its host about a tool (`can_use_tool`) and
// another thing (`hook_callback`), records the host's answers in the file named by argv[2],
// then ends the turn as argv[3] says (`result`: a result message; `cancel`: "[Operation
// Cancelled]" and no result) and exits only when stdin closes, as the real agents do.
import { appendFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

const [out, ending] = process.argv.slice(2);
const rl = createInterface({ input: process.stdin });
const say = (m) => process.stdout.write(`${JSON.stringify(m)}\n`);
let n = 0;
rl.on('line', (line) => {
  const m = JSON.parse(line);
  appendFileSync(out, `${JSON.stringify(m)}\n`);
  n++;
  if (n === 1) {
    say({ type: 'system', subtype: 'init', session_id: 's1' });
    say({ type: 'control_request', request_id: 'r1', request: { subtype: 'can_use_tool', tool_name: 'run_shell_command', input: { command: 'touch x' } } });
  } else if (n === 2) {
    say({ type: 'control_request', request_id: 'r2', request: { subtype: 'hook_callback', callback_id: 'c' } });
  } else if (n === 3) {
    if (ending === 'cancel') say({ type: 'assistant', message: { content: [{ type: 'text', text: '[Operation Cancelled] the call was cancelled' }] } });
    else say({ type: 'result', subtype: 'success', is_error: false });
  }
});
rl.on('close', () => {
  appendFileSync(out, 'stdin closed\n');
  process.exit(0);
});
