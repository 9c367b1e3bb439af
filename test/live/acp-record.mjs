// A byte recorder for the ACP live test: `node acp-record.mjs <file> -- <agent command...>`
// runs the agent with its stdin, stdout and stderr passed straight through,
// appends every byte the agent writes on stdout to <file> and every byte it
// receives on stdin to <file>.in. Standing
// between `hookmap tee` and the real agent, it is the independent witness of
// what the agent wrote, so the test can compare it with what the editor read.
import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';

const [out, dash, cmd, ...args] = process.argv.slice(2);
if (!out || dash !== '--' || !cmd) {
  process.stderr.write('usage: acp-record.mjs <file> -- <command> [args...]\n');
  process.exit(2);
}
const file = createWriteStream(out, { flags: 'a' });
const got = createWriteStream(`${out}.in`, { flags: 'a' });
const p = spawn(cmd, args, { stdio: ['pipe', 'pipe', 'inherit'] });
process.stdin.on('data', (c) => {
  got.write(c);
  p.stdin.write(c);
});
process.stdin.on('end', () => p.stdin.end());
p.stdin.on('error', () => {});
p.stdout.on('data', (c) => {
  file.write(c);
  process.stdout.write(c);
});
for (const s of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(s, () => p.kill(s));
p.on('close', (code, signal) => got.end(() => file.end(() => (signal ? process.kill(process.pid, signal) : process.exit(code ?? 1)))));
