// Issue 31 items 4 and 14, through the real CLI: `setup` remembers what it
// wired in $HOOKMAP_HOME, so `doctor` run from any other folder checks a
// project wired with --project --dir, names that scope and folder in its fix
// hints, and forgets it after --uninstall; doctor reports hooks that failed
// open while nothing answered.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, fakeDaemon } from '../../runtime/shim/helpers.ts';

const root = mkdtempSync(join(tmpdir(), 'hookmap-doctor-recorded-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;

function world() {
  const dir = join(root, String(n++));
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: join(dir, 'home'), HOOKMAP_HOME: join(dir, 'hm') };
  const project = join(dir, 'work', 'my project');
  const elsewhere = join(dir, 'elsewhere');
  for (const d of [env.HOME!, project, elsewhere]) mkdirSync(d, { recursive: true });
  const cli = (args: string[], cwd = elsewhere, extra: NodeJS.ProcessEnv = {}) => {
    const r = spawnSync(process.execPath, [BIN, ...args], { cwd, env: { ...env, ...extra }, encoding: 'utf8', timeout: 60_000 });
    return { code: r.status, out: `${r.stdout}${r.stderr}` };
  };
  return { env, project, elsewhere, cli };
}

describe('doctor checks every wiring setup recorded', () => {
  it('finds a project wired with --dir from another folder, and names its scope and folder in the fix', async () => {
    const w = world();
    const daemon = await fakeDaemon('up');
    try {
      const s = w.cli(['setup', 'claude-code', '--project', '--dir', w.project]);
      expect(s.code).toBe(0);
      const recorded = JSON.parse(readFileSync(join(w.env.HOOKMAP_HOME!, 'wirings.json'), 'utf8')).wirings;
      expect(recorded).toEqual([
        expect.objectContaining({ agent: 'claude-code', scope: 'project', dir: w.project, path: join(w.project, '.claude', 'settings.json') }),
      ]);
      const d = w.cli(['doctor', 'claude-code'], w.elsewhere, { HOOKMAP_URL: daemon.url });
      expect(d.out).toMatch(/project .*my project\/\.claude\/settings\.json: \d+\/\d+ hooks wired/);
      expect(d.out).not.toMatch(/not wired/);
      // a vanished shim: the fix is the project setup of that folder, not the user scope
      rmSync(join(w.env.HOOKMAP_HOME!, 'shims', 'claude-code.sh'));
      const broken = w.cli(['doctor', 'claude-code'], w.elsewhere, { HOOKMAP_URL: daemon.url });
      expect(broken.code).toBe(1);
      expect(broken.out).toContain(`hookmap setup claude-code --project --dir '${w.project}'`);
      expect(broken.out).not.toMatch(/fix: hookmap setup claude-code\s*$/m);
      // doctor run inside the project names no --dir
      const inside = w.cli(['doctor', 'claude-code'], w.project, { HOOKMAP_URL: daemon.url });
      expect(inside.out).toMatch(/fix: hookmap setup claude-code --project$/m);
      // uninstall forgets it
      expect(w.cli(['setup', 'claude-code', '--project', '--dir', w.project, '--uninstall']).code).toBe(0);
      expect(JSON.parse(readFileSync(join(w.env.HOOKMAP_HOME!, 'wirings.json'), 'utf8')).wirings).toEqual([]);
      expect(w.cli(['doctor', 'claude-code'], w.elsewhere, { HOOKMAP_URL: daemon.url }).out).toMatch(/not wired/);
    } finally {
      await daemon.close();
    }
  });

  it('says when a recorded config file is gone', () => {
    const w = world();
    expect(w.cli(['setup', 'claude-code', '--project', '--dir', w.project]).code).toBe(0);
    rmSync(join(w.project, '.claude'), { recursive: true });
    const d = w.cli(['doctor', 'claude-code']);
    expect(d.out).toMatch(/wired it on \d{4}-\d\d-\d\d; the file is gone now/);
  });
});

describe('a damaged wirings.json', () => {
  it('is read as far as it is sound: doctor and setup go on, and setup rewrites it whole', () => {
    const w = world();
    mkdirSync(w.env.HOOKMAP_HOME!, { recursive: true });
    const file = join(w.env.HOOKMAP_HOME!, 'wirings.json');
    for (const junk of [
      '{not json',
      '{"wirings": 7}',
      JSON.stringify({ wirings: [{ agent: 'claude-code', scope: 'root', path: '/etc/passwd', at: 'x' }, null, 5] }),
    ]) {
      writeFileSync(file, junk);
      const d = w.cli(['doctor', 'claude-code']);
      expect(d.out).toMatch(/not wired/);
      expect(d.out).not.toMatch(/passwd/);
    }
    expect(w.cli(['setup', 'claude-code', '--project', '--dir', w.project]).code).toBe(0);
    expect(JSON.parse(readFileSync(file, 'utf8')).wirings).toEqual([expect.objectContaining({ agent: 'claude-code', scope: 'project' })]);
  });
});

describe('doctor reports hooks that failed open', () => {
  it('warns with the count, the agents and the time span, and says what the last up start reported', () => {
    const w = world();
    mkdirSync(w.env.HOOKMAP_HOME!, { recursive: true });
    writeFileSync(
      join(w.env.HOOKMAP_HOME!, 'failed-open.log'),
      '2026-12-01T09:02:00Z\tclaude-code\tSessionStart\tdown\n2026-12-01T09:40:00Z\tclaude-code\tStop\tdown\n',
    );
    const d = w.cli(['doctor', 'claude-code']);
    expect(d.out).toMatch(
      /hooks that got no answer from hookmap: 2 hooks \(claude-code 2\) between 2026-12-01T09:02:00Z and 2026-12-01T09:40:00Z: nothing listening/,
    );
    writeFileSync(join(w.env.HOOKMAP_HOME!, 'failed-open.seen.log'), readFileSync(join(w.env.HOOKMAP_HOME!, 'failed-open.log')));
    rmSync(join(w.env.HOOKMAP_HOME!, 'failed-open.log'));
    const after = w.cli(['doctor', 'claude-code']);
    expect(after.out).not.toMatch(/got no answer/);
    expect(after.out).toMatch(/reported at the last hookmap up start: 2 hooks/);
  });
});
