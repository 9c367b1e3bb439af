// NATS authentication and TLS on the fleet backplane
// (engine/runtime/relay/backplane/connect.ts, config.ts): real nats-server processes
// started with config files (authorization by user/password, by token; TLS
// with a CA and client certificates generated here with openssl). Right
// credentials connect; wrong or missing ones are refused with a clear error
// naming the server and the option (exit 1, no stack); --backplane-optional
// with wrong credentials serves local clients and says why; no secret in the
// relay's log, /healthz, `hookmap doctor` or its argv.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BackplaneError } from '../../engine/runtime/relay/backplane/index.ts';
import { createRelay, openBackplane, resolveLimits } from '../../engine/runtime/relay/index.ts';
import { authModeOf, maskNatsUrl } from '../../engine/runtime/relay/backplane/connect.ts';
import { backplaneFromDoc, backplaneFromFlags } from '../../engine/runtime/relay/backplane/config.ts';
import { runDoctor } from '../../engine/tools/doctor/index.ts';
import { renderReport } from '../../engine/tools/doctor/render.ts';
import { testPki, type TestPki } from '../helpers/certs.ts';
import { ev, until, WsClient } from '../runtime/relay/helpers.ts';
import { NATS_MISSING, NatsServer } from './nats.ts';
import { resolveTarget } from '../../engine/cli/config.ts';

const TOKEN = 'fleet-auth-relay-token';
const PASS = 'n4ts-pa55-Secret';
const NTOKEN = 'n4ts-t0ken-Secret';
const BIN = join(import.meta.dirname, '../../bin/hookmap.mjs');
const stops: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  while (stops.length) await stops.pop()!();
});
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'hookmap-fleet-auth-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function secret(name: string, text: string): string {
  const f = join(dir, name);
  writeFileSync(f, `${text}\n`, { mode: 0o600 });
  return f;
}

const limits = resolveLimits({});
const noSecret = (text: string) => {
  expect(text).not.toContain(PASS);
  expect(text).not.toContain(NTOKEN);
};

/** `hookmap relay` as a user runs it: its URL once it listens, or its exit code; all it wrote to stderr. */
async function cliRelay(args: string[], env: Record<string, string> = {}): Promise<{ proc: ChildProcess; url?: string; code?: number; err: () => string }> {
  const home = mkdtempSync(join(tmpdir(), 'hookmap-fleet-auth-home-'));
  const proc = spawn(process.execPath, [BIN, 'relay', '--port', '0', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, HOOKMAP_HOME: home, HOOKMAP_TOKEN: TOKEN, HOOKMAP_TOKEN_FILE: '', ...env },
  });
  stops.push(() => {
    if (proc.exitCode === null) proc.kill('SIGKILL');
    rmSync(home, { recursive: true, force: true });
  });
  let err = '';
  proc.stderr!.on('data', (d) => (err += d));
  return new Promise((resolve) => {
    let out = '';
    proc.stdout!.on('data', (d) => {
      out += d;
      const m = /^(http:\/\/\S+)\n/m.exec(out);
      if (m) resolve({ proc, url: m[1], err: () => err });
    });
    proc.once('exit', (code) => resolve({ proc, code: code ?? -1, err: () => err }));
  });
}

describe('backplane auth options', () => {
  it('masks credentials in URLs and names the auth mode, never the secret', () => {
    expect(maskNatsUrl(`nats://alice:${PASS}@h1:4222, tls://${NTOKEN}@h2:4222,nats://h3:4222`)).toBe(
      'nats://alice:***@h1:4222, tls://***@h2:4222,nats://h3:4222',
    );
    expect(authModeOf(`nats://alice:${PASS}@h:1`)).toEqual({ auth: 'user', tls: false });
    expect(authModeOf(`tls://${NTOKEN}@h:1`)).toEqual({ auth: 'token', tls: true });
    expect(authModeOf('nats://h:1', { creds: '/x.creds', tlsCa: '/ca.pem' })).toEqual({ auth: 'creds', tls: true });
    expect(authModeOf('nats://h:1')).toEqual({ auth: 'none', tls: false });
  });

  it('reads passwords and tokens from 0600 files or the environment, and says what is missing', () => {
    const pf = secret('flags-pass', PASS);
    expect(backplaneFromFlags({ backplane: 'nats://h:1', 'backplane-user': 'alice', 'backplane-password-file': pf })?.auth).toMatchObject({
      user: 'alice',
      pass: PASS,
    });
    expect(backplaneFromFlags({ backplane: 'nats://h:1', 'backplane-user': 'alice' }, { password: PASS })?.auth).toMatchObject({
      pass: PASS,
      source: 'HOOKMAP_BACKPLANE_PASSWORD',
    });
    expect(backplaneFromFlags({ backplane: 'nats://h:1' }, { token: NTOKEN })?.auth).toMatchObject({ token: NTOKEN });
    expect(() => backplaneFromFlags({ backplane: 'nats://h:1', 'backplane-user': 'alice' })).toThrow(
      /--backplane: a NATS user needs a password: --backplane-password-file/,
    );
    expect(() => backplaneFromFlags({ 'backplane-user': 'alice' })).toThrow(/--backplane-user needs --backplane/);
    expect(() => backplaneFromFlags({ backplane: 'nats://h:1', 'backplane-tls-cert': '/c.pem' })).toThrow(/both the client certificate and its key/);
    const open = join(dir, 'open-pass');
    writeFileSync(open, PASS, { mode: 0o644 });
    expect(() => backplaneFromFlags({ backplane: 'nats://h:1', 'backplane-user': 'alice', 'backplane-password-file': open })).toThrow(
      /--backplane-password-file: NATS password file .* is readable by others/,
    );
    // the config file: paths relative to it, *_env names a variable, unknown keys named
    const tf = secret('doc-token', NTOKEN);
    expect(backplaneFromDoc({ url: 'tls://h:1', token_file: 'doc-token', tls_ca: 'ca.pem' }, 'backplane', dir).auth).toMatchObject({
      token: NTOKEN,
      tlsCa: join(dir, 'ca.pem'),
    });
    expect(tf).toBe(join(dir, 'doc-token'));
    expect(backplaneFromDoc({ url: 'nats://h:1', user: 'alice', password_env: 'NP' }, 'backplane', dir, { NP: PASS }).auth).toMatchObject({
      user: 'alice',
      pass: PASS,
    });
    expect(() => backplaneFromDoc({ url: 'nats://h:1', user: 'alice', password_env: 'NP' }, 'backplane', dir, {})).toThrow(
      /password_env names NP, which is not set/,
    );
    expect(() => backplaneFromDoc({ url: 'nats://h:1', password: PASS }, 'backplane', dir)).toThrow(/backplane: Unrecognized key: "password"/);
  });
});

describe.skipIf(!!NATS_MISSING)('backplane with NATS authorization (nats-server -c)', () => {
  let users: NatsServer;
  let tokens: NatsServer;
  beforeAll(async () => {
    users = await NatsServer.start({ conf: `authorization { user: alice, password: "${PASS}" }\n` });
    tokens = await NatsServer.start({ conf: `authorization { token: "${NTOKEN}" }\n` });
  });
  afterAll(async () => {
    await users?.stop();
    await tokens?.stop();
  });

  it('user/password: the right one connects (auth named, secret nowhere); wrong or missing ones are refused with the option to check', async () => {
    const said: string[] = [];
    const store = await openBackplane(
      { url: users.url, stream: 'AUTHU', prefix: 'authu', token: TOKEN, auth: { user: 'alice', pass: PASS, source: 'test' } },
      limits,
      (l) => said.push(l),
    );
    stops.push(() => store?.close());
    expect(said.join('\n')).toMatch(/NATS auth user/);
    const h = (await store!.health()) as any;
    expect(h).toMatchObject({ connected: true, auth: 'user', tls: false });
    // user:pass in the URL works too; every line and /healthz mask it
    const inUrl = users.url.replace('nats://', `nats://alice:${PASS}@`);
    const said2: string[] = [];
    const s2 = await openBackplane({ url: inUrl, stream: 'AUTHU', prefix: 'authu', token: TOKEN }, limits, (l) => said2.push(l));
    stops.push(() => s2?.close());
    const h2 = (await s2!.health()) as any;
    expect(h2.url).toBe(users.url.replace('nats://', 'nats://alice:***@'));
    noSecret(JSON.stringify(h2) + said2.join('\n'));
    await expect(
      openBackplane({ url: users.url, stream: 'AUTHU', auth: { user: 'alice', pass: 'wrong', source: '--backplane-password-file /p' } }, limits, () => {}),
    ).rejects.toThrow(new RegExp(`backplane ${users.url}: authorization violation: .*check the user and password \\(--backplane-password-file /p\\)`));
    await expect(openBackplane({ url: users.url, stream: 'AUTHU' }, limits, () => {})).rejects.toThrow(
      /authorization violation: .*\(auth none\); the server requires credentials: give --backplane-creds/,
    );
    const wrongUrl = users.url.replace('nats://', `nats://alice:${PASS}x@`);
    const err = await openBackplane({ url: wrongUrl, stream: 'AUTHU' }, limits, () => {}).catch((e) => e);
    expect(err).toBeInstanceOf(BackplaneError);
    expect(err.message).toMatch(/nats:\/\/alice:\*\*\*@127.0.0.1:\d+: authorization violation/);
    noSecret(err.message);
  });

  it(
    'credentials revoked on the server while the relay runs: /healthz and the log name the ' +
      'authorization violation and what to check; restored, the relay reconnects and the error ' +
      'clears',
    async () => {
      const server = await NatsServer.start({ conf: `authorization { user: alice, password: "${PASS}" }\n` });
      stops.push(() => server.stop());
      const said: string[] = [];
      const store = await openBackplane(
        { url: server.url, stream: 'AUTHREV', prefix: 'authrev', token: TOKEN, auth: { user: 'alice', pass: PASS, source: '--backplane-password-file /p' } },
        limits,
        (l) => said.push(l),
      );
      stops.push(() => store?.close());
      expect(await store!.health()).toMatchObject({ connected: true, auth: 'user' });
      await server.reload(`authorization { user: alice, password: "${PASS}-rotated" }\n`);
      await until(async () => /authorization violation/.test(((await store!.health()) as any).error ?? ''), 'the refusal in the health');
      const h = (await store!.health()) as any;
      expect(h.connected).toBe(false);
      expect(h.error).toMatch(
        new RegExp(
          `backplane ${server.url}: authorization violation: the NATS server refused this relay's ` +
            `credentials \\(auth user\\); check the user and password \\(--backplane-password-file ` +
            `/p\\)`,
        ),
      );
      // said once, however often the reconnects are refused
      await new Promise((r) => setTimeout(r, 1000));
      expect(said.filter((l) => /authorization violation/.test(l))).toHaveLength(1);
      expect(said.filter((l) => /disconnected/.test(l))).toHaveLength(1);
      noSecret(JSON.stringify(h) + said.join('\n'));
      await server.reload(`authorization { user: alice, password: "${PASS}" }\n`);
      await until(async () => ((await store!.health()) as any).connected === true, 'reconnected with the restored credentials');
      expect(((await store!.health()) as any).error).toBeUndefined();
      expect(said.some((l) => /reconnected/.test(l))).toBe(true);
    },
    30_000,
  );

  it('hookmap relay: wrong password exits 1 with one clear line; right one serves; doctor names the auth mode; no secret in argv, logs or doctor', async () => {
    const bad = await cliRelay(['--backplane', users.url, '--backplane-user', 'alice', '--backplane-password-file', secret('bad-pass', 'nope')]);
    expect(bad.code).toBe(1);
    expect(bad.err()).toMatch(/^hookmap relay: backplane nats:\/\/127.0.0.1:\d+: authorization violation: .*--backplane-password-file .*bad-pass/m);
    expect(bad.err()).not.toMatch(/\n\s+at /);
    const good = await cliRelay(['--backplane', users.url, '--backplane-stream', 'AUTHCLI', '--backplane-prefix', 'authcli', '--backplane-user', 'alice'], {
      HOOKMAP_BACKPLANE_PASSWORD: PASS,
    });
    expect(good.url).toBeDefined();
    expect(good.err()).toMatch(/backplane: nats:\/\/127.0.0.1:\d+ \(NATS auth user\) stream AUTHCLI/);
    const argv = readFileSync(`/proc/${good.proc.pid}/cmdline`, 'utf8');
    expect(argv).toContain('--backplane-user');
    noSecret(argv);
    const home = mkdtempSync(join(tmpdir(), 'hookmap-fleet-auth-doc-'));
    stops.push(() => rmSync(home, { recursive: true, force: true }));
    const report = await runDoctor({ target: resolveTarget({ HOOKMAP_HOME: home }), dir: home, url: good.url!, agents: [], token: TOKEN });
    const text = renderReport(report);
    expect(text).toMatch(/NATS auth user, no TLS/);
    noSecret(text + good.err() + JSON.stringify(await (await fetch(`${good.url}/healthz`, { headers: { authorization: `Bearer ${TOKEN}` } })).json()));
  });

  it('--backplane-optional with wrong credentials serves local clients and says why', async () => {
    const r = await cliRelay(['--backplane', tokens.url, '--backplane-optional', '--backplane-token-file', secret('bad-token', 'not-it')]);
    expect(r.url).toBeDefined();
    expect(r.err()).toMatch(
      /authorization violation: .*check the token \(--backplane-token-file .*bad-token\); backplane optional: serving local clients only/,
    );
    const sub = await WsClient.hello(r.url!, { role: 'consumer' }, { authorization: `Bearer ${TOKEN}` });
    stops.push(() => sub.close());
    sub.send({ type: 'subscribe', id: 's', filter: {} });
    await sub.next((m) => m.type === 'subscribed');
    const em = await WsClient.hello(r.url!, { role: 'emitter', identity: { agent: 'fleet' } }, { authorization: `Bearer ${TOKEN}` });
    stops.push(() => em.close());
    em.send(ev('opt-auth', 1));
    await until(() => sub.events().length === 1, 'local delivery');
  });

  it('token: from a file or HOOKMAP_BACKPLANE_TOKEN connects; a wrong one is refused', async () => {
    const ok = await cliRelay([
      '--backplane',
      tokens.url,
      '--backplane-stream',
      'AUTHT',
      '--backplane-prefix',
      'autht',
      '--backplane-token-file',
      secret('good-token', NTOKEN),
    ]);
    expect(ok.url).toBeDefined();
    expect(ok.err()).toMatch(/NATS auth token/);
    const env = await cliRelay(['--backplane', tokens.url, '--backplane-stream', 'AUTHT', '--backplane-prefix', 'autht'], { HOOKMAP_BACKPLANE_TOKEN: NTOKEN });
    expect(env.url).toBeDefined();
    noSecret(ok.err() + env.err());
    const bad = await cliRelay(['--backplane', tokens.url], { HOOKMAP_BACKPLANE_TOKEN: 'nope' });
    expect(bad.code).toBe(1);
    expect(bad.err()).toMatch(/authorization violation: .*check the token \(HOOKMAP_BACKPLANE_TOKEN\)/);
  });
});

describe.skipIf(!!NATS_MISSING)('backplane over TLS (nats-server with tls { verify: true })', () => {
  let nats: NatsServer;
  let pki: TestPki;
  let other: TestPki;
  beforeAll(async () => {
    pki = testPki(dir);
    other = testPki(dir, 'other-');
    nats = await NatsServer.start({
      conf: `tls { cert_file: "${pki.server.cert}", key_file: "${pki.server.key}", ca_file: "${pki.ca}", verify: true, timeout: 2 }\n`,
    });
  });
  afterAll(async () => {
    await nats?.stop();
  });
  const url = () => nats.url.replace('nats://', 'tls://');

  it('mutual TLS connects; a wrong CA, no client certificate or a missing file is a clear error naming the file', async () => {
    const said: string[] = [];
    const store = await openBackplane(
      { url: url(), stream: 'TLS1', token: TOKEN, auth: { tlsCa: pki.ca, tlsCert: pki.client.cert, tlsKey: pki.client.key } },
      limits,
      (l) => said.push(l),
    );
    stops.push(() => store?.close());
    expect(said.join('\n')).toMatch(/\(NATS auth none, TLS\)/);
    expect(await store!.health()).toMatchObject({ connected: true, tls: true });
    // the same through a relay: events flow
    const relay = createRelay({ host: '127.0.0.1', port: 0, token: TOKEN, store });
    stops.push(() => relay.close());
    await expect(
      openBackplane({ url: url(), stream: 'TLS1', auth: { tlsCa: other.ca, tlsCert: pki.client.cert, tlsKey: pki.client.key } }, limits, () => {}),
    ).rejects.toThrow(
      new RegExp(
        `TLS failed .*check that the CA file ${other.ca.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} \\(--backplane-tls-ca\\) signed the server's certificate`,
      ),
    );
    await expect(openBackplane({ url: url(), stream: 'TLS1', connectTimeoutMs: 3000, auth: { tlsCa: pki.ca } }, limits, () => {})).rejects.toThrow(
      /--backplane-tls-cert and --backplane-tls-key/,
    );
    await expect(openBackplane({ url: url(), stream: 'TLS1', auth: { tlsCa: join(dir, 'nope.pem') } }, limits, () => {})).rejects.toThrow(
      /cannot read the TLS ca file .*nope.pem \(--backplane-tls-ca\): ENOENT/,
    );
  });

  it('hookmap relay --backplane-tls-*: serves, and doctor says TLS', async () => {
    const r = await cliRelay([
      '--backplane',
      url(),
      '--backplane-stream',
      'TLS2',
      '--backplane-prefix',
      'tls2',
      '--backplane-tls-ca',
      pki.ca,
      '--backplane-tls-cert',
      pki.client.cert,
      '--backplane-tls-key',
      pki.client.key,
    ]);
    expect(r.url, r.err()).toBeDefined();
    const home = mkdtempSync(join(tmpdir(), 'hookmap-fleet-auth-doc-'));
    stops.push(() => rmSync(home, { recursive: true, force: true }));
    const text = renderReport(await runDoctor({ target: resolveTarget({ HOOKMAP_HOME: home }), dir: home, url: r.url!, agents: [], token: TOKEN }));
    expect(text).toMatch(/NATS auth none, TLS/);
    const plain = await cliRelay(['--backplane', nats.url]);
    expect(plain.code).toBe(1);
    expect(plain.err()).toMatch(/TLS failed .*no --backplane-tls-ca was given, so the system CAs were asked/);
  });
});
