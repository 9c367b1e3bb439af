// An attachable run (issue 42): the agent's interactive program in a named
// session of Debian's tmux, on tmux's default server or the one the up
// config names (launch.tmux_socket: `tmux -L NAME`), so a person at the desk
// takes it over with the printed `tmux attach` line or `hookmap attach`.
// tmux runs the program itself from its argv (no shell); only the
// descriptor's launch.env rides that argv (argv is public in ps). Whether the
// session is still there is asked of the same server (`has-session`).
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';

export interface TmuxTarget {
  /** The tmux program. */
  program: string;
  /** The server's socket name (tmux -L), when not tmux's default. */
  socket?: string;
}

export type Spawn = (command: string, args: string[], o: SpawnOptions) => ChildProcess;

const server = (t: TmuxTarget) => (t.socket ? ['-L', t.socket] : []);

/** The argv that attaches to session `name` on `t`'s server. */
export const attachArgv = (t: TmuxTarget, name: string): string[] => [...server(t), 'attach', '-t', name];

/** Starts `command args` detached in a new tmux session `name` in `dir`; the tmux client's child (it exits once the session exists). */
export function newSession(
  t: TmuxTarget,
  o: { name: string; dir: string; command: string; args: string[]; env: Record<string, string | undefined>; carried: [string, string][] },
  run: Spawn = spawn,
): ChildProcess {
  const sets = o.carried.flatMap(([k, v]) => ['-e', `${k}=${v}`]);
  // several arguments after the options: tmux runs the program itself, no shell
  return run(t.program, [...server(t), 'new-session', '-d', '-s', o.name, '-c', o.dir, ...sets, o.command, ...o.args], { env: o.env, stdio: 'ignore' });
}

/** Resolves true once session `name` is gone from `t`'s server (asked every `everyMs`), false if it is still there at `withinMs`. */
export function goneWithin(t: TmuxTarget, name: string, withinMs: number, everyMs = 500, run: Spawn = spawn): Promise<boolean> {
  const deadline = Date.now() + withinMs;
  const ask = (): Promise<boolean> =>
    new Promise((resolve) => {
      const c = run(t.program, [...server(t), 'has-session', '-t', `=${name}`], { stdio: 'ignore' });
      c.on('error', () => resolve(false));
      c.on('exit', (code) => resolve(code !== 0));
    });
  const loop = async (): Promise<boolean> => {
    for (;;) {
      if (await ask()) return true;
      if (Date.now() >= deadline) return false;
      await new Promise((r) => setTimeout(r, everyMs).unref());
    }
  };
  return loop();
}
