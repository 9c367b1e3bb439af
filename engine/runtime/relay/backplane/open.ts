// How a relay opens the fleet backplane (engine/runtime/relay/backplane/): connect,
// catch up, say which server, auth mode and stream (never a secret), or,
// when the backplane is optional and unreachable at start, serve local
// clients from memory and join the fleet once NATS answers (join.ts).
// DESIGN.md "Growing past one machine"; issue 15.
import { MemoryStore } from '../memory-store.ts';
import { authModeOf, maskNatsUrl } from './connect.ts';
import { BackplaneError, NatsStore } from './index.ts';
import { JoiningStore } from './join.ts';
import { boundsOf, resolveOptions, type BackplaneOptions } from './stream.ts';

export { JoiningStore } from './join.ts';

/**
 * Open the backplane for a relay with these limits. Unreachable (or no
 * JetStream, or refused credentials) at start: a BackplaneError, or, when
 * `optional`, a store that serves local clients from memory, says so, and
 * joins the fleet when NATS answers (join.ts; `retryMs` bounds its backoff).
 */
export async function openBackplane(
  cfg: BackplaneOptions & { optional?: boolean; retryMs?: { initial: number; max: number } },
  limits: Parameters<typeof boundsOf>[0],
  log: (line: string) => void,
): Promise<NatsStore | JoiningStore> {
  const maxBytes = cfg.maxBytes ?? limits.bufferBytes;
  const open = async () => {
    const store = await NatsStore.open({ ...cfg, maxBytes, maxPerSession: cfg.maxPerSession ?? limits.buffer, log }, boundsOf(limits, maxBytes));
    log(
      `backplane: ${store.where} (NATS auth ${store.auth.auth}${store.auth.tls ? ', TLS' : ''}) ` +
        `stream ${store.o.stream} as relay ${store.relayId} (${store.stats().events} events caught ` +
        `up${cfg.token ? '' : '; no relay token: nothing is signed'})`,
    );
    return store;
  };
  try {
    return await open();
  } catch (e) {
    if (!cfg.optional || !(e instanceof BackplaneError)) throw e;
    log(
      `${e.message}; backplane optional: serving local clients only (no fleet: other relays' ` +
        `events, roster and routes are not seen) and retrying in the background; events admitted ` +
        `meanwhile are published to the stream when it joins`,
    );
    const local = new MemoryStore({
      perSession: limits.buffer,
      maxSessions: limits.maxSessions,
      sessionBytes: limits.sessionBufferBytes,
      totalBytes: limits.bufferBytes,
    });
    const describe = { url: maskNatsUrl(cfg.url), ...authModeOf(cfg.url, cfg.auth), stream: resolveOptions(cfg).stream };
    return new JoiningStore(local, { open, describe, log, backoffMs: cfg.retryMs, firstError: e.message });
  }
}
