// The relay's SSE client (engine/relay/client.ts re-exports it): the
// default relay URL, the bearer header, and an SSE reader over fetch with
// backpressure (AEP-0003 §3.3 SSE binding). Moved out of client.ts.

export const DEFAULT_URL = 'http://127.0.0.1:8787';

export function authHeaders(token: string | undefined): Record<string, string> {
  return token ? { authorization: `Bearer ${token}` } : {};
}

export interface SseMessage { event?: string; id?: string; data?: string; comment?: string }

/**
 * Read an SSE stream to its end (or until onMessage returns false / the signal aborts).
 * onMessage may return a promise: reading pauses until it settles (backpressure
 * reaches the relay through TCP instead of piling up in this process).
 */
export async function readSse(url: string, headers: Record<string, string>, onMessage: (m: SseMessage) => boolean | void | Promise<boolean | void>, signal?: AbortSignal): Promise<void> {
  const res = await fetch(url, { headers: { ...headers, accept: 'text/event-stream' }, signal });
  if (!res.ok || !res.body) {
    const body = await res.text().catch(() => '');
    throw new Error(`relay answered ${res.status}${body ? `: ${body}` : ''}`);
  }
  const decoder = new TextDecoder();
  let buf = '';
  let cur: SseMessage = {};
  const reader = res.body.getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buf += decoder.decode(value, { stream: true });
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
    reader.cancel().catch(() => {});
  }
}
