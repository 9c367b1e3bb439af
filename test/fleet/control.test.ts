// Commands across the fleet keep issue 10's security (engine/runtime/relay/backplane/routing.ts,
// engine/runtime/relay/core.ts routeOnce): a real daemon (Codex, a held PermissionRequest)
// behind `hookmap up` C, answered from `hookmap up` A with a named token only A
// knows, a third relay B watching; all on one real nats-server -js.
//  - a token without the control scope is refused on A and nothing reaches NATS;
//  - the answer crosses NATS once, signed, with the sender's principal inside;
//  - attention.answered.by on C names the sender authenticated on A, and the
//    audit lines on both relays name it (and the other relay);
//  - watchers on every relay get the redacted copy of the command, never its
//    raw text.
// The fleet shares one owner token (the signing key derives from it).
import { hookKeyHeaders } from '../../engine/runtime/auth/hook-key.mjs';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { addToken, generateToken } from '../../engine/runtime/auth/tokens.ts';
import { startUp, type Up } from '../../engine/app/up.ts';
import { makeCommand, openSocket, sendCommand } from '../../engine/runtime/relay/client.ts';
import { createRelay, openBackplane, resolveLimits, type Relay } from '../../engine/runtime/relay/index.ts';
import { SseClient } from '../runtime/relay/helpers.ts';
import { until } from '../security/helpers.ts';
import { NATS_MISSING, NatsServer } from './nats.ts';

const SECRET = 'hunter2-Xq9';
const GH = 'ghp_0123456789abcdefghijABCDEFGHIJ012345';
const TEXT = `no: run it with --password ${SECRET} and token ${GH} instead`;
const OWNER = generateToken();

interface Node {
  up: Up;
  home: string;
  audit(): any[];
}

describe.skipIf(!!NATS_MISSING)('commands across the fleet (nats-server -js)', () => {
  let nats: NatsServer;
  let a: Node;
  let c: Node;
  let b: Relay;
  let bUrl: string;
  let nc: NatsConnection;
  const ctl: { subject: string; data: string; sig?: string }[] = [];
  const homes: string[] = [];
  const backplane = { stream: `CTL${process.pid}`, prefix: `ctl${process.pid}` };

  async function node(): Promise<Node> {
    const home = mkdtempSync(join(tmpdir(), 'hookmap-fleet-ctl-'));
    homes.push(home);
    const tokenFile = join(home, 'token');
    writeFileSync(tokenFile, `${OWNER}\n`);
    chmodSync(tokenFile, 0o600);
    const up = await startUp({
      port: 0,
      home,
      logDir: join(home, 'logs'),
      stateDir: join(home, 'state'),
      tokenFile,
      auditFile: join(home, 'audit.jsonl'),
      agents: [{ descriptor: 'codex' }],
      attentionTimeoutMs: 60_000,
      backplane: { url: nats.url, ...backplane },
    });
    const audit = () => {
      try {
        return readFileSync(join(home, 'audit.jsonl'), 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l));
      } catch {
        return [];
      }
    };
    return { up, home, audit };
  }

  beforeAll(async () => {
    nats = await NatsServer.start();
    a = await node();
    c = await node();
    const store = await openBackplane({ url: nats.url, ...backplane, token: OWNER }, resolveLimits({}), () => {});
    b = createRelay({ host: '127.0.0.1', port: 0, token: OWNER, store });
    bUrl = (await b.listen()).url;
    nc = await connect({ servers: nats.url });
    nc.subscribe(`${backplane.prefix}.ctl.>`, {
      callback: (_e, m) => void ctl.push({ subject: m.subject, data: new TextDecoder().decode(m.data), sig: m.headers?.get('Hookmap-Sig') }),
    });
    await nc.flush();
  }, 60_000);
  afterAll(async () => {
    await nc?.close();
    await b?.close();
    await a?.up.close();
    await c?.up.close();
    await nats?.stop();
    for (const h of homes) rmSync(h, { recursive: true, force: true });
  });

  it(
    'a command on A answers a daemon on C with the sender A authenticated; a reader never ' + 'reaches NATS; watchers everywhere get the redacted copy',
    async () => {
      const session = 'fleet-ctl-1';
      const auth = { authorization: `Bearer ${OWNER}` };
      const watchers = await Promise.all([a.up.url, bUrl, c.up.url].map((u) => SseClient.open(u, { filter: JSON.stringify({ session }) }, auth)));
      try {
        const reply = fetch(`${c.up.url}/hooks/codex`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...hookKeyHeaders(c.home) },
          body: JSON.stringify({
            hook_event_name: 'PermissionRequest',
            session_id: session,
            turn_id: 't1',
            tool_name: 'Bash',
            tool_input: { command: 'deploy' },
          }),
        }).then((r) => r.text());
        // the request reaches A through the stream; C's claim reaches A's roster
        const request = await until('the request on A', () => watchers[0].events.find((e) => e.type === 'attention.requested'), 20_000);
        const { token: reader } = addToken(a.home, 'fleet-reader', 'read');
        const { token: alice } = addToken(a.home, 'alice', 'control');
        const respond = (answer: Record<string, unknown>) => {
          const cmd = makeCommand('control.attention.respond', session, { subject: request.id, data: { answer } });
          cmd.cause = request.id;
          return cmd;
        };
        const follow = (x: Awaited<ReturnType<typeof openSocket>>, cmd: any) =>
          sendCommand(x, cmd, { ackWindowMs: 10_000, outcomeWindowMs: 10_000, isFinal: (e) => e.type === 'attention.resolved' });

        // a token without the control scope: refused on A, nothing on NATS
        const rx = await openSocket(a.up.url, reader, 'both');
        try {
          expect(await follow(rx, respond({ option: 'allow' }))).toMatchObject({ kind: 'refused', code: 'unauthorized' });
        } finally {
          rx.close();
        }
        await nc.flush();
        await new Promise((r) => setTimeout(r, 300));
        expect(ctl).toEqual([]);
        expect(a.audit().some((r) => r.principal === 'fleet-reader' && r.outcome === 'unauthorized')).toBe(true);

        // alice (a name only A's tokens.json holds) answers; the daemon sits on C
        const ax = await openSocket(a.up.url, alice, 'both');
        const cmd = respond({ option: 'deny', text: TEXT });
        cmd.agent = 'root-admin'; // asserted, never trusted (AEP-0004 §8)
        let r;
        try {
          await until('the route to C', async () => {
            r = await follow(ax, cmd);
            return r.kind !== 'refused' || (r as any).code !== 'no-route';
          });
        } finally {
          ax.close();
        }
        expect(r).toMatchObject({ kind: 'acked' });
        const answered = (r as any).outcomes.find((e: any) => e.type === 'attention.answered');
        expect(answered.data.by).toBe('alice');
        expect(await reply).toContain('deny');

        // it crossed NATS once, signed, with the principal inside the signed body
        expect(ctl).toHaveLength(1);
        expect(ctl[0].sig).toBeTruthy();
        const crossed = JSON.parse(ctl[0].data);
        expect(crossed.by).toEqual({ name: 'alice', scopes: ['read', 'control'] });
        expect(JSON.parse(crossed.raw).id).toBe(cmd.id);

        // both relays' audit lines name alice and the other relay
        const idOf = async (u: string) => (await (await fetch(`${u}/healthz`, { headers: auth })).json()).backplane.relay;
        const [idA, idC] = [await idOf(a.up.url), await idOf(c.up.url)];
        expect(a.audit().find((x) => x.command.id === cmd.id)).toMatchObject({
          principal: 'alice',
          outcome: 'routed',
          relay: idC,
          command: { agent: 'root-admin' },
        });
        expect(c.audit().find((x) => x.command.id === cmd.id)).toMatchObject({ principal: 'alice', outcome: 'routed', relay: idA });

        // every relay's watchers: the redacted copy, once; no raw text anywhere
        for (const [i, w] of watchers.entries()) {
          await until(`the outcome on relay ${i}`, () => w.events.some((e) => e.type === 'attention.resolved'));
          const copies = w.events.filter((e) => e.type === 'control.attention.respond');
          expect(copies, `relay ${i}`).toHaveLength(1);
          expect(copies[0].capture).toBe('redacted');
          expect(copies[0].data.answer.text).toContain('[REDACTED:secret]');
          const wire = w.msgs.map((m) => m.raw ?? '').join('\n');
          expect(wire, `relay ${i}`).not.toContain(SECRET);
          expect(wire, `relay ${i}`).not.toContain(GH);
        }
      } finally {
        for (const w of watchers) w.close();
      }
    },
    60_000,
  );
});
