// `hookmap new <agent> --like <existing>`: a starting point for a new agent,
// made from the closest existing one. The descriptor is the existing one's,
// renamed (vendor, the x.<agent>.* namespace, the HOOKMAP_<AGENT>_* option
// variables), with everything that was true of that agent only taken out or
// marked to fill in: its name, the mapping's provenance, its docs, where
// setup writes, what was seen live, the evidence it named. Its fixture files
// come along (the upstream pins and recorded payloads stay behind: they are
// the other agent's), each provenance marked. `hookmap check` then lists,
// in file and line order, every placeholder left (`to-fill-in`) and every
// claim no fixture proves yet.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { isScalar, parseDocument, visit, type Document } from 'yaml';
import type { Descriptor } from '../descriptor/types.ts';

/** What a placeholder says; `hookmap check` reports every line carrying it (`to-fill-in`). */
export const FILL_IN = 'TODO(hookmap new)';

export const SURFACE_KINDS = ['command-hook', 'http-hook', 'plugin', 'extension', 'stdio-tee', 'stream-subscriber'] as const;

/**
 * The existing agent closest to a surface kind: among those of that kind, a
 * `control` one first (it shows the whole path: holds, decisions, replies),
 * then the shortest descriptor (the least to read and take out).
 */
export function closestAgent(kind: string, agents: Descriptor[], lines: (d: Descriptor) => number): Descriptor | undefined {
  const control = (d: Descriptor) => (d.posture === 'control' ? 0 : 1);
  return agents.filter((d) => d.surface.kind === kind).sort((a, b) => control(a) - control(b) || lines(a) - lines(b) || a.vendor.localeCompare(b.vendor))[0];
}

export interface Scaffold {
  /** Path -> text of every file to write. */
  files: Map<string, string>;
}

const up = (s: string) => s.toUpperCase().replace(/[^A-Z0-9]/g, '_');

/** The like's text with its agent's names replaced by the new one's. */
function renamed(text: string, like: string, agent: string): string {
  return text
    .split(`x.${like}.`)
    .join(`x.${agent}.`)
    .split(`HOOKMAP_${up(like)}_`)
    .join(`HOOKMAP_${up(agent)}_`);
}

/** A value that is the like's own name (a `client: { name: <like> }`, an expected `agent: <like>`) becomes the new one's. */
function renameValues(doc: Document, like: string, agent: string): void {
  visit(doc, {
    Pair(_k, pair) {
      if (isScalar(pair.value) && pair.value.value === like) pair.value.value = agent;
    },
  });
}

function mark(doc: Document, path: string[], what: string): void {
  if (doc.hasIn(path)) doc.setIn(path, `${FILL_IN}: ${what}`);
}

/** The descriptor skeleton: the like's rules under the new name, the like's own facts taken out or marked. */
export function descriptorSkeleton(likeText: string, like: Descriptor, agent: string, surface?: string): string {
  const doc = parseDocument(renamed(likeText, like.vendor, agent));
  renameValues(doc, like.vendor, agent);
  const how = surface ? `--surface ${surface}\` (the closest: ${like.vendor})` : `--like ${like.vendor}\``;
  doc.commentBefore =
    ` ${agent}: started by \`hookmap new ${agent} ${how} from ${like.file}.\n ` +
    `Every placeholder and every claim below needs this agent's own facts:\n \`hookmap check ${agent}\` ` +
    `lists what is left, in order (docs/authoring.md).`;
  doc.set('vendor', agent);
  mark(doc, ['name'], "the agent's display name");
  mark(doc, ['surface', 'pin'], "where this mapping comes from (the agent's hooks docs and version, live payloads)");
  doc.deleteIn(['surface', 'docs']);
  doc.deleteIn(['surface', 'notes']);
  // what was seen live, and the evidence named, were the other agent's
  doc.delete('provenance');
  const caps = doc.get('capabilities', true) as { items?: { value?: { delete?: (k: string) => void } }[] } | undefined;
  for (const item of caps?.items ?? []) {
    item.value?.delete?.('live');
    item.value?.delete?.('evidence');
  }
  if (doc.has('setup')) {
    mark(doc, ['setup', 'scopes', 'user'], "the agent's user-level config file");
    mark(doc, ['setup', 'scopes', 'project'], "the agent's project-level config file");
    for (const k of ['docs', 'notes', 'requires', 'mcp', 'timeouts']) doc.deleteIn(['setup', k]);
  }
  return doc.toString({ lineWidth: 0 });
}

/** A fixture file of the like's, for the new agent: renamed (its agent, the hook endpoint it names), its provenance marked. */
export function fixtureSkeleton(text: string, like: string, agent: string): string {
  const doc = parseDocument(renamed(text, like, agent).split(`/hooks/${like}`).join(`/hooks/${agent}`));
  renameValues(doc, like, agent);
  doc.set(
    'provenance',
    `${FILL_IN}: where these cases come from (\`hookmap record ${agent}\` payloads, the agent's docs); the payloads below are ${like}'s until replaced`,
  );
  return doc.toString({ lineWidth: 0 });
}

/** Files the like's fixture folder holds that stay behind: its upstream pins and what was recorded from it. */
const STAYS = new Set(['pins.yaml', 'pin-setup.yaml']);

/** Everything `hookmap new` writes: the descriptor at `descriptorPath`, the fixtures in `fixturesDir`. */
export function scaffold(
  like: Descriptor,
  likeText: string,
  likeFixtures: string,
  agent: string,
  descriptorPath: string,
  fixturesDir: string,
  surface?: string,
): Scaffold {
  const files = new Map<string, string>([[descriptorPath, descriptorSkeleton(likeText, like, agent, surface)]]);
  for (const f of existsSync(likeFixtures) ? readdirSync(likeFixtures).sort() : []) {
    if (!f.endsWith('.yaml') || STAYS.has(f)) continue;
    files.set(join(fixturesDir, f), fixtureSkeleton(readFileSync(join(likeFixtures, f), 'utf8'), like.vendor, agent));
  }
  files.set(join(fixturesDir, 'recorded', '.gitkeep'), '');
  return { files };
}

/** Write a scaffold; refuses (returns the path) when a file exists already. */
export function writeScaffold(s: Scaffold): string | undefined {
  for (const p of s.files.keys()) if (existsSync(p)) return p;
  for (const [p, text] of s.files) {
    mkdirSync(dirname(p), { recursive: true });
    writeFileSync(p, text);
  }
  return undefined;
}

/** Every line of `text` carrying the placeholder: its line, column and what it asks. */
export function placeholders(text: string): { line: number; col: number; what: string }[] {
  const out: { line: number; col: number; what: string }[] = [];
  text.split('\n').forEach((l, i) => {
    const at = l.indexOf(FILL_IN);
    if (at >= 0)
      out.push({
        line: i + 1,
        col: at + 1,
        what: l
          .slice(at + FILL_IN.length)
          .replace(/^[:\s]+/, '')
          .replace(/["']\s*$/, '')
          .trim(),
      });
  });
  return out;
}
