#!/usr/bin/env node
// A stand-in tmux for the launch tests: records its argv next to the project
// (`[-L SOCKET] new-session -d -s NAME -c DIR [-e K=V]... PROGRAM ARGS...`), then
// starts PROGRAM ARGS in DIR detached, as tmux would in its new session, and
// exits 0; any other tmux command exits 1 (no such session).
import { spawn } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';

const a = process.argv.slice(2);
if (a[a[0] === '-L' ? 2 : 0] !== 'new-session') process.exit(1); // has-session and the rest: no such session here
const dir = a[a.indexOf('-c') + 1];
appendFileSync(join(dir, '.fake-tmux.jsonl'), `${JSON.stringify(a)}\n`);
let i = a.indexOf('-c') + 2;
while (a[i] === '-e') i += 2;
spawn(a[i], a.slice(i + 1), { cwd: dir, detached: true, stdio: 'ignore' }).unref();
