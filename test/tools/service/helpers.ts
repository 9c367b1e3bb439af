// Shared by the service tests: a scratch HOME per case (its own $HOOKMAP_HOME
// and a fixed hook URL), removed after the file, and the unit or agent a
// dry run prints (between its first line and its closing "dry run:" line).
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

export function serviceScratch(prefix: string): {
  tmp: string;
  envFor: (name: string, extra?: Record<string, string>) => { home: string; env: NodeJS.ProcessEnv };
} {
  const tmp = mkdtempSync(join(tmpdir(), prefix));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));
  const envFor = (name: string, extra: Record<string, string> = {}) => {
    const home = join(tmp, name);
    mkdirSync(home, { recursive: true });
    return { home, env: { PATH: process.env.PATH, HOME: home, HOOKMAP_HOME: join(home, '.hookmap'), HOOKMAP_URL: 'http://127.0.0.1:18787', ...extra } };
  };
  return { tmp, envFor };
}

export const printed = (stdout: string) =>
  stdout
    .split('\n')
    .slice(
      1,
      stdout.split('\n').findIndex((l) => l.startsWith('dry run:')),
    )
    .join('\n') + '\n';
