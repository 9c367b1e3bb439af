#!/usr/bin/env node
// A stand-in agent for the launch tests (test/person/launch/launch.test.ts): started
// by hookmap up's launcher as `fake-agent.mjs [--model M] DIR PROMPT [--resume ID]`,
// it records the argv it got (one JSON line in DIR/.fake-agent.jsonl), posts
// one SessionStart hook to the daemon (HOOKMAP_URL/hooks/launch-agent) with
// its session id (the resumed one, else a new one), and exits, or, when the
// prompt says SLEEP, stays until it is stopped. It never runs a shell.
import { appendFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';

const args = process.argv.slice(2);
const opt = (name) => {
  const i = args.indexOf(name);
  if (i < 0) return undefined;
  const v = args[i + 1];
  args.splice(i, 2);
  return v;
};
const model = opt('--model');
const resume = opt('--resume');
const [dir, prompt, ...rest] = args;
const session = resume ?? `fake-${randomBytes(4).toString('hex')}`;
appendFileSync(
  join(dir, '.fake-agent.jsonl'),
  `${JSON.stringify({ argv: process.argv.slice(2), cwd: process.cwd(), model, resume, prompt, rest, session })}\n`,
);
await fetch(`${process.env.HOOKMAP_URL}/hooks/launch-agent`, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ hook_event_name: 'SessionStart', session_id: session, cwd: process.cwd() }),
});
if (/SLEEP/.test(prompt)) setInterval(() => {}, 1000);
