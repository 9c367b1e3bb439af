// The host of a headless run that takes its prompt on stdin (a descriptor's
// `launch.stdin`, protocol `stream-json`: the Agent SDK's lines). hookmap
// writes the prompt as one user message, reads the agent's stdout line by
// line into the run's log, and answers what the agent asks its host: a
// `can_use_tool` control request (a permission no hook decided: the hold
// timed out, nobody could answer) is denied, any other request gets an
// error. The host never allows anything; a permission is answered through
// hookmap's hold, where a person or a rule decides. stdin closes at the turn's
// `result` message (or a `done` text), so the agent can exit.
import type { ChildProcess } from 'node:child_process';
import type { Writable } from 'node:stream';

/** A line longer than this is logged but not read (no control request is that long). */
const MAX_LINE = 1 << 20;
export const HOST_DENY = 'hookmap: no answer through hookmap allowed this (the headless host allows nothing by itself)';

export interface StreamHostOptions {
  prompt: string;
  /** Output text that also ends the turn. */
  done?: readonly string[];
  /** Where every byte of the agent's stdout goes too (the run's log). */
  log: Writable;
  say?: (line: string) => void;
}

/** The user message that carries the prompt (one JSON line: the prompt is a string value, never parsed). */
export function promptLine(prompt: string): string {
  return `${JSON.stringify({ type: 'user', session_id: 'hookmap', message: { role: 'user', content: prompt }, parent_tool_use_id: null })}\n`;
}

/** The host's reply to one line of the agent's output: a control response, 'end' (close stdin), or nothing. */
export function replyTo(line: string, done: readonly string[] = []): string | 'end' | undefined {
  if (done.some((d) => line.includes(d))) return 'end';
  let m: any;
  try {
    m = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (!m || typeof m !== 'object') return undefined;
  if (m.type === 'result') return 'end';
  if (m.type !== 'control_request' || typeof m.request_id !== 'string') return undefined;
  const response =
    m.request?.subtype === 'can_use_tool'
      ? { subtype: 'success', request_id: m.request_id, response: { behavior: 'deny', message: HOST_DENY } }
      : { subtype: 'error', request_id: m.request_id, error: `hookmap's headless host does not answer ${String(m.request?.subtype).slice(0, 60)}` };
  return `${JSON.stringify({ type: 'control_response', response })}\n`;
}

/** Hosts one run: the child must have been spawned with stdin and stdout as pipes. */
export function hostStreamJson(child: ChildProcess, o: StreamHostOptions): void {
  const stdin = child.stdin!;
  let open = true;
  const end = () => {
    if (!open) return;
    open = false;
    stdin.end();
  };
  stdin.on('error', () => (open = false)); // the agent left: nothing more to write
  stdin.write(promptLine(o.prompt));
  let buf = '';
  let skipping = false;
  child.stdout!.setEncoding('utf8');
  child.stdout!.on('data', (chunk: string) => {
    o.log.write(chunk);
    buf += chunk;
    let nl: number;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      if (skipping) {
        skipping = false;
        continue;
      }
      const r = replyTo(line, o.done);
      if (r === 'end') end();
      else if (r && open) {
        stdin.write(r);
        o.say?.(`host answered ${JSON.parse(r).response.subtype === 'success' ? 'deny to a permission the agent asked its host' : 'an error'}`);
      }
    }
    if (buf.length > MAX_LINE) {
      buf = '';
      skipping = true; // the rest of this line is not read
    }
  });
  child.stdout!.on('end', () => o.log.end());
}
