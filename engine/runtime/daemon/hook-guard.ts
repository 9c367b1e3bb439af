// The guard in front of the hook endpoints (`POST /hooks/<agent>[/<hook>]`, `/next-turn/<agent>`),
// installed as an onRequest hook by whoever owns the server (`up`, `serve`),
// so it runs before any body is read and no route handler changes:
//
//   - only `application/json` is accepted: what every shim, plugin and native
//     HTTP hook sends, and a type a web page cannot POST cross-site without
//     a CORS preflight (which nothing here answers). Anything else is refused
//     415 with a code (`x-hookmap-error: unsupported-media-type`) and the
//     agent's neutral bytes, so a shim still answers its agent correctly;
//     the body is never read, mapped or logged.
//   - a peer that is not on this machine (a server bound beyond loopback)
//     must present a token with the `emit` scope (401, neutral bytes).
//   - every caller must present the home's hook key (engine/runtime/auth/hook-key.mjs,
//     header `x-hookmap-key`, compared in constant time): loopback is not an
//     identity (issue 40). Without it: 403, `x-hookmap-error: hook-key`, the
//     agent's neutral bytes (never an allow), the body never read, and one
//     throttled log line; no waiter, ack, nack or firing happens.
//
// Host and Origin are checked before this by the server-wide Guard
// (engine/runtime/auth/guard.ts). Issue 10 "browsers kept out"; issue 11 (refusals
// are coded, never a silent 200).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Authorizer } from '../auth/authorizer.ts';
import { isLoopbackHost } from '../auth/guard.ts';
import { can } from '../auth/principal.ts';
import type { Daemon, HookReply } from './daemon.ts';
import { HOOK_KEY_ERROR, HOOK_KEY_HEADER, hookKeyFor, hookKeyMatches } from '../auth/hook-key.mjs';
import { throttledSay } from '../../core/io/throttle.ts';
import { redactUrl } from '../relay/auth.ts';

export interface HookGuardOptions {
  daemons: Map<string, Daemon>;
  /** Tokens for non-loopback peers; absent: only loopback peers are served. */
  auth?: Authorizer;
  /** The hook key every caller must present: given, or (undefined) the home's, created when missing; false or no home: none. */
  hookKey?: string | false;
  home?: string;
  say?: (line: string) => void;
}

/** How often a refusal anyone can provoke is logged (the rest are counted into the next line). */
const REFUSAL_LOG_WINDOW_MS = 60_000;

const EMPTY: HookReply = { body: '', exit: 0, contentType: 'text/plain; charset=utf-8' };

export function mediaType(header: string | undefined): string {
  return String(header ?? '')
    .split(';')[0]
    .trim()
    .toLowerCase();
}

/** Installs the guard; returns the hook key it requires (what the server's tee endpoint requires too). */
export function installHookGuard(app: FastifyInstance, o: HookGuardOptions): string | undefined {
  const say = o.say ?? (() => {});
  const hookKey = hookKeyFor(o.hookKey, o.home);
  const sayKey = throttledSay(say, REFUSAL_LOG_WINDOW_MS);
  app.addHook('onRequest', async (req: FastifyRequest, reply: FastifyReply) => {
    const path = req.url.split('?')[0];
    const shown = redactUrl(path);
    if (!path.startsWith('/hooks/') && !path.startsWith('/next-turn/')) return; // a next-turn waiter is a hook's background handler
    const neutral = () => neutralOf(o.daemons, path);
    const remote = req.socket.remoteAddress;
    if (remote && !isLoopbackHost(remote)) {
      const a = o.auth?.authenticate(req.raw);
      if (!a?.ok || !can(a.principal, 'emit')) {
        say(`POST ${shown} from ${remote}: refused [unauthorized]: a peer off this machine needs a token with the emit scope`);
        return refuse(reply, 401, 'unauthorized', neutral());
      }
    }
    if (hookKey !== undefined && !hookKeyMatches(hookKey, req.headers[HOOK_KEY_HEADER])) {
      const had = req.headers[HOOK_KEY_HEADER] === undefined ? 'no hook key' : 'a wrong hook key';
      sayKey(`${req.method} ${shown}: refused [${HOOK_KEY_ERROR}]: ${had} (${HOOK_KEY_HEADER}); answered the neutral bytes, body not read`);
      return refuse(reply, 403, HOOK_KEY_ERROR, neutral());
    }
    if (req.method !== 'POST') return;
    const type = mediaType(req.headers['content-type']);
    if (type !== 'application/json') {
      say(
        `POST ${shown}: refused [unsupported-media-type]: content-type '${type || '(none)'}' (hooks ` +
          `take application/json); answered the neutral bytes, body not read`,
      );
      return refuse(reply, 415, 'unsupported-media-type', neutral());
    }
  });
  return hookKey;
}

function neutralOf(daemons: Map<string, Daemon>, path: string): HookReply {
  const [, , agent, hook] = path.split('/');
  let d: Daemon | undefined;
  let h: string | undefined;
  try {
    d = daemons.get(decodeURIComponent(agent ?? ''));
    h = hook ? decodeURIComponent(hook) : undefined;
  } catch {
    return EMPTY;
  }
  return d ? d.neutralReply(h) : EMPTY;
}

function refuse(reply: FastifyReply, status: number, code: string, r: HookReply): FastifyReply {
  return reply
    .code(status)
    .header('x-hookmap-exit', String(r.exit))
    .header('x-hookmap-error', code)
    .header('content-type', r.contentType)
    .header('connection', 'close')
    .send(r.body);
}
