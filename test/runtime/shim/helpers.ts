// Test helpers: the stand-in daemon and the process runner the shim fixture
// cases use (engine/tools/cases/shim-daemon.ts, shared with `hookmap check`),
// and the path of the CLI.
import { fileURLToPath } from 'node:url';

export { fakeDaemon, runProcess, type FakeDaemon, type Mood, type Received, type Reply, type RunResult } from '../../../engine/tools/cases/shim-daemon.ts';

export const BIN = fileURLToPath(new URL('../../../bin/hookmap.mjs', import.meta.url));
