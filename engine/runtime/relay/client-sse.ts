// The relay's SSE client (engine/runtime/relay/client.ts re-exports it): the
// default relay URL, the bearer header, and an SSE reader over fetch with
// backpressure (AEP-0003 §3.3 SSE binding), over fetch, or over node:https
// when our own TLS certificate is pinned (a bridge inside `up --tls-*`);
// a plain http: relay (loopback, the common case) over node:http with no
// keep-alive, so a client that stops reading (`tail --count 1`) exits at
// once instead of waiting on a pooled socket, and never loads fetch's undici.

import { request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest, type RequestOptions } from 'node:https';

export { DEFAULT_URL } from '../../core/config/defaults.ts';

export function authHeaders(token: string | undefined): Record<string, string> {
  return token ? { authorization: `Bearer ${token}` } : {};
}

export interface SseMessage {
  event?: string;
  id?: string;
  data?: string;
  comment?: string;
}

/** The JSON a data message carries (an event), or undefined for a comment or a message that is not JSON. */
export function sseJson<T = Record<string, any>>(m: SseMessage): T | undefined {
  if (!m.data) return undefined;
  try {
    return JSON.parse(m.data) as T;
  } catch {
    return undefined;
  }
}

/**
 * Read an SSE stream to its end (or until onMessage returns false / the signal aborts).
 * onMessage may return a promise: reading pauses until it settles (backpressure
 * reaches the relay through TCP instead of piling up in this process).
 */
export async function readSse(
  url: string,
  headers: Record<string, string>,
  onMessage: (m: SseMessage) => boolean | void | Promise<boolean | void>,
  signal?: AbortSignal,
  tls?: SseTrust,
): Promise<void> {
  const h = { ...headers, accept: 'text/event-stream' };
  const body = url.startsWith('http:')
    ? await openPlain(url, h, signal)
    : tls && url.startsWith('https:')
      ? await openPinned(url, h, tls, signal)
      : await openFetch(url, h, signal);
  const decoder = new TextDecoder();
  let buf = '';
  let cur: SseMessage = {};
  const chunks = body[Symbol.asyncIterator]();
  try {
    for (;;) {
      const { value, done } = await chunks.next();
      if (done) return;
      buf += decoder.decode(value as Uint8Array, { stream: true });
      let nl: number;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl).replace(/\r$/, '');
        buf = buf.slice(nl + 1);
        if (line === '') {
          if (cur.data !== undefined || cur.comment !== undefined) {
            let r = onMessage(cur);
            if (r instanceof Promise) r = await r;
            if (r === false) return;
          }
          cur = {};
        } else if (line.startsWith(':')) {
          if (onMessage({ comment: line.slice(1).trim() }) === false) return;
        } else {
          const i = line.indexOf(':');
          const field = i < 0 ? line : line.slice(0, i);
          const value = i < 0 ? '' : line.slice(i + 1).replace(/^ /, '');
          if (field === 'data') cur.data = cur.data === undefined ? value : `${cur.data}\n${value}`;
          else if (field === 'event') cur.event = value;
          else if (field === 'id') cur.id = value;
        }
      }
    }
  } finally {
    chunks.return?.().catch(() => {});
  }
}

/** Roots to trust for an https relay beyond the system store (our own `up --tls-*` certificate, pinned), and the name to verify. */
export interface SseTrust {
  ca?: (string | Buffer)[];
  servername?: string;
}

async function openFetch(url: string, headers: Record<string, string>, signal?: AbortSignal): Promise<AsyncIterable<Uint8Array>> {
  const res = await fetch(url, { headers, signal });
  if (!res.ok || !res.body) {
    const body = await res.text().catch(() => '');
    throw new Error(`relay answered ${res.status}${body ? `: ${body}` : ''}`);
  }
  return res.body as unknown as AsyncIterable<Uint8Array>;
}

/** fetch cannot take extra roots without a dispatcher: the pinned case goes through node:https. */
function openPinned(url: string, headers: Record<string, string>, tls: SseTrust, signal?: AbortSignal): Promise<AsyncIterable<Uint8Array>> {
  return openNode(httpsRequest, url, { headers, ca: tls.ca, servername: tls.servername, signal });
}

/**
 * http: one connection of its own (no agent, no keep-alive): closed when the reader stops. A connection that
 * fails says `fetch failed`, as fetch does, cause attached.
 */
function openPlain(url: string, headers: Record<string, string>, signal?: AbortSignal): Promise<AsyncIterable<Uint8Array>> {
  return openNode(httpRequest, url, { headers, signal, agent: false }, (e) => (signal?.aborted ? e : new Error('fetch failed', { cause: e })));
}

function openNode(
  request: (url: string, options: RequestOptions, onResponse: (res: IncomingMessage) => void) => ClientRequest,
  url: string,
  options: RequestOptions,
  connectError: (e: Error) => Error = (e) => e,
): Promise<AsyncIterable<Uint8Array>> {
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = request(url, options, (res: IncomingMessage) => {
      answered = true;
      if ((res.statusCode ?? 0) < 200 || (res.statusCode ?? 0) > 299) {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text = (text + c).slice(0, 4096)));
        res.on('end', () => reject(new Error(`relay answered ${res.statusCode}${text ? `: ${text}` : ''}`)));
        res.on('error', reject);
        return;
      }
      resolve(res);
    });
    req.on('error', (e) => reject(answered ? e : connectError(e)));
    req.end();
  });
}
