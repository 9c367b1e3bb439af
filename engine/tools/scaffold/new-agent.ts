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
import type { Descriptor } from '../../core/descriptor/types.ts';
import { evaluate } from '../../core/expr/compile.ts';

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
  /** The like's hooks left out (no other agent has them, or --hooks did not name them), and the fixture cases firing them. */
  dropped: { hooks: string[]; cases: string[] };
}

/**
 * The like's hooks the new agent does not start with: those named by `keep` are kept (the rest dropped); without
 * `keep`, the ones no other agent's descriptor has (the like's alone: setup would wire hooks the new agent lacks).
 */
export function hooksToDrop(like: Descriptor, others: Descriptor[], keep?: string[]): string[] {
  const mine = [...like.hooks.keys()];
  if (keep) return mine.filter((h) => !keep.includes(h));
  const elsewhere = new Set(others.filter((d) => d.vendor !== like.vendor).flatMap((d) => [...d.hooks.keys()]));
  return mine.filter((h) => !elsewhere.has(h));
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
export function descriptorSkeleton(likeText: string, like: Descriptor, agent: string, surface?: string, drop: string[] = []): string {
  const doc = parseDocument(renamed(likeText, like.vendor, agent));
  for (const h of drop) doc.deleteIn(['hooks', h]);
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
export function fixtureSkeleton(text: string, like: string, agent: string, dropCase: (index: number) => boolean = () => false): string {
  const doc = parseDocument(renamed(text, like, agent).split(`/hooks/${like}`).join(`/hooks/${agent}`));
  renameValues(doc, like, agent);
  const cases = doc.get('cases', true) as { items?: unknown[] } | undefined;
  const kept = cases?.items?.filter((_c, i) => !dropCase(i));
  if (cases?.items && kept && kept.length < cases.items.length) {
    // a dropped case may hold an anchor a kept one names: every alias becomes a copy of what it names first
    visit(doc, { Alias: (_k, a) => Object.assign((a.resolve(doc) as unknown as { clone(): object }).clone(), { anchor: undefined }) as never });
    cases.items = kept;
  }
  doc.set(
    'provenance',
    `${FILL_IN}: where these cases come from (\`hookmap record ${agent}\` payloads, the agent's docs); the payloads below are ${like}'s until replaced`,
  );
  return doc.toString({ lineWidth: 0 });
}

/** Files the like's fixture folder holds that stay behind: its upstream pins and what was recorded from it. */
const STAYS = new Set(['pins.yaml', 'pin-setup.yaml']);

/** Everything `hookmap new` writes: the descriptor at `descriptorPath`, the fixtures in `fixturesDir`. */
export async function scaffold(
  like: Descriptor,
  likeText: string,
  likeFixtures: string,
  agent: string,
  descriptorPath: string,
  fixturesDir: string,
  surface?: string,
  drop: string[] = [],
): Promise<Scaffold> {
  const files = new Map<string, string>([[descriptorPath, descriptorSkeleton(likeText, like, agent, surface, drop)]]);
  const cases: string[] = [];
  for (const f of existsSync(likeFixtures) ? readdirSync(likeFixtures).sort() : []) {
    if (!f.endsWith('.yaml') || STAYS.has(f)) continue;
    const text = readFileSync(join(likeFixtures, f), 'utf8');
    const firing = await casesFiring(like, drop, text);
    cases.push(...[...firing.values()].map((name) => `${f}: ${name}`));
    files.set(
      join(fixturesDir, f),
      fixtureSkeleton(text, like.vendor, agent, (i) => firing.has(i)),
    );
  }
  files.set(join(fixturesDir, 'recorded', '.gitkeep'), '');
  return { files, dropped: { hooks: drop, cases } };
}

/** The cases of one of the like's fixture files (index -> name) with a step or an input firing a dropped hook. */
async function casesFiring(like: Descriptor, drop: string[], text: string): Promise<Map<number, string>> {
  const out = new Map<number, string>();
  if (!drop.length) return out;
  const hookOf = async (input: unknown): Promise<string | undefined> => {
    if (!like.hookName || input === null || typeof input !== 'object') return undefined;
    try {
      const v = await evaluate(like.hookName, input, {});
      return typeof v === 'string' ? v : undefined;
    } catch {
      return undefined;
    }
  };
  const doc = parseDocument(text).toJSON() as { cases?: Record<string, unknown>[] } | null;
  for (const [i, c] of (doc?.cases ?? []).entries()) {
    const steps = (c.steps as { hook?: unknown; input?: unknown }[] | undefined) ?? [];
    const named = [c.hook, ...steps.map((st) => st.hook)].filter((h): h is string => typeof h === 'string');
    const fired = [...named, ...(await Promise.all([c.input, ...steps.map((st) => st.input)].map(hookOf)))];
    if (fired.some((h) => h !== undefined && drop.includes(h))) out.set(i, String(c.name ?? `case ${i + 1}`));
  }
  return out;
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
