// hookmap's own emitter identity (`agent: hookmap`), for what the operator's
// process does that belongs to no agent's session: a policy file loaded or
// refused. AEP-0004 §8: an endpoint MAY publish its own records as ordinary
// Events in a session it emits under its own identity (x.* kinds on the
// ordinary envelope). Built like a daemon: a locked log folder, a durable
// epoch bumped per start, (epoch, seq) continuing the session log, a relay
// link with a hello that accepts no command.
import { hostname } from 'node:os';
import { join } from 'node:path';
import { formatAjvErrors, validateEnvelope } from '../../core/aep/schemas.ts';
import { buildEnvelope, sourceHost, type AepEvent } from '../../core/map/envelope.ts';
import { claimFolder, type Claim } from './epoch.ts';
import { RelayLink } from './relay-link.ts';
import type { Dial } from './relay-link-types.ts';
import { tlsClientOptions, type TlsFiles } from '../auth/tls.ts';
import { DurableSeq } from './seq.ts';
import { SessionLog } from './session-log.ts';

import { OPERATOR_AGENT } from '../../core/kernel/event.ts';

export { isOperatorRecord, OPERATOR_AGENT } from '../../core/kernel/event.ts'; // the kernel's one definition

export class OperatorLog {
  readonly epoch: number;
  readonly log: SessionLog;
  /** The one session these records live in (per host). */
  readonly session: string;
  private readonly seq: DurableSeq;
  private readonly release: () => void;
  private readonly host: string;
  private link?: RelayLink;

  /** The operator's folder taken, its epoch durable before anything is published (the promise: flushed off the main thread). */
  static start(logDir: string, say?: (line: string) => void, hostId?: string): Promise<OperatorLog> {
    return claimFolder(logDir, OPERATOR_AGENT, true).then((c) => new OperatorLog(logDir, say, hostId, c));
  }

  constructor(
    readonly logDir: string,
    private readonly say: (line: string) => void = () => {},
    hostId?: string,
    claim: Claim = claimFolder(logDir, OPERATOR_AGENT),
  ) {
    this.host = sourceHost(hostId);
    this.session = `operator@${this.host}`;
    this.log = new SessionLog(logDir);
    ({ release: this.release, epoch: this.epoch } = claim);
    this.seq = new DurableSeq(this.epoch, this.log);
  }

  /** One metadata-only record (structural fields only: the operator's words stay on stderr). */
  publish(type: string, data: Record<string, unknown>, about: { subject?: string; cause?: string } = {}): AepEvent {
    const pos = this.seq.next(this.session);
    const ev = buildEnvelope({
      type,
      host: this.host,
      agent: OPERATOR_AGENT,
      session: this.session,
      seq: pos.seq,
      epoch: pos.epoch,
      capture: 'metadata',
      ...(about.subject ? { subject: about.subject } : {}),
      ...(about.cause ? { cause: about.cause } : {}),
      data,
    });
    const errs = validateEnvelope(ev);
    if (errs.length) throw new Error(`operator record ${type} fails the envelope schema: ${formatAjvErrors(errs)}`);
    const rec = this.log.append(ev);
    this.link?.deliver(rec);
    return ev;
  }

  connectRelay(url: string, token?: string, o: { tls?: TlsFiles; dial?: Dial } = {}): void {
    this.link = new RelayLink({
      url,
      token,
      tls: o.tls ? tlsClientOptions(o.tls) : undefined,
      dial: o.dial,
      identity: { agent: OPERATOR_AGENT, instance: `${hostname()}/${process.pid}` },
      capabilities: { emits: [], capture: ['none', 'metadata'], control: { accepts: [], ack_window_ms: 10_000 } },
      log: this.log,
      cursorFile: join(this.logDir, 'relay-cursors.json'),
      onCommand: (cmd) => this.say(`operator session: command ${cmd.type} ${cmd.id} ignored (it accepts none)`),
      say: this.say,
    });
    this.link.start();
  }

  get relayReady(): boolean {
    return this.link?.ready ?? false;
  }

  async close(): Promise<void> {
    await this.link?.close();
    this.log.close();
    this.release();
  }
}
