// The engine is generic: no file under engine/ names an agent. Forbidden words
// are the vendor ids (vendors/*.yaml), their display names, and a fixed list
// of the agents hookmap targets. Identifiers are split at camelCase and
// snake_case so `isCodexHook` or `CLAUDE_PATH` are caught. Short ids (`pi`)
// and names that are also ordinary programming words (`cursor`) count only
// as a whole string literal ('pi') or an x.<id>.* namespace, so `Math.PI`,
// `api` or a relay cursor do not.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { listVendors, loadVendor, ROOT } from '../../engine/core/descriptor/registry.ts';

const COMMON_WORDS = new Set(['cursor']);
const AGENTS = [
  'claude',
  'codex',
  'gemini',
  'qwen',
  'vscode',
  'copilot',
  'kimi',
  'opencode',
  'kilo',
  'cline',
  'hermes',
  'antigravity',
  'cursor',
  'pi-coding',
  'pi',
];

function displayName(id: string): string | undefined {
  try {
    return loadVendor(id).name;
  } catch {
    return undefined;
  }
}

function forbiddenWords(): string[] {
  const words = new Set<string>(AGENTS);
  for (const id of listVendors()) {
    words.add(id.toLowerCase());
    const name = displayName(id);
    if (name) words.add(name.toLowerCase());
  }
  return [...words];
}

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? files(p) : [p];
  });
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const ambiguous = (w: string) => w.length <= 3 || COMMON_WORDS.has(w);

/** Word matcher: separators (space, -, _) inside a name match any separator. */
function matcher(word: string): RegExp {
  const w = word
    .split(/[\s_-]+/)
    .map(escape)
    .join('[\\s_-]+');
  if (ambiguous(word)) return new RegExp(`(['"\`])${w}\\1|\\bx\\.${w}\\.`, 'g');
  return new RegExp(`(?<![a-z0-9])${w}(?![a-z0-9])`, 'gi');
}

/** camelCase -> camel Case, so identifier parts become words. */
const splitIdentifiers = (text: string) => text.replace(/([a-z0-9])([A-Z])/g, '$1 $2');

export function vendorNamesIn(text: string, words: string[]): string[] {
  const hits: string[] = [];
  const split = splitIdentifiers(text);
  for (const w of words) {
    const haystack = ambiguous(w) ? text : split;
    for (const m of haystack.matchAll(matcher(w)))
      hits.push(`${w} (${JSON.stringify(haystack.slice(Math.max(0, m.index! - 20), m.index! + m[0].length + 20))})`);
  }
  return hits;
}

describe('engine/ names no agent', () => {
  const words = forbiddenWords();
  it('the matcher catches identifiers and spares look-alikes', () => {
    expect(vendorNamesIn('if (isCodexHook) x = CLAUDE_PATH', words).length).toBe(2);
    expect(vendorNamesIn("const kind = 'pi'; t = 'x.cursor.tab.opened'", words).length).toBe(2);
    expect(vendorNamesIn('Math.PI; api; pi; decline; kilobytes; cursorFile; a relay cursor', words)).toEqual([]);
  });
  for (const file of files(join(ROOT, 'engine'))) {
    const rel = relative(ROOT, file);
    it(rel, () => {
      expect(vendorNamesIn(readFileSync(file, 'utf8'), words)).toEqual([]);
    });
  }
});
