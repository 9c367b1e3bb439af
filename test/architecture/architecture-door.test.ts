// One door (issue 39): nothing outside engine/runtime/daemon/ and the programs that
// host daemons imports the Daemon class (engine/runtime/daemon/daemon.ts), not even
// as a type. The surfaces that act for a person away from the agent (Web
// Push, the chat channels, the rules API) read what is pending off the
// stream and reach the agent by control commands through the relay
// (engine/person/push/door.ts), so they serve every machine of a fleet; the
// surfaces that carry an agent's own traffic (engine/runtime/surface/) see its
// daemon only as engine/runtime/daemon/port.ts.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../../engine/core/descriptor/registry.ts';

/** The hosts: each runs daemons as its program and wires them to the relay. */
const HOSTS = new Map<string, string>([
  ['engine/app/up.ts', '`hookmap up`: every enabled agent in one process'],
  ['engine/app/up-daemons.ts', "up's daemons, opened"],
  ['engine/app/up-parts.ts', "up's share of /healthz, links ready"],
  ['engine/app/up-streams.ts', "up's stream subscribers, attached to their daemons"],
  ['engine/app/serve.ts', '`hookmap serve`: one agent'],
  ['engine/tools/record/recorder.ts', '`hookmap record`: one daemon recording a session'],
  ['engine/tools/cases/run-decisions.ts', '`hookmap check`: a fixture case drives a daemon directly'],
]);

/** What acts for a person away from the agent: of engine/runtime/daemon/ it may name only the door's command types. */
const AWAY = (f: string) =>
  f.startsWith('engine/person/push/') || f.startsWith('engine/person/channels/') || f === 'engine/app/away.ts' || f === 'engine/app/rules-routes.ts';
const AWAY_MAY = new Set(['engine/runtime/daemon/door.ts']);

function sources(dir: string, out: string[] = []): string[] {
  for (const f of readdirSync(join(ROOT, dir))) {
    const rel = `${dir}/${f}`;
    if (statSync(join(ROOT, rel)).isDirectory()) sources(rel, out);
    else if (/\.(ts|mts)$/.test(f) && !f.endsWith('.d.mts')) out.push(rel);
  }
  return out;
}

/** Every engine file a file imports (static, type-only, re-export, dynamic with a literal), as a path from the root. */
function imports(f: string): string[] {
  const src = readFileSync(join(ROOT, f), 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/^\s*\/\/.*$/gm, '');
  const out: string[] = [];
  for (const m of src.matchAll(/^\s*(?:import|export)\s[^'";]*?\sfrom\s*['"]([^'"]+)['"]/gm)) out.push(m[1]);
  for (const m of src.matchAll(/import\(\s*['"`]([^'"`$]+)['"`]\s*\)/g)) out.push(m[1]);
  return out.filter((s) => s.startsWith('.')).map((s) => relative(ROOT, resolve(ROOT, dirname(f), s)));
}

const ENGINE = sources('engine');

describe('one door', () => {
  it('nothing outside engine/runtime/daemon/ and the hosts imports the daemon class', () => {
    const importers = ENGINE.filter((f) => !f.startsWith('engine/runtime/daemon/') && imports(f).includes('engine/runtime/daemon/daemon.ts'));
    expect(
      importers.filter((f) => !HOSTS.has(f)),
      'read the stream and command through the relay (engine/person/push/door.ts), or take engine/runtime/daemon/port.ts',
    ).toEqual([]);
    expect(
      [...HOSTS.keys()].filter((f) => !importers.includes(f)),
      'no longer imports the daemon class: remove it from HOSTS',
    ).toEqual([]);
  });

  it('push, the chat channels and the rules API reach no daemon object: of engine/runtime/daemon/ only the door command types', () => {
    const reach = ENGINE.filter(AWAY).flatMap((f) =>
      imports(f)
        .filter((i) => i.startsWith('engine/runtime/daemon/') && !AWAY_MAY.has(i))
        .map((i) => `${f} -> ${i}`),
    );
    expect(reach).toEqual([]);
  });

  it('the rules see what they judge', () => {
    expect(imports('engine/app/up.ts')).toContain('engine/runtime/daemon/daemon.ts');
    expect(ENGINE).toContain('engine/person/push/door.ts');
  });
});
