// Shared by `answer`, `cancel` and `steer`: endpoint flags, one command round trip
// over the relay's WebSocket, and the printed report. Exit codes: 0 the
// target accepted, 1 refused/rejected/timed out (or accepted with a coded note
// and no final outcome in the window: the note says why none comes), 2 usage or connection error;
// a command may explain a rejection with its own code (answer: 3 already
// answered or closed, 4 the request timed out).
import { discoverToken, missingTokenHint, type ClientToken } from '../../runtime/auth/discover.ts';
import { authHeaders, DEFAULT_URL, readSse, sseJson } from '../../runtime/relay/client-sse.ts';
import type { AepEvent } from '../../runtime/relay/store.ts';
import { tokenSources } from '../config.ts';
import { fateOf, isAttentionFollower, SESSION_TERMINALS } from '../../core/kernel/lifecycle.ts';

export const ENDPOINT_FLAGS = { url: { type: 'string' }, token: { type: 'string' }, 'token-file': { type: 'string' } } as const;

export interface Endpoint {
  url: string;
  token?: string;
  /** where the token came from (messages only) */ from?: ClientToken['from'];
}

/**
 * Where the relay is and which token to present: found without the user
 * typing one (engine/runtime/auth/discover.ts: --token-file, --token, HOOKMAP_TOKEN_FILE,
 * HOOKMAP_TOKEN, then $HOOKMAP_HOME/token for a loopback relay).
 * Throws a TokenFileError for an unreadable or unsafe token file.
 */
export function endpoint(flags: Record<string, unknown>, name = 'hookmap', env: NodeJS.ProcessEnv = process.env): Endpoint {
  const url = (flags.url as string | undefined) ?? env.HOOKMAP_URL ?? DEFAULT_URL;
  const t = discoverToken({ url, flagToken: flags.token as string | undefined, tokenFile: flags['token-file'] as string | undefined, from: tokenSources(env) });
  if (t.warning) process.stderr.write(`${name}: warning: ${t.warning}\n`);
  return { url, token: t.token, from: t.from };
}

/** A relay refusal made readable: a 401 says where tokens are found. */
export function explainRefusal(ep: Endpoint, message: string): string {
  return / 401\b/.test(message) ? `${message}\n  ${missingTokenHint(ep.url, tokenSources(process.env), ep.from)}` : message;
}

export interface Explanation {
  /** Why, in words ("already answered", "timed out"). */
  why: string;
  exit: number;
}

export interface CommandOptions {
  /** How the command names itself in messages (default: from the command type). */
  name?: string;
  /** What an accepted command without its final outcome yet means (printed instead of the generic line). */
  pending?: string;
  outcomeWindowMs: number;
  json: boolean;
  isFinal: (ev: AepEvent) => boolean;
  /** Find out why the relay refused the command on the target's behalf (e.g. no-route: the session ended); an Explanation also sets the exit code. */
  explainRefusal?: (code: string) => Promise<string | Explanation | undefined>;
  /** Find out why the target rejected the command (its reason alone may be too coarse). */
  explainRejection?: (ack: AepEvent) => Promise<Explanation | undefined>;
}

export async function runCommand(ep: Endpoint, cmd: AepEvent, opts: CommandOptions): Promise<number> {
  const name = opts.name ?? `hookmap ${cmd.type === 'control.cancel' ? 'cancel' : 'answer'}`;
  // loaded here, not at start: every schema and the validator are only needed once a command is sent
  const { validatePayload, formatAjvErrors } = await import('../../core/aep/schemas.ts');
  const errs = validatePayload(cmd.type, cmd.data);
  if (errs.length) {
    process.stderr.write(`${name}: invalid ${cmd.type} payload: ${formatAjvErrors(errs)}\n`);
    return 2;
  }
  // the WebSocket client (ws) only for the commands that send one: `tail` and `held` read SSE
  const { openSocket, sendCommand } = await import('../../runtime/relay/client-socket.ts');
  let s;
  try {
    s = await openSocket(ep.url, ep.token);
  } catch (e) {
    process.stderr.write(`${name}: ${explainRefusal(ep, (e as Error).message)}\n`);
    return 2;
  }
  const out = (line: string) => process.stdout.write(`${line}\n`);
  const json = (v: unknown) => out(JSON.stringify(v));
  try {
    if (opts.json) json(cmd);
    else out(`sent ${cmd.type} ${cmd.id} to session ${cmd.session}`);
    const ackWindowMs = Number(s.hello?.capabilities?.control?.ack_window_ms) || 10_000;
    const r = await sendCommand(s, cmd, {
      ackWindowMs,
      outcomeWindowMs: opts.outcomeWindowMs,
      isFinal: opts.isFinal,
      onEvent: (ev) => (opts.json ? json(ev) : undefined),
    });
    if (r.kind === 'refused') {
      const explained = await opts.explainRefusal?.(r.code).catch(() => undefined);
      const why = typeof explained === 'object' ? explained.why : explained;
      if (opts.json) json({ refused: r.code, detail: r.detail, ...(why ? { why } : {}) });
      else out(`refused by the relay: ${r.code}${why ? `: ${why}` : ''}${r.detail ? ` (${r.detail})` : ''}`);
      return typeof explained === 'object' ? explained.exit : 1;
    }
    if (r.kind === 'timeout') {
      if (opts.json) json({ timeout: true, window_ms: ackWindowMs });
      else out(`no ack within ${ackWindowMs} ms (treated as a nack: timeout)`);
      return 1;
    }
    if (r.ack.type === 'control.rejected') {
      const d = r.ack.data ?? {};
      const why = await opts.explainRejection?.(r.ack).catch(() => undefined);
      if (opts.json) {
        if (why) json({ rejected: d.reason ?? 'unknown', code: d.code, why: why.why });
      } else
        out(`rejected by the target: ${d.reason ?? 'unknown'}${d.code ? ` [${d.code}]` : ''}${why ? `: ${why.why}` : ''}${d.detail ? ` (${d.detail})` : ''}`);
      return why?.exit ?? 1;
    }
    // an ack with a coded note (control.accepted data.code/detail, e.g. next-turn-off) says why no outcome may come on
    // its own; with none in the window, that is the answer, and a failure
    const d = r.ack.data ?? {};
    const stalled = r.outcomeTimedOut && typeof d.code === 'string' ? `${typeof d.detail === 'string' ? d.detail : d.code}` : undefined;
    if (!opts.json) {
      out('accepted by the target');
      for (const ev of r.outcomes) out(`outcome: ${ev.type}${describe(ev)}`);
      if (r.outcomeTimedOut) out(`no final outcome within ${opts.outcomeWindowMs} ms (${stalled ?? opts.pending ?? 'the target may still act on it'})`);
    } else if (stalled) json({ stalled: d.code, window_ms: opts.outcomeWindowMs, why: stalled });
    return stalled ? 1 : 0;
  } finally {
    s.close();
  }
}

function describe(ev: AepEvent): string {
  const d = ev.data ?? {};
  const closed = fateOf(ev.type);
  if (closed?.unit === 'attention' && closed.fate === 'resolved' && d.resolution) return ` (${d.resolution})`;
  if (isAttentionFollower(ev.type) && !closed && d.answer) return ` ${JSON.stringify(d.answer)}`;
  if (ev.type.endsWith('.dropped') && typeof d.reason === 'string') return ` (${d.reason})`;
  if (ev.type.endsWith('.instruction.delivered') && typeof d.carrier === 'string')
    return ` (by ${d.carrier}${typeof d.hook === 'string' ? `: ${d.hook}` : ''})`;
  if (ev.run) return ` run ${ev.run}`;
  return '';
}

/** Why a command to `session` found no route: the session's own end, from the relay's buffer. */
export async function endedSession(ep: Endpoint, session: string, code: string): Promise<string | undefined> {
  if (code !== 'no-route') return undefined;
  const u = new URL(`${ep.url.replace(/\/+$/, '')}/events`);
  u.searchParams.set('from', JSON.stringify([{ session, epoch: 0, seq: 0 }]));
  u.searchParams.set('live', '0');
  u.searchParams.set('filter', JSON.stringify({ session, type: [...SESSION_TERMINALS] }));
  let ended: { time?: string } | undefined;
  await readSse(u.toString(), authHeaders(ep.token), (m) => {
    ended = sseJson<{ time?: string }>(m);
    if (!ended) return;
    return false;
  });
  return ended ? `session-ended: session ${session} ended${ended.time ? ` at ${ended.time}` : ''}` : undefined;
}
