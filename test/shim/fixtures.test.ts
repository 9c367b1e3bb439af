// Script I/O fixtures (`fixtures/<agent>/shim.yaml`, kind: shim): every case
// runs the REAL generated sh shim or the Node shim as a process, against a
// fake daemon on loopback in the case's mood, and checks stdout byte for
// byte and the exit code. Hung cases shorten the bound through
// HOOKMAP_SHIM_TIMEOUT_MS so the suite stays quick (the benchmark measures
// the generated bounds).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listVendors, loadVendor } from '../../engine/descriptor/registry.ts';
import { fixtureFiles } from '../../engine/fixtures/format.ts';
import { writeShims } from '../../engine/shim/generate.ts';
import { BIN, fakeDaemon, runProcess, type Mood, type Reply } from './helpers.ts';

interface ShimCase { name: string; shim: 'sh' | 'node'; hook?: string; stdin: string; daemon: Mood; reply?: Reply; request?: { path?: string }; stdout: string; exit: number }

const home = mkdtempSync(join(tmpdir(), 'hookmap-shim-fx-'));
afterAll(() => rmSync(home, { recursive: true, force: true }));

for (const agent of listVendors()) {
  const files = fixtureFiles(agent).filter((f) => f.kind === 'shim');
  if (!files.length) continue;
  describe(`fixtures/${agent} shim`, () => {
    let shPath = '';
    beforeAll(() => {
      shPath = writeShims(loadVendor(agent), { ...process.env, HOOKMAP_HOME: home }).sh;
    });
    for (const f of files) {
      for (const c of f.cases as ShimCase[]) {
        it(`${f.file} ${c.name}`, async () => {
          const daemon = await fakeDaemon(c.daemon, c.reply);
          try {
            const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: home, HOOKMAP_HOME: home, HOOKMAP_URL: daemon.url };
            if (c.daemon === 'hung') env.HOOKMAP_SHIM_TIMEOUT_MS = '400';
            const [cmd, args] = c.shim === 'sh' ? ['sh', [shPath, ...(c.hook ? [c.hook] : [])]] : [process.execPath, [BIN, 'hook', agent, ...(c.hook ? [c.hook] : [])]];
            const r = await runProcess(cmd, args, c.stdin, env);
            expect(r.stdout.toString('utf8')).toBe(c.stdout);
            expect(r.code).toBe(c.exit);
            if (c.daemon === 'up') {
              // the payload reached the daemon intact, as the request body
              expect(daemon.received.map((q) => q.body)).toEqual([c.stdin]);
              expect(daemon.received[0].contentType).toBe('application/json');
              if (c.request?.path) expect(daemon.received[0].path).toBe(c.request.path);
            }
          } finally {
            await daemon.close();
          }
        });
      }
    }
  });
}
