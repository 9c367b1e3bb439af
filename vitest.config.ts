import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // no test starts a real `hookmap up` by accident (a shim or plugin finding no daemon in a wired home);
    // test/runtime/shim/autostart.test.ts turns it on where it tests it
    env: { HOOKMAP_AUTOSTART: '0' },
    // the last line of a run names the test groups skipped for a missing program (chromium, nats-server) and how to install it
    reporters: ['default', './test/helpers/skip-reporter.ts'],
  },
});
