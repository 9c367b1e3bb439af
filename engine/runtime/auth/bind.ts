// Where a hookmap server may listen (AEP-0003 §8.1: any off-host binding
// needs a bearer token, and TLS): loopback always; anything else only with
// tokens required. What it says at start tells the operator where it
// listens and whether the traffic is readable on the network.
import { isLoopbackHost } from './guard.ts';

export class BindError extends Error {}

export function isLoopbackBind(host: string): boolean {
  return isLoopbackHost(host);
}

/** Throws when `host` is not loopback and the server would accept requests without a token. */
export function assertBindAllowed(host: string, tokensRequired: boolean): void {
  if (isLoopbackBind(host) || tokensRequired) return;
  throw new BindError(
    `refusing to listen on ${host} without a token: a non-loopback address exposes the stream ` +
      `and the hook endpoints to the network (drop --no-auth; a token is created in ` +
      `$HOOKMAP_HOME/token)`,
  );
}

/** The start-up lines for a non-loopback listener (none for loopback). */
export function exposureNotice(host: string, url: string, tls: boolean): string[] {
  if (isLoopbackBind(host)) return [];
  const lines = [
    `listening on ${host} (reachable from the network at ${url}): every request needs a token; ` +
      `the Host header must name this machine (--allow-host adds names)`,
  ];
  if (tls) lines.push('TLS on: tokens and events are encrypted on the wire (https/wss)');
  else
    lines.push(
      'WARNING: traffic is plain HTTP: tokens, prompts and commands cross the network readable by ' +
        'anyone on the path; use --tls-cert/--tls-key (or a TLS reverse proxy)',
    );
  return lines;
}
