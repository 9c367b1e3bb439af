// A daemon's connection to the relay as an AEP emitter (AEP-0003 §4: hello
// with its identity and capabilities, the outbox read from the session log,
// reconnects): the RelayLink (relay-link.ts) wired to the daemon's core.
// A line the link sets aside (dead-letter) is logged as one
// x.hookmap.event.dropped notice; a notice about a notice is not.
import { hostname } from 'node:os';
import { join } from 'node:path';
import { tlsClientOptions, type TlsFiles } from '../auth/tls.ts';
import type { AepEvent } from '../../core/map/envelope.ts';
import type { DaemonCore } from './core.ts';
import { DROPPED_EVENT_TYPE } from './lifecycle.ts';
import { RelayLink } from './relay-link.ts';
import type { Dial, RelayLinkOptions } from './relay-link-types.ts';

export interface RelayAttach {
  url: string;
  token?: RelayLinkOptions['token'];
  tls?: TlsFiles;
  /** An in-process relay's connection (hookmap up) instead of a WebSocket to `url`. */
  dial?: Dial;
  capabilities: Record<string, unknown>;
  /** The agent's log folder (the link's cursor file lives there). */
  logDir: string;
  onCommand: (cmd: AepEvent, raw: string, by?: string) => void;
  onReady: () => void;
}

export function openRelayLink(core: DaemonCore, o: RelayAttach): RelayLink {
  return new RelayLink({
    url: o.url,
    token: o.token,
    tls: o.tls ? tlsClientOptions(o.tls) : undefined,
    dial: o.dial,
    identity: { agent: core.vendor, instance: `${hostname()}/${process.pid}` },
    capabilities: o.capabilities,
    log: core.log,
    cursorFile: join(o.logDir, 'relay-cursors.json'),
    onCommand: o.onCommand,
    onReady: o.onReady,
    onDropped: (info) => {
      if (core.closed) return;
      // a notice about a notice is not sent again (the dead-letter file has both)
      if (info.type === DROPPED_EVENT_TYPE) return;
      void core.serial.run(() => {
        try {
          core.publish([core.events.dropped(info)]);
        } catch (e) {
          core.say(`could not log the event-dropped notice: ${(e as Error).message}`);
        }
      });
    },
    say: core.say,
  });
}
