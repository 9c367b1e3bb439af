// Does the daemon answer? `GET /healthz` -> `{ ok, relay }` within a short
// bound (loopback: anything slower is already a problem). `hookmap up`
// answers a caller without a token only `{ok: true}`; the relay state needs
// the token (found like every client finds it, engine/runtime/auth/discover.ts).
// With the token the answer also carries the fleet backplane's health
// (stream, lag, consumers: engine/runtime/relay/backplane/), which
// backplaneFindings reads.
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Finding } from './types.ts';

export interface Health {
  url: string;
  reachable: boolean;
  ok?: boolean;
  relay?: boolean;
  /** false: a bare `ok` (no token, or a token without read). */ detailed?: boolean;
  error?: string;
  backplane?: Record<string, any>;
  /** Each chat channel's last problem (engine/person/channels). */ channels?: Record<string, { ok: boolean; problem?: string; at?: string }>;
}

export function checkHealth(base: string, timeoutMs = 1500, token?: string): Promise<Health> {
  const url = `${base}/healthz`;
  const request = url.startsWith('https:') ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
    const req = request(url, { method: 'GET', agent: false, timeout: timeoutMs, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        try {
          const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
          const bp = body?.backplane && typeof body.backplane === 'object' ? body.backplane : undefined;
          const ch = body?.channels && typeof body.channels === 'object' ? body.channels : undefined;
          resolve({
            url,
            reachable: true,
            ok: res.statusCode === 200 && body?.ok === true,
            relay: body?.relay === true,
            detailed: body && 'relay' in body,
            ...(bp ? { backplane: bp } : {}),
            ...(ch ? { channels: ch } : {}),
          });
        } catch {
          resolve({ url, reachable: true, ok: false, error: `HTTP ${res.statusCode}, not a healthz body` });
        }
      });
      res.on('error', (e) => resolve({ url, reachable: false, error: e.message }));
    });
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', (e: NodeJS.ErrnoException) => resolve({ url, reachable: false, error: e.code ?? e.message }));
    req.end();
  });
}

/** Lag past this many stream messages is worth a look (a relay falling behind its fleet). */
export const LAG_WARN = 1000;

/** What the relay's backplane report says, as findings. */
export function backplaneFindings(bp: Record<string, any>): Finding[] {
  const subject = String(bp.url ?? 'backplane');
  const out: Finding[] = [];
  // how the relay proves itself to NATS, never the secret (engine/runtime/relay/backplane/connect.ts)
  if (bp.auth !== undefined) {
    const how = `NATS auth ${bp.auth}, ${bp.tls ? 'TLS' : 'no TLS'}`;
    out.push(
      bp.auth === 'none' && !bp.tls
        ? {
            area: 'backplane',
            subject,
            status: 'info',
            message: `${how}: whoever reaches the NATS server reads the stream (messages are signed, not encrypted)`,
            fix: 'across machines, give NATS an authorization block and TLS: docs/fleet.md "Authentication and TLS"',
          }
        : { area: 'backplane', subject, status: 'ok', message: how },
    );
  }
  if (!bp.connected) {
    out.push({
      area: 'backplane',
      subject,
      status: 'problem',
      message:
        `not connected to ${subject}${bp.error ? ` (${bp.error})` : ''}: events wait in the relay ` +
        `(emitters keep them in their logs) and other relays do not see them`,
      fix: 'check that nats-server -js runs and is reachable from this machine',
    });
    return out;
  }
  const mib = (Number(bp.bytes) / 2 ** 20).toFixed(1);
  out.push({
    area: 'backplane',
    subject,
    status: 'ok',
    message:
      `stream ${bp.stream}: ${bp.messages} events (${mib} MiB, seq ${bp.first_seq}..${bp.last_seq}), ` +
      `retention ${Math.round(bp.max_age_ms / 3600_000)} h / ${(bp.max_bytes / 2 ** 30).toFixed(1)} ` +
      `GiB`,
  });
  out.push({
    area: 'backplane',
    subject,
    status: 'ok',
    message:
      `${bp.consumers} consumer${bp.consumers === 1 ? '' : 's'} on the stream, ${Array.isArray(bp.relays) ? bp.relays.length : 1} ` +
      `relay${Array.isArray(bp.relays) && bp.relays.length === 1 ? '' : 's'} in the roster (this ` +
      `one: ${bp.relay})`,
  });
  out.push(
    bp.lag > LAG_WARN
      ? {
          area: 'backplane',
          subject,
          status: 'warn',
          message: `this relay is ${bp.lag} events behind the stream (consumed ${bp.consumed_seq} of ${bp.last_seq})`,
          fix: 'a relay that stays behind is CPU-bound or far from NATS: see docs/fleet.md',
        }
      : { area: 'backplane', subject, status: 'ok', message: `lag ${bp.lag} (consumed ${bp.consumed_seq} of ${bp.last_seq})` },
  );
  if (bp.forged > 0)
    out.push({
      area: 'backplane',
      subject,
      status: 'warn',
      message:
        `${bp.forged} messages on the backplane were dropped: not signed with this relay's token ` +
        `(another fleet on the same subjects, a relay with a different token, or someone publishing ` +
        `on NATS)`,
      fix: 'give every relay of the fleet the same token, and give each fleet its own --backplane-prefix',
    });
  if (bp.publish_failures > 0)
    out.push({
      area: 'backplane',
      subject,
      status: 'info',
      message: `${bp.publish_failures} publish attempts failed and were retried in order${bp.error ? ` (last: ${bp.error})` : ''}`,
    });
  return out;
}
