// What a held request asks, as answer rules read it (docs/rules.md): the
// tool, the shell command, the paths it touches, the folder it runs in, the
// MCP server and tool. Drawn from the payload by the hold's `match`
// expressions, on this machine and before capture gating: none of it goes on
// the stream. Paths are normalised before any rule sees them: resolved
// against the request's cwd, `.` and `..` folded, and symbolic links
// followed through the deepest part of the path that exists, so
// `src/../../etc/x` and a link from the project to `/etc` both read as the
// place they reach.
import { existsSync, realpathSync } from 'node:fs';
import { dirname, isAbsolute, join, posix, resolve } from 'node:path';

export interface AskSubject {
  agent: string;
  /** The AEP session id. */
  session: string;
  hook?: string;
  tool?: string;
  command?: string;
  /** Absolute, normalised, links followed. */
  paths: string[];
  /** Absolute, normalised, links followed. */
  cwd?: string;
  /** The project the request belongs to: the nearest folder above the cwd holding `.git`, else the cwd. */
  project?: string;
  mcp?: { server?: string; tool?: string };
}

export interface RawSubject {
  tool?: unknown;
  command?: unknown;
  paths?: unknown;
  cwd?: unknown;
  mcpServer?: unknown;
  mcpTool?: unknown;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** An argv list is one command line (joined with spaces); anything else that is not a string is no command. */
function commandOf(v: unknown): string | undefined {
  if (Array.isArray(v) && v.length && v.every((x) => typeof x === 'string')) return v.join(' ');
  return str(v);
}

/** The real place a path names: its deepest existing ancestor's links followed, the rest appended. */
export function realPlace(p: string): string {
  let head = posix.normalize(p);
  const tail: string[] = [];
  for (let i = 0; i < 256; i++) {
    if (existsSync(head)) {
      try {
        return tail.length ? join(realpathSync(head), ...tail.reverse()) : realpathSync(head);
      } catch {
        break;
      }
    }
    const up = dirname(head);
    if (up === head) break;
    tail.push(head.slice(up.length).replace(/^\//, ''));
    head = up;
  }
  return posix.normalize(p);
}

/** The nearest folder at or above `dir` that holds `.git`, else `dir` itself. */
export function projectRoot(dir: string): string {
  let d = dir;
  for (let i = 0; i < 256; i++) {
    if (existsSync(join(d, '.git'))) return d;
    const up = dirname(d);
    if (up === d) break;
    d = up;
  }
  return dir;
}

/** The subject of a request from what its `match` expressions gave. */
export function subjectOf(base: { agent: string; session: string; hook?: string; fallbackTool?: string }, raw: RawSubject): AskSubject {
  const cwdRaw = str(raw.cwd);
  const cwd = cwdRaw && isAbsolute(cwdRaw) ? realPlace(cwdRaw) : undefined;
  const list = Array.isArray(raw.paths) ? raw.paths : raw.paths === undefined ? [] : [raw.paths];
  const paths: string[] = [];
  for (const p of list) {
    const s = str(p);
    if (!s) continue;
    // a relative path with no cwd to resolve it against stays relative: no path rule can match it
    if (!isAbsolute(s) && !cwd) paths.push(s);
    else paths.push(realPlace(cwd ? resolve(cwd, s) : s));
  }
  const server = str(raw.mcpServer);
  const mcpTool = str(raw.mcpTool);
  return {
    agent: base.agent,
    session: base.session,
    hook: base.hook,
    tool: str(raw.tool) ?? base.fallbackTool,
    command: commandOf(raw.command),
    paths,
    cwd,
    project: cwd ? projectRoot(cwd) : undefined,
    mcp: server || mcpTool ? { server, tool: mcpTool } : undefined,
  };
}
