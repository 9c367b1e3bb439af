// Rotating the fleet's owner token without restarting relays
// (engine/runtime/relay/backplane/signing.ts watchTokenFile, Signer.rekey): each
// relay re-reads its token file when it changes and re-derives the signing
// key; for a grace window it signs with both keys and accepts both, so a
// fleet whose machines get the new token one after the other keeps routing
// commands; after the window a message signed with the old key only is
// dropped. Real nats-server -js.
import { createHmac } from 'node:crypto';
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, headers } from '@nats-io/transport-node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createRelay, openBackplane, resolveLimits } from '../../engine/runtime/relay/index.ts';
import { fleetKey } from '../../engine/runtime/relay/backplane/signing.ts';
import { agentEv, ev, until } from '../runtime/relay/helpers.ts';
import { wsClients } from './clients.ts';
import { NATS_MISSING, NatsServer } from './nats.ts';

const CLIENT = 'fleet-rotate-client-token';
const AUTH = { authorization: `Bearer ${CLIENT}` };
const OLD = 'hmk_rotate_old_0123456789';
const NEW = 'hmk_rotate_new_9876543210';
const GRACE = 4000;
const ACCEPTS = { control: { accepts: ['control.cancel'] } };
const stops: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  while (stops.length) await stops.pop()!();
});
const { client } = wsClients(AUTH, stops);

/** Write a token file the way a careful operator does: a new file renamed over the old one (0600). */
function writeToken(file: string, token: string): void {
  writeFileSync(`${file}.tmp`, `${token}\n`, { mode: 0o600 });
  renameSync(`${file}.tmp`, file);
}

describe.skipIf(!!NATS_MISSING)('owner token rotation on the fleet backplane', () => {
  let nats: NatsServer;
  beforeAll(async () => {
    nats = await NatsServer.start();
  });
  afterAll(async () => {
    await nats?.stop();
  });

  it('relays pick up a new token one after the other and keep routing; the old key is refused after the grace window', async () => {
    const stream = `ROT${process.pid}`;
    const prefix = stream.toLowerCase();
    const dir = mkdtempSync(join(tmpdir(), 'hookmap-fleet-rotate-'));
    stops.push(() => rmSync(dir, { recursive: true, force: true }));
    const relay = async (name: string) => {
      const tokenFile = join(dir, `${name}.token`);
      writeToken(tokenFile, OLD);
      const said: string[] = [];
      const store = await openBackplane({ url: nats.url, stream, prefix, token: OLD, tokenFile, keyGraceMs: GRACE }, resolveLimits({}), (l) => said.push(l));
      const r = createRelay({ host: '127.0.0.1', port: 0, token: CLIENT, store });
      const { url } = await r.listen();
      stops.push(() => r.close());
      return { url, tokenFile, said, store };
    };
    const a = await relay('a');
    const b = await relay('b');
    const target = await client(b.url, { role: 'emitter', identity: { agent: 'tgt' }, capabilities: ACCEPTS });
    target.send(ev('rot-s', 1));
    await target.sync();
    const sender = await client(a.url, { role: 'both', identity: { agent: 'ui' } });
    sender.send({ type: 'subscribe', id: 'live', filter: { type: 'agent.*' } });
    await sender.next((m) => m.type === 'subscribed');
    await until(async () => {
      const id = `r${Math.random()}`;
      sender.send({ type: 'roster', id });
      return (await sender.next((m) => m.type === 'roster' && m.id === id)).entries.some((e: any) => e.session === 'rot-s');
    }, 'the claim on B in the roster on A');
    let n = 0;
    const command = async () => {
      const cmd = { ...ev('rot-s', 0, { id: `rot-cmd-${++n}`, type: 'control.cancel', agent: 'ui', source: 'aep://h/agent/ui', data: { scope: 'session' } }) };
      delete cmd.seq;
      sender.send(cmd);
      await target.next((m) => m.id === cmd.id);
    };
    await command();

    // A gets the new token first: it signs with both keys, so B (old key only) still takes its command and A takes B's answer
    writeToken(a.tokenFile, NEW);
    await until(() => a.said.some((l) => /owner token in .*a\.token changed: signing with the key derived from the new one/.test(l)), 'A re-derives its key');
    await command();
    // then B
    writeToken(b.tokenFile, NEW);
    await until(() => b.said.some((l) => /owner token in .*b\.token changed/.test(l)), 'B re-derives its key');
    await command();

    // someone holding only the old key (a leaked old token, a relay never given the new one)
    const nc = await connect({ servers: nats.url });
    stops.push(() => nc.close());
    const inject = (id: string) => {
      const body = new TextEncoder().encode(JSON.stringify({ ...agentEv(), id }));
      const h = headers();
      h.set('relay', 'old-holder');
      h.set('Hookmap-Sig', createHmac('sha256', fleetKey(OLD)!).update(body).digest('base64url'));
      nc.publish(`${prefix}.live.test`, body, { headers: h });
    };
    inject('old-key-in-grace');
    await until(() => sender.events().some((e) => e.id === 'old-key-in-grace'), 'an old-key message accepted inside the window');
    const forgedBefore = ((await a.store.health()) as any).forged;
    await new Promise((r) => setTimeout(r, GRACE + 200));
    inject('old-key-after-grace');
    await until(async () => ((await a.store.health()) as any).forged > forgedBefore, 'the old-key message dropped after the window');
    expect(sender.events().some((e) => e.id === 'old-key-after-grace')).toBe(false);
    // and the rotated fleet still routes
    await command();
  });
});
