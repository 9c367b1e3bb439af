// The programs some test groups need that `npm ci` does not install:
// Debian's chromium (test/browser: the web inbox in a real browser) and
// nats-server (test/fleet: relays on NATS JetStream), systemd's
// systemd-analyze (test/tools/service/systemd*: the user unit verified). Without one, its group
// skips (CI sets HOOKMAP_REQUIRE_BROWSER / HOOKMAP_REQUIRE_NATS, so there a
// missing program fails instead), and the skipped-groups reporter
// (test/helpers/skip-reporter.ts) ends `npm test` with one line naming what
// was skipped and the command that installs it. Light on purpose: the
// reporter loads it in vitest's main process.
import { existsSync } from 'node:fs';

export interface OptionalTool {
  /** The test folder whose tests need it. */
  dir: string;
  /** What those tests drive, in words. */
  what: string;
  /** The Debian package that installs it. */
  apt: string;
  /** The paths looked at (an environment variable naming one: only that one). */
  candidates: string[];
  /** The variable CI sets so a missing program fails instead of skipping. */
  require: string;
}

export const CHROMIUM_TOOL: OptionalTool = {
  dir: 'test/browser/',
  what: 'the web inbox in Chromium',
  apt: 'chromium',
  candidates: [process.env.HOOKMAP_CHROMIUM ?? '/usr/bin/chromium'],
  require: 'HOOKMAP_REQUIRE_BROWSER',
};

export const NATS_TOOL: OptionalTool = {
  dir: 'test/fleet/',
  what: 'the fleet on NATS JetStream',
  apt: 'nats-server',
  candidates: process.env.NATS_SERVER ? [process.env.NATS_SERVER] : ['/usr/sbin/nats-server', '/usr/bin/nats-server', '/usr/local/bin/nats-server'],
  require: 'HOOKMAP_REQUIRE_NATS',
};

export const SYSTEMD_TOOL: OptionalTool = {
  dir: 'test/tools/service/systemd',
  what: "the service unit through systemd's own verifier",
  apt: 'systemd',
  candidates: ['/usr/bin/systemd-analyze', '/bin/systemd-analyze'],
  require: 'HOOKMAP_REQUIRE_SYSTEMD',
};

export const OPTIONAL_TOOLS = [CHROMIUM_TOOL, NATS_TOOL, SYSTEMD_TOOL];

/** The program's path, or undefined when none of the candidates exists. */
export const found = (t: OptionalTool): string | undefined => t.candidates.find((p) => existsSync(p));

/** Why the tool's tests skip ('' = they run: the program exists, or CI requires it and a missing one fails). */
export function skipReason(t: OptionalTool): string {
  if (found(t) || process.env[t.require]) return '';
  return `no ${t.apt} at ${t.candidates.join(' or ')}`;
}
