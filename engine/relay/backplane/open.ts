// How a relay opens the fleet backplane (engine/relay/backplane/): connect,
// catch up, say which server, auth mode and stream (never a secret), or,
// when the backplane is optional and unreachable at start, serve local
// clients from memory. DESIGN.md "Growing past one machine"; issue 15.
import { BackplaneError, NatsStore } from './index.ts';
import { boundsOf, type BackplaneOptions } from './stream.ts';

/**
 * Open the backplane for a relay with these limits. Unreachable (or no
 * JetStream, or refused credentials) at start: a BackplaneError, or, when
 * `optional`, undefined after saying so (the relay then serves its local
 * clients from memory).
 */
export async function openBackplane(cfg: BackplaneOptions & { optional?: boolean }, limits: Parameters<typeof boundsOf>[0], log: (line: string) => void): Promise<NatsStore | undefined> {
  try {
    const maxBytes = cfg.maxBytes ?? limits.bufferBytes;
    const store = await NatsStore.open({ ...cfg, maxBytes, maxPerSession: cfg.maxPerSession ?? limits.buffer, log }, boundsOf(limits, maxBytes));
    log(`backplane: ${store.where} (NATS auth ${store.auth.auth}${store.auth.tls ? ', TLS' : ''}) stream ${store.o.stream} as relay ${store.relayId} (${store.stats().events} events caught up${cfg.token ? '' : '; no relay token: nothing is signed'})`);
    return store;
  } catch (e) {
    if (cfg.optional && e instanceof BackplaneError) {
      log(`${e.message}; backplane optional: serving local clients only (no fleet: other relays' events, roster and routes are not seen)`);
      return undefined;
    }
    throw e;
  }
}
