// Script I/O fixtures (`fixtures/<agent>/shim.yaml`, kind: shim): every case
// runs the REAL generated sh shim or the Node shim as a process, against a
// fake daemon on loopback in the case's mood, and checks stdout byte for
// byte and the exit code. Hung cases shorten the bound through
// HOOKMAP_SHIM_TIMEOUT_MS so the suite stays quick (the benchmark measures
// the generated bounds).
//
// `shim: tee` cases run the real `hookmap tee` in front of an agent command:
// the editor's bytes in, exactly the agent's bytes out, its exit code.
//
// `shim: plugin` cases do the same for an in-process shim: the generated
// plugin/extension is imported as its host imports it, instantiated with the
// case's `input` (and `env` at registration), and the host hook `hook` is
// called with the documented `args`; `expect` is what the host sees: the
// hook's resolved `return` value (null: nothing), the `args` after the call
// (an applied reply mutates them), and the `host` requests the plugin made
// to the host's own server (`$host` in input/args is that server's URL).
//
// The runner is engine/tools/cases/run-shim.ts, the same one `hookmap check`
// runs (the plugin in a stand-in host process, engine/tools/cases/plugin-host.mjs).
import { afterAll, describe, expect, it } from 'vitest';
import { listVendors, loadVendor } from '../../../engine/core/descriptor/registry.ts';
import { fixtureFiles } from '../../../engine/tools/cases/format.ts';
import { ShimRun, type ShimCase } from '../../../engine/tools/cases/run-shim.ts';

for (const agent of listVendors()) {
  const files = fixtureFiles(agent).filter((f) => f.kind === 'shim');
  if (!files.length) continue;
  describe(`fixtures/${agent} shim`, () => {
    const run = new ShimRun(loadVendor(agent), { path: process.env.PATH });
    afterAll(() => run.close());
    for (const f of files) {
      for (const c of f.cases as ShimCase[]) {
        it(`${f.file} ${c.name}`, async () => expect(await run.run(c)).toEqual({ failures: [] }));
      }
    }
  });
}
