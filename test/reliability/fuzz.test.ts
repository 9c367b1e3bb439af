// Hostile bodies at every agent's hook endpoint through `hookmap up`, from
// a fixed seed (reproducible): garbage (random bytes, broken and
// non-object JSON, deep nesting, huge strings) and real fixture payloads
// mutated (fields dropped, retyped, emptied, lone surrogates, path tricks,
// hostile hook names in the path). Nothing crashes, every answer is a 200
// within the request, garbage gets exactly the agent's neutral bytes, and
// every event any daemon logged passes the AEP envelope and payload schemas.
import http from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invalidity } from '../../engine/runtime/daemon/lifecycle.ts';
import { startUp, type Up } from '../../engine/app/up.ts';
import { listVendors } from '../../engine/core/descriptor/registry.ts';
import { fixtureFiles } from '../../engine/tools/cases/format.ts';
import { readLogs, tempDir } from '../runtime/daemon/helpers.ts';

const SEED = 0x5eed11;
const PER_AGENT = 150;
const agents = listVendors();
let up: Up;
let tmp: { dir: string; done: () => void };
const crashes: unknown[] = [];
const onCrash = (e: unknown) => crashes.push(e);

beforeAll(async () => {
  process.on('uncaughtException', onCrash);
  process.on('unhandledRejection', onCrash);
  tmp = tempDir('hookmap-fuzz-');
  // token-less on purpose (explicit): the fuzz targets the hook endpoints; holds fail open at once
  up = await startUp({ port: 0, noAuth: true, logDir: join(tmp.dir, 'logs'), agents: agents.map((descriptor) => ({ descriptor, attentionTimeoutMs: 200 })) });
}, 60_000);

afterAll(async () => {
  process.off('uncaughtException', onCrash);
  process.off('unhandledRejection', onCrash);
  await up?.close();
  tmp?.done();
});

/** mulberry32: a small seeded PRNG, so a failing run is replayable from SEED. */
function rng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { next, int: (n: number) => Math.floor(next() * n), pick: <T>(xs: T[]): T => xs[Math.floor(next() * xs.length)] };
}
type Rng = ReturnType<typeof rng>;

const HOSTILE: unknown[] = [
  '',
  ' ',
  null,
  0,
  -1,
  1e308,
  1.5,
  true,
  false,
  [],
  {},
  [[[]]],
  { '': '' },
  '\ud800',
  'a\udfffb',
  '\u0000',
  '../../etc/passwd',
  '%ZZ',
  'x'.repeat(70_000),
  '\u202e\u2066',
  '😀'.repeat(500),
  { __proto__: { polluted: true } },
  { constructor: { prototype: { x: 1 } } },
  'toString',
  '$eval',
  '{{7*7}}',
  "'; DROP TABLE x;--",
];

function hostile(r: Rng): unknown {
  return r.next() < 0.85 ? r.pick(HOSTILE) : Array.from({ length: r.int(5) }, () => r.pick(HOSTILE));
}

function mutate(value: unknown, r: Rng, depth = 0): unknown {
  if (Array.isArray(value)) return value.map((v) => (r.next() < 0.2 ? hostile(r) : mutate(v, r, depth + 1)));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const roll = r.next();
      if (roll < 0.12) continue; // dropped
      if (roll < 0.35) out[k] = hostile(r);
      else out[k] = depth < 6 ? mutate(v, r, depth + 1) : v;
    }
    if (r.next() < 0.1) out[r.pick(['\ud800', '', 'hook_event_name', '__proto__', 'x'.repeat(300)])] = hostile(r);
    return out;
  }
  return r.next() < 0.1 ? hostile(r) : value;
}

function garbage(r: Rng): string | Buffer {
  switch (r.int(8)) {
    case 0:
      return Buffer.from(Array.from({ length: 1 + r.int(400) }, () => r.int(256)));
    case 1:
      return '{"a":';
    case 2:
      return JSON.stringify(r.pick([1, 'str', null, true, [1, 2], Number.POSITIVE_INFINITY]));
    case 3:
      return '['.repeat(20_000) + ']'.repeat(20_000);
    case 4:
      return `{"k":"${'\\ud800'.repeat(50)}"`;
    case 5:
      return '';
    case 6:
      return '\ufeff{}}';
    default:
      return `{${'"x":1,'.repeat(r.int(50))}`;
  }
}

/** POST with the path sent as is (fetch would normalize `..` away before it reached the daemon). */
function rawPost(path: string, body: string | Buffer): Promise<{ status: number; text: string; error?: string }> {
  const u = new URL(up.url);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: u.hostname, port: u.port, path, method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode!, text: Buffer.concat(chunks).toString('utf8'), error: res.headers['x-hookmap-error'] as string | undefined }),
      );
    });
    req.on('error', reject);
    req.end(body);
  });
}

function seeds(agent: string): { hook?: string; input: Record<string, unknown> }[] {
  const out: { hook?: string; input: Record<string, unknown> }[] = [];
  for (const f of fixtureFiles(agent)) {
    if (f.kind !== 'events') continue;
    for (const c of f.cases)
      for (const s of c.steps ?? []) if (s.input && typeof s.input === 'object' && !Array.isArray(s.input)) out.push({ hook: s.hook, input: s.input });
  }
  return out;
}

const HOOK_PATHS = ['', '/..', '/.', `/${'H'.repeat(300)}`, '/a/b', '/%ZZ', '/%00', '/%F0%9F%98%80'];

describe(`fuzz every agent's hook endpoint (seed ${SEED.toString(16)}, ${PER_AGENT} bodies each)`, () => {
  it.each(agents)(
    '%s: no crash, 200 always, neutral bytes for garbage, only valid events logged',
    async (agent) => {
      const r = rng(SEED ^ agent.split('').reduce((h, c) => Math.imul(h ^ c.charCodeAt(0), 16777619), 2166136261));
      const base = seeds(agent);
      const daemon = up.daemons.get(agent)!;
      expect(daemon, `${agent} started`).toBeDefined();
      const wrong: string[] = [];
      for (let i = 0; i < PER_AGENT; i++) {
        const isGarbage = base.length === 0 || r.next() < 0.3;
        const seed = base.length ? r.pick(base) : undefined;
        const hookPath = r.next() < 0.1 ? r.pick(HOOK_PATHS) : seed?.hook ? `/${encodeURIComponent(seed.hook)}` : '';
        const body = isGarbage ? garbage(r) : JSON.stringify(mutate(seed!.input, r));
        const res = await rawPost(`/hooks/${agent}${hookPath}`, body);
        const text = res.text;
        if (res.status !== 200) wrong.push(`#${i} ${hookPath} -> HTTP ${res.status}`);
        if (isGarbage) {
          const named = hookPath && !HOOK_PATHS.includes(hookPath) ? decodeURIComponent(hookPath.slice(1)) : undefined;
          const neutral = daemon.neutralReply(named).body;
          if (text !== neutral) wrong.push(`#${i} garbage ${hookPath} -> ${JSON.stringify(text.slice(0, 80))}, not the neutral ${JSON.stringify(neutral)}`);
          if (!res.error) wrong.push(`#${i} garbage answered without an error code`);
        }
      }
      expect(wrong).toEqual([]);
      expect(crashes).toEqual([]);
      const logged = readLogs(join(tmp.dir, 'logs', agent));
      expect(logged.length).toBeGreaterThan(0);
      const invalid = logged.map((e) => [e.type, invalidity(e)]).filter(([, why]) => why !== undefined);
      expect(invalid).toEqual([]);
    },
    120_000,
  );

  it('hookmap up still answers after the whole run', async () => {
    const h = await (await fetch(`${up.url}/healthz`)).json();
    expect(h.ok).toBe(true);
    expect(crashes).toEqual([]);
  });
});
