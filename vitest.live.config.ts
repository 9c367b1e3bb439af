// The live suite (npm run test:live -> test/live/run.ts): real agent CLIs
// from ~/.cache/hookmap-live against a scripted model on loopback. Never
// part of `npm test` (whose include is test/**/*.test.ts).
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/live/**/*.live.ts'],
    testTimeout: 180_000,
    hookTimeout: 90_000,
    pool: 'forks',
    fileParallelism: false,
    // Real agent binaries on a shared 2-core machine: a scenario that fails
    // once is played again once; failing twice fails the suite.
    retry: 1,
  },
});
