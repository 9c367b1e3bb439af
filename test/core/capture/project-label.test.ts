// Issue 31 item 2: sessions are told apart by their project. A session whose
// agent reports its working folder carries the folder's NAME (never its
// path) as the extension attribute `hookmapproject` on session.started, at
// the default capture; a person can name a folder (and its subfolders) or
// turn the label off; `up --capture redacted` is the documented way to show
// more (the path itself). The stream stays valid AEP.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadUpConfig } from '../../../engine/app/up-config.ts';
import { projectLabel, PROJECT_ATTR } from '../../../engine/core/capture/project.ts';
import { buildEnvelope } from '../../../engine/core/map/envelope.ts';
import { validateStream } from '../../../engine/core/validate/index.ts';
import { upStack, type UpStack } from '../../helpers/up-stack.ts';

describe('projectLabel', () => {
  it("is the folder's name, never the path", () => {
    expect(projectLabel('/home/ann/src/payments-api')).toBe('payments-api');
    expect(projectLabel('/home/ann/src/payments-api/')).toBe('payments-api');
    expect(projectLabel('C:\\Users\\ann\\src\\web')).toBe('web');
    expect(projectLabel('/')).toBe('/');
    expect(projectLabel(undefined)).toBeUndefined();
    expect(projectLabel('')).toBeUndefined();
    expect(projectLabel(42)).toBeUndefined();
  });

  it('takes the nearest named folder, and nothing when off', () => {
    const names = { '/home/ann/src': 'Sources', '/home/ann/src/api': 'Payments API' };
    expect(projectLabel('/home/ann/src/api/server', { names })).toBe('Payments API');
    expect(projectLabel('/home/ann/src/web', { names })).toBe('Sources');
    expect(projectLabel('/home/ann/srcx', { names })).toBe('srcx'); // a prefix of the name is not a parent
    expect(projectLabel('/home/ann/src/api', { mode: 'off', names })).toBeUndefined();
  });

  it('is one short printable line whatever the folder is called', () => {
    expect(projectLabel('/tmp/a\nb\u0007c')).toBe('a b c');
    expect(projectLabel(`/tmp/${'x'.repeat(200)}`)!.length).toBe(80);
  });

  it('refuses an extension attribute that would collide with a core one or is ill-formed (AEP-0001 §5.4)', () => {
    const base = { type: 'session.started', host: 'h', agent: 'a', session: 's', seq: 0, epoch: 1 };
    expect(() => buildEnvelope({ ...base, extensions: { session: 'x' } })).toThrow(/not allowed/);
    expect(() => buildEnvelope({ ...base, extensions: { 'Bad-Name': 'x' } })).toThrow(/not allowed/);
    expect(buildEnvelope({ ...base, extensions: { [PROJECT_ATTR]: 'p' } })[PROJECT_ATTR as 'id']).toBe('p');
  });
});

describe('on the stream of hookmap up', () => {
  let stack: UpStack | undefined;
  afterEach(async () => {
    await stack?.done();
    stack = undefined;
  });

  const sessionStart = async (s: UpStack, cwd: string, id = 'sess-1') => {
    const r = await fetch(`${s.url}/hooks/claude-code`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ session_id: id, transcript_path: `/tmp/${id}.jsonl`, cwd, hook_event_name: 'SessionStart', source: 'startup' }),
    });
    expect(r.status).toBe(200);
    const dir = join(s.logDir, 'claude-code');
    const events = readdirSync(dir)
      .filter((f) => f.endsWith('.jsonl'))
      .flatMap((f) =>
        readFileSync(join(dir, f), 'utf8')
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l)),
      );
    return events.filter((e) => e.type === 'session.started' && e.session === id);
  };

  it('carries the folder name at the default capture, and not the path', async () => {
    stack = await upStack({ agents: [{ descriptor: 'claude-code' }] });
    const [ev] = await sessionStart(stack, '/home/ann/src/payments-api');
    expect(ev.capture).toBe('metadata');
    expect(ev[PROJECT_ATTR]).toBe('payments-api');
    expect(JSON.stringify(ev)).not.toContain('/home/ann');
    expect(validateStream([ev])).toEqual([]);
  });

  it('is off with projects.label off, and a named folder shows its name', async () => {
    stack = await upStack({ agents: [{ descriptor: 'claude-code' }], projects: { mode: 'off' } });
    const [off] = await sessionStart(stack, '/home/ann/src/payments-api');
    expect(off[PROJECT_ATTR]).toBeUndefined();
    await stack.done();
    stack = await upStack({
      agents: [{ descriptor: 'claude-code' }],
      setup: (home) => {
        writeFileSync(join(home, 'up.yaml'), 'projects:\n  names: { /home/ann/src/api: "Payments API" }\n');
        return { projects: loadUpConfig(join(home, 'up.yaml'), {}).projects };
      },
    });
    const [named] = await sessionStart(stack, '/home/ann/src/api/server');
    expect(named[PROJECT_ATTR]).toBe('Payments API');
  });

  it('--capture redacted shows the path (the option the README names); metadata never does', async () => {
    stack = await upStack({ agents: [{ descriptor: 'claude-code' }], capture: 'redacted' });
    const [ev] = await sessionStart(stack, '/home/ann/src/payments-api');
    expect(ev.capture).toBe('redacted');
    expect(ev.data.cwd).toBe('~/src/payments-api'); // through redaction: the home folder is not spelled out
    expect(validateStream([ev])).toEqual([]);
  });

  it('rejects a capture or label value it does not know, with the key named', () => {
    const f = join(tmpdir(), `hookmap-up-config-${process.pid}.yaml`);
    writeFileSync(f, 'capture: everything\n');
    expect(() => loadUpConfig(f, {})).toThrow(/capture must be one of metadata, redacted, full/);
    writeFileSync(f, 'projects: { label: path }\n');
    expect(() => loadUpConfig(f, {})).toThrow(/projects.label must be one of folder, off/);
  });
});
