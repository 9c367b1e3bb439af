// The generated shims beyond the agent fixtures: exact neutral bytes through
// sh quoting, curl missing, path-carried hook names, the Node shim without a
// generated table, and the bounds the plan derives from a descriptor.
import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import { createServer as createHttpServer } from 'node:http';
import { chmodSync, existsSync, symlinkSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadVendor } from '../../../engine/core/descriptor/registry.ts';
import { writeShims } from '../../../engine/runtime/shim/generate.ts';
import { planInputFromSpec, shimPlan } from '../../../engine/runtime/shim/plan.mjs';
import { renderShShim, shQuote } from '../../../engine/runtime/shim/sh.ts';
import { BIN, fakeDaemon, runProcess } from './helpers.ts';
import { resolveTarget } from '../../../engine/cli/config.ts';
import { shimIoDir, sweepShimIo } from '../../../engine/core/io/shim-scratch.ts';

const tmp = mkdtempSync(join(tmpdir(), 'hookmap-shim-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const TRICKY = `{"a":"it's 100% \\\\ $HOME \`id\` "}\n\n`;

function spec(extra: Record<string, unknown> = {}) {
  return {
    vendor: 'demo',
    name: 'Demo agent',
    surface: { kind: 'command-hook', pin: 'test', hook_timeout_ms: 30000 },
    hooks: {
      Plain: {},
      Tricky: { reply: TRICKY },
      Held: { hold: { kind: 'permission', timeout_ms: 10000, decisions: {} } },
    },
    replies: { neutral: '{}' },
    ...extra,
  };
}

function writeSh(name: string, s: object): string {
  const path = join(tmp, `${name}.sh`);
  writeFileSync(path, renderShShim(shimPlan(planInputFromSpec(s), { hash: 'h' })));
  return path;
}

describe('sh shim', () => {
  it('quotes any bytes for sh', () => {
    expect(shQuote(`a'b`)).toBe(`'a'\\''b'`);
    expect(() => shQuote('a\0b')).toThrow();
  });

  it('prints per-hook neutral bytes exactly (quotes, %, backslashes, trailing newlines) when the daemon is down', async () => {
    const d = await fakeDaemon('down');
    const sh = writeSh('tricky', spec());
    const env = { PATH: process.env.PATH, HOOKMAP_URL: d.url };
    const tricky = await runProcess('sh', [sh, 'Tricky'], '{}', env);
    expect(tricky.stdout.toString()).toBe(TRICKY);
    expect(tricky.code).toBe(0);
    const plain = await runProcess('sh', [sh, 'Plain'], '{}', env);
    expect(plain.stdout.toString()).toBe('{}');
    const unknown = await runProcess('sh', [sh, 'NotInTheDescriptor'], '{}', env);
    expect(unknown.stdout.toString()).toBe('{}');
  });

  it('answers neutral bytes when neither curl nor bash is on PATH', async () => {
    const d = await fakeDaemon('up', { body: 'daemon', exit: 0 });
    // a PATH holding only what the script itself needs besides curl: nothing (sh builtins suffice)
    const empty = join(tmp, 'empty-bin');
    mkdirSync(empty, { recursive: true });
    const r = await runProcess('/bin/sh', [writeSh('nocurl', spec()), 'Plain'], '{"x":1}', { PATH: empty, HOOKMAP_URL: d.url });
    expect(r.stdout.toString()).toBe('{}');
    expect(r.code).toBe(0);
    expect(d.received).toEqual([]);
    await d.close();
  });

  it('posts to /hooks/<agent>/<hook> when the payload does not name its hook, and never passes the payload in argv (bash or curl)', async () => {
    // curl and bash wrappers that record their argv, then run the real ones
    const bin = join(tmp, 'spy-bin');
    mkdirSync(bin, { recursive: true });
    for (const tool of ['curl', 'bash']) {
      const real = (await runProcess('sh', ['-c', `command -v ${tool}`], '', { PATH: process.env.PATH })).stdout.toString().trim();
      writeFileSync(join(bin, tool), `#!/bin/sh\nprintf '%s\\n' "$@" > ${shQuote(join(tmp, `argv-${tool}.txt`))}\nexec ${shQuote(real)} "$@"\n`);
      chmodSync(join(bin, tool), 0o755);
    }
    const sh = writeSh('pathhook', spec());
    const secret = '{"prompt":"SECRET-PAYLOAD"}';
    for (const [tool, env] of [
      ['bash', {}],
      ['curl', { HOOKMAP_SHIM_TRANSPORT: 'curl' }],
    ] as const) {
      const d = await fakeDaemon('up', { body: 'ok', exit: 0 });
      const r = await runProcess('sh', [sh, 'Plain'], secret, { PATH: `${bin}:${process.env.PATH}`, HOOKMAP_URL: d.url, HOOKMAP_HOME: tmp, ...env });
      expect(r.stdout.toString()).toBe('ok');
      expect(d.received[0].path).toBe('/hooks/demo/Plain');
      expect(d.received[0].body).toBe(secret);
      const argv = readFileSync(join(tmp, `argv-${tool}.txt`), 'utf8');
      expect(argv).toContain(tool === 'bash' ? '/hooks/demo/Plain' : `${d.url}/hooks/demo/Plain`);
      expect(argv).not.toContain('SECRET');
      await d.close();
    }
  });

  // bash's /dev/tcp where bash and timeout are on PATH (here), curl anywhere else or when asked (engine/runtime/shim/sh-http.ts)
  for (const transport of ['bash', 'curl'] as const) {
    const viaEnv = transport === 'curl' ? { HOOKMAP_SHIM_TRANSPORT: 'curl' } : {};
    it(`${transport}: passes the payload and the daemon's body through byte for byte, on its stream with its exit, and leaves no reply behind`, async () => {
      const home = join(tmp, `scratch-${transport}`);
      mkdirSync(home);
      const sh = writeSh(`scratch-${transport}`, spec());
      const long = `${'x'.repeat(5000)}\n\n${'y'.repeat(3000)}`; // past the shell's read loop: cat prints it
      const payload = `{"prompt":"it's 100% \\\\ $HOME \\u00e9 caf\u00e9 ${'z'.repeat(70_000)}"}\n\n`;
      const cases: [string, string | undefined, number][] = [
        [TRICKY, 'stdout', 0],
        [long, 'stderr', 2],
        ['no newline at the end', undefined, 0],
        ['\n\n', 'stdout', 0],
        [`{"reason":"line one\\nline two"}\n`, 'stderr', 2],
      ];
      for (const [body, stream, exit] of cases) {
        const d = await fakeDaemon('up', { body, exit, ...(stream ? { stream } : {}) });
        const r = await runProcess('sh', [sh, 'Plain'], payload, { PATH: process.env.PATH, HOOKMAP_HOME: home, HOOKMAP_URL: d.url, ...viaEnv });
        expect(stream === 'stderr' ? r.stderr : r.stdout.toString()).toBe(body);
        expect(stream === 'stderr' ? r.stdout.toString() : r.stderr).toBe('');
        expect(r.code).toBe(exit);
        expect(d.received.map((q) => q.body)).toEqual([payload]);
        await d.close();
      }
      // the scratch is its owner's alone, the payload and every body emptied; `up` sweeps what ended
      const io = shimIoDir(home);
      expect(statSync(io).mode & 0o777).toBe(0o700);
      const names = readdirSync(io);
      expect(names.filter((n) => /^\d+$/.test(n)).length).toBe(cases.length);
      expect(names.some((n) => n.endsWith('.in'))).toBe(transport === 'bash');
      for (const n of names) {
        const st = statSync(join(io, n));
        expect(st.mode & 0o777).toBe(0o600);
        if (/\.(b|in)$/.test(n)) expect(st.size).toBe(0);
      }
      expect(sweepShimIo(home)).toBe(names.length);
      expect(readdirSync(io)).toEqual([]);
    });

    it(`${transport}: answers neutral within its bound when the daemon is stopped with a full backlog, hung, or answers 500`, async () => {
      // a listener that never accepts (its process stopped) whose backlog is full: a connect waits, unbounded but for the shim's bound
      const stopped = spawn(
        process.execPath,
        ['-e', "const s=require('net').createServer();s.listen({port:0,host:'127.0.0.1',backlog:1},()=>console.log(s.address().port))"],
        {
          stdio: ['ignore', 'pipe', 'ignore'],
        },
      );
      const port: string = await new Promise((r) => stopped.stdout!.once('data', (c) => r(String(c).trim())));
      stopped.kill('SIGSTOP');
      const fillers = Array.from({ length: 4 }, () => connect(Number(port), '127.0.0.1').on('error', () => {}));
      await new Promise((r) => setTimeout(r, 300));
      const hung = await fakeDaemon('hung');
      const broken = await fakeDaemon('error');
      const sh = writeSh(`bounds-${transport}`, spec());
      try {
        for (const url of [`http://127.0.0.1:${port}`, hung.url, broken.url]) {
          const t0 = Date.now();
          const env = { PATH: process.env.PATH, HOOKMAP_HOME: tmp, HOOKMAP_URL: url, HOOKMAP_SHIM_TIMEOUT_MS: '800', HOOKMAP_AUTOSTART: '0', ...viaEnv };
          const r = await runProcess('sh', [sh, 'Plain'], '{}', env);
          expect(r.stdout.toString()).toBe('{}');
          expect(r.code).toBe(0);
          expect(Date.now() - t0).toBeLessThan(5000);
        }
      } finally {
        for (const f of fillers) f.destroy();
        stopped.kill('SIGKILL');
        await hung.close();
        await broken.close();
      }
    });
  }

  it('bash: takes the body by its length when a proxy on the way keeps the connection open', async () => {
    const kept = createHttpServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { connection: 'keep-alive', 'x-hookmap-exit': '2', 'x-hookmap-stream': 'stderr', 'content-length': '9' });
        res.end('kept open');
      });
    });
    kept.keepAliveTimeout = 60_000;
    await new Promise<void>((r) => kept.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(kept.address() as { port: number }).port}`;
    const t0 = Date.now();
    const r = await runProcess('sh', [writeSh('kept', spec()), 'Plain'], '{}', {
      PATH: process.env.PATH,
      HOOKMAP_HOME: tmp,
      HOOKMAP_URL: url,
      HOOKMAP_SHIM_TIMEOUT_MS: '10000',
    });
    expect(r.stderr).toBe('kept open');
    expect(r.code).toBe(2);
    expect(Date.now() - t0).toBeLessThan(5000); // not the 10 s bound
    kept.closeAllConnections();
    await new Promise((r) => kept.close(r));
  });

  it('needs no curl where bash and timeout are at hand, and answers neutral where neither way is', async () => {
    const d = await fakeDaemon('up', { body: 'through bash', exit: 0 });
    const bin = join(tmp, 'no-curl-bin');
    mkdirSync(bin, { recursive: true });
    for (const tool of ['bash', 'timeout', 'cat', 'mkdir']) {
      const at = (await runProcess('sh', ['-c', `command -v ${tool}`], '', { PATH: process.env.PATH })).stdout.toString().trim();
      symlinkSync(at, join(bin, tool));
    }
    const r = await runProcess('/bin/sh', [writeSh('nocurl-bash', spec()), 'Plain'], '{"x":1}', { PATH: bin, HOOKMAP_URL: d.url, HOOKMAP_HOME: tmp });
    expect(r.stdout.toString()).toBe('through bash');
    const forced = await runProcess('/bin/sh', [writeSh('nocurl-forced', spec()), 'Plain'], '{"x":1}', {
      PATH: bin,
      HOOKMAP_URL: d.url,
      HOOKMAP_HOME: tmp,
      HOOKMAP_SHIM_TRANSPORT: 'curl',
    });
    expect(forced.stdout.toString()).toBe('{}'); // curl asked for and missing: neutral
    // another host, https, or a URL with more than a port after the host is curl's: with no curl, neutral
    const port = d.url.split(':').pop();
    for (const other of ['https://127.0.0.1:1', 'http://10.0.0.1:8787', `${d.url}/x:1`, `http://127.0.0.1:80/x:${port}`]) {
      const r = await runProcess('/bin/sh', [writeSh('nocurl-other', spec()), 'Plain'], '{}', { PATH: bin, HOOKMAP_URL: other, HOOKMAP_HOME: tmp });
      expect(r.stdout.toString()).toBe('{}');
    }
    expect(d.received.length).toBe(1);
    await d.close();
  });

  it('answers neutral when its home is gone (no key there either), and makes no home', async () => {
    const d = await fakeDaemon('up', { body: 'ok', exit: 0 });
    const home = join(tmp, 'gone-home');
    const r = await runProcess('sh', [writeSh('gonehome', spec()), 'Plain'], '{}', { PATH: process.env.PATH, HOOKMAP_HOME: home, HOOKMAP_URL: d.url });
    expect(r.stdout.toString()).toBe('{}');
    expect(r.code).toBe(0);
    expect(existsSync(home)).toBe(false);
    await d.close();
  });

  it('sweeps only the scratch of shims that ended (or a day old), and nothing not named like it', () => {
    const home = join(tmp, 'sweep-home');
    const io = shimIoDir(home);
    mkdirSync(io, { recursive: true });
    const put = (n: string) => writeFileSync(join(io, n), '');
    put(String(process.pid)); // running: kept
    put(`${process.pid}.b`);
    put('4194305'); // past any pid_max: ended
    put('4194305.b');
    put('4194305.in');
    put('notes.txt'); // not the shim's
    mkdirSync(join(io, '4194306')); // not a file
    expect(sweepShimIo(home)).toBe(3);
    expect(readdirSync(io).sort()).toEqual([String(process.pid), `${process.pid}.b`, '4194306', 'notes.txt'].sort());
    const old = new Date(Date.now() - 25 * 3600_000);
    utimesSync(join(io, String(process.pid)), old, old);
    expect(sweepShimIo(home)).toBe(1);
    expect(sweepShimIo(join(tmp, 'no-such-home'))).toBe(0);
  });

  it('refuses a hook name that is not a plain word when the path carries it', async () => {
    const d = await fakeDaemon('up', { body: 'ok', exit: 0 });
    const r = await runProcess('sh', [writeSh('badhook', spec()), '../x'], '{}', { PATH: process.env.PATH, HOOKMAP_URL: d.url });
    expect(r.stdout.toString()).toBe('{}');
    expect(d.received).toEqual([]);
    await d.close();
  });
});

describe('shim plan bounds', () => {
  it('keeps non-held hooks short, lets held hooks wait as long as the agent allows, and stays below the agent timeout', () => {
    const p = shimPlan(planInputFromSpec(spec()), { hash: 'h' });
    expect(p.hooks.Plain.bound_ms).toBe(2000);
    expect(p.hooks.Held.bound_ms).toBe(28000); // a held hook waits as long as the agent allows: 30000 - 2000 (the daemon's window ends first)
    const tight = shimPlan(planInputFromSpec({ ...spec(), surface: { kind: 'command-hook', pin: 't', hook_timeout_ms: 8000 } }), { hash: 'h' });
    expect(tight.hooks.Held.bound_ms).toBe(6000); // 8000 - min(2000, 8000/4)
    const tiny = shimPlan(planInputFromSpec({ ...spec(), surface: { kind: 'command-hook', pin: 't', hook_timeout_ms: 1000 } }), { hash: 'h' });
    expect(tiny.hooks.Plain.bound_ms).toBe(750);
    expect(tiny.connect_ms).toBeLessThanOrEqual(750);
  });

  it('honours a shorter registered timeout from setup.timeouts', () => {
    const p = shimPlan(planInputFromSpec(spec({ setup: { shape: 'hook-groups', timeout_unit: 's', timeouts: { Held: 5 } } })), { hash: 'h' });
    expect(p.hooks.Held.bound_ms).toBe(3750);
  });

  it('records whether the URL path must carry the hook', () => {
    expect(shimPlan(planInputFromSpec(spec()), { hash: 'h' }).path_hook).toBe(true);
    const named = shimPlan(planInputFromSpec({ ...spec(), surface: { kind: 'command-hook', pin: 't', hook_name: '=hook_event_name' } }), { hash: 'h' });
    expect(named.path_hook).toBe(false);
    expect(named.hook_field).toBe('hook_event_name');
  });
});

describe('node shim', () => {
  it('works from the descriptor when no table was generated, and ignores a table from an older descriptor', async () => {
    const home = join(tmp, 'no-table');
    const d = await fakeDaemon('down');
    const env = { PATH: process.env.PATH, HOME: home, HOOKMAP_HOME: home, HOOKMAP_URL: d.url };
    const r = await runProcess(process.execPath, [BIN, 'hook', 'gemini-cli', 'BeforeTool'], '{}', env);
    expect(r.stdout.toString()).toBe('{}');
    expect(r.code).toBe(0);
    // a stale table (wrong descriptor hash, different neutral bytes) is not trusted
    const { table } = writeShims(loadVendor('gemini-cli'), resolveTarget(env));
    const t = JSON.parse(readFileSync(table, 'utf8'));
    writeFileSync(table, JSON.stringify({ ...t, descriptor: 'old', neutral: 'STALE' }));
    const r2 = await runProcess(process.execPath, [BIN, 'hook', 'gemini-cli', 'BeforeTool'], '{}', env);
    expect(r2.stdout.toString()).toBe('{}');
  });

  it('prints nothing and exits 0 for an unknown agent or a path instead of an id', async () => {
    const env = { PATH: process.env.PATH, HOOKMAP_HOME: join(tmp, 'x'), HOOKMAP_URL: 'http://127.0.0.1:9', HOOKMAP_AUTOSTART: '0' };
    for (const agent of ['no-such-agent', '../vendors/codex']) {
      const r = await runProcess(process.execPath, [BIN, 'hook', agent], '{}', env);
      expect(r.stdout.toString()).toBe('');
      expect(r.code).toBe(0);
    }
  });
});
