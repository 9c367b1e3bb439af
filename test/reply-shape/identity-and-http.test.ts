// Identity without a session id (issue 41): `$hash()` derives a short id from
// one field or several, and an id the descriptor marks sensitive leaves the
// engine as a digest or the folder's name with a digest, never the path.
// And the reply protocol: a reply's stream reaches the shim as
// x-hookmap-stream (stdout is never written, so existing replies are unchanged).
import Fastify from 'fastify';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Daemon } from '../../engine/runtime/daemon/daemon.ts';
import type { HookReply } from '../../engine/runtime/daemon/holds.ts';
import { registerHookRoutes } from '../../engine/runtime/daemon/http.ts';
import { loadDescriptorFile } from '../../engine/core/descriptor/compile.ts';
import { evaluate, tryCompile, type Expr } from '../../engine/core/expr/compile.ts';
import { shortHash } from '../../engine/core/expr/functions.ts';
import { Mapper } from '../../engine/core/map/mapper.ts';
import { sensitiveId } from '../../engine/core/map/sensitive.ts';
import { createHash } from 'node:crypto';

const compileExpr = (src: string) => tryCompile(src, []) as Expr;
const sha = (s: string) => createHash('sha256').update(s).digest('hex');

describe('$hash', () => {
  it('is the first 12 hex of the sha256 of a string; several fields hash as their JSON list', async () => {
    expect(shortHash('/home/a/app')).toBe(sha('/home/a/app').slice(0, 12));
    expect(await evaluate(compileExpr('$hash(cwd)'), { cwd: '/home/a/app' }, {})).toBe(sha('/home/a/app').slice(0, 12));
    const two = await evaluate(compileExpr('$hash([agent_id, cwd])'), { agent_id: 'agent-1', cwd: '/w' }, {});
    expect(two).toBe(sha('["agent-1","/w"]').slice(0, 12));
    expect(two).not.toBe(await evaluate(compileExpr('$hash([agent_id, cwd])'), { agent_id: 'agent-2', cwd: '/w' }, {}));
  });
  it('hostile input: nothing, null and empty stay undefined; numbers, objects and odd strings still hash', () => {
    expect([shortHash(undefined), shortHash(null), shortHash('')]).toEqual([undefined, undefined, undefined]);
    for (const v of [0, { a: 1 }, '\u0000', 'x'.repeat(100_000), '\ud800']) expect(shortHash(v)).toMatch(/^[0-9a-f]{12}$/);
  });
});

describe('a sensitive id', () => {
  it('digest: 12 hex; folder: the last segment and 8 hex; never the path', () => {
    const p = '/home/someone/projects/app';
    expect(sensitiveId(p, 'digest')).toBe(sha(p).slice(0, 12));
    expect(sensitiveId(p, 'folder')).toBe(`app-${sha(p).slice(0, 8)}`);
    expect(sensitiveId('/home/other/app', 'folder')).not.toBe(sensitiveId(p, 'folder'));
    expect(sensitiveId('C:\\Users\\me\\proj\\', 'folder')).toMatch(/^proj-[0-9a-f]{8}$/);
    expect(sensitiveId('/', 'folder')).toBe(sha('/').slice(0, 12));
    expect(sensitiveId('y'.repeat(500), 'folder')).toHaveLength(64 + 1 + 8);
    expect(sensitiveId(p, undefined)).toBe(p);
  });

  it('the mapper keys, logs and sends the folder form: no event carries the path as its session', async () => {
    const d = loadDescriptorFile(join(import.meta.dirname, 'exit-code-agent.yaml')).descriptor!;
    const m = new Mapper(d);
    const r = await m.map(undefined, { event: 'SessionStart', working_directory: '/home/someone/projects/app' });
    expect(r.session).toMatch(/^app-[0-9a-f]{8}$/);
    expect(JSON.stringify(r.events)).not.toContain('/home/someone');
    expect(await m.vendorSessionOf({ working_directory: '/home/someone/projects/app' }, 'Stop')).toBe(r.session);
  });
});

describe('x-hookmap-stream', () => {
  async function headers(reply: HookReply) {
    const app = Fastify();
    const stub = { handle: async () => reply, neutralReply: () => reply } as unknown as Daemon;
    registerHookRoutes(app, { daemons: new Map([['stub', stub]]) });
    const res = await app.inject({ method: 'POST', url: '/hooks/stub/Hook', payload: '{}', headers: { 'content-type': 'application/json' } });
    await app.close();
    return { exit: res.headers['x-hookmap-exit'], stream: res.headers['x-hookmap-stream'], body: res.body };
  }
  it('says stderr when the bytes go there, and nothing for stdout', async () => {
    expect(await headers({ body: 'no', exit: 2, stream: 'stderr', contentType: 'text/plain' })).toEqual({ exit: '2', stream: 'stderr', body: 'no' });
    expect(await headers({ body: '{}', exit: 0, contentType: 'application/json' })).toEqual({ exit: '0', stream: undefined, body: '{}' });
  });
});
