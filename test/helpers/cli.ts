// `hookmap <args>` as a child process the way a person runs it, for the CLI
// tests: stdout and stderr kept, killed (SIGKILL) past its bound.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const BIN = fileURLToPath(new URL('../../bin/hookmap.mjs', import.meta.url));

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function runCli(args: string[], env: NodeJS.ProcessEnv, timeoutMs = 30_000, o: { cwd?: string; stdin?: string } = {}): Promise<CliRun> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [BIN, ...args], { env, cwd: o.cwd, stdio: [o.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
    if (o.stdin !== undefined) p.stdin!.end(o.stdin);
    let stdout = '';
    let stderr = '';
    p.stdout!.on('data', (c) => (stdout += c));
    p.stderr!.on('data', (c) => (stderr += c));
    const t = setTimeout(() => p.kill('SIGKILL'), timeoutMs);
    p.on('close', (code) => {
      clearTimeout(t);
      resolve({ code, stdout, stderr });
    });
  });
}
