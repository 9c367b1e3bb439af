// The agents the live suite drives: npm package, pinned version, the binary,
// and where the cache keeps it. The packages are installed by test/live/run.ts
// into ~/.cache/hookmap-live/<pkg>@<version> (HOOKMAP_LIVE_CACHE overrides),
// never into the repo and never into package.json.
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

export interface LiveAgent {
  /** hookmap descriptor id */
  id: string;
  pkg: string;
  version: string;
  bin: string;
  /** Where the binary lives under the prefix, when not node_modules/.bin/<bin> (a platform package has no .bin link). */
  binPath?: string;
  /** Why the agent cannot be driven here even when installed (no local-model route, no hooks). */
  blocked?: string;
}

export const AGENTS: LiveAgent[] = [
  { id: 'claude-code', pkg: '@anthropic-ai/claude-code', version: '2.1.328', bin: 'claude' },
  { id: 'codex', pkg: '@openai/codex', version: '0.169.0', bin: 'codex' },
  { id: 'gemini-cli', pkg: '@google/gemini-cli', version: '0.61.0', bin: 'gemini' },
  // ACP: Gemini CLI in its ACP mode (`gemini --acp`) behind `hookmap tee acp` (the same package)
  { id: 'acp', pkg: '@google/gemini-cli', version: '0.61.0', bin: 'gemini' },
  { id: 'qwen-code', pkg: '@qwen-code/qwen-code', version: '0.24.4', bin: 'qwen' },
  { id: 'opencode', pkg: 'opencode-ai', version: '1.18.33', bin: 'opencode' },
  { id: 'pi', pkg: '@mariozechner/pi-coding-agent', version: '0.73.1', bin: 'pi' },
  // Kilo Code: the platform package itself (its bin/kilo); the @kilocode/cli
  // wrapper 7.8.1 does not install (its 7.8.1 platform package is unpublished),
  // and no @kilocode/cli 7.7.9 exists
  { id: 'kilocode', pkg: '@kilocode/cli-linux-x64', version: '7.7.9', bin: 'kilo', binPath: 'node_modules/@kilocode/cli-linux-x64/bin/kilo' },
  { id: 'cline', pkg: 'cline', version: '3.0.65', bin: 'cline' },
  { id: 'copilot-cli', pkg: '@github/copilot', version: '1.0.102', bin: 'copilot' },
  // Factory Droid: the platform package itself (its bin/droid; no install scripts, nothing downloaded)
  { id: 'factory-droid', pkg: '@factory/cli-linux-x64', version: '0.225.2', bin: 'droid', binPath: 'node_modules/@factory/cli-linux-x64/bin/droid' },
  // Letta Code: 0.25.9, the newest that installs here (0.32.18, npm's latest on 2026-12-02, depends on
  // @janhapke/sharp-electron@0.35.3-electron.1, which the registry reachable here does not have: ETARGET)
  { id: 'letta-code', pkg: '@letta-ai/letta-code', version: '0.25.9', bin: 'letta' },
];

export const CACHE = process.env.HOOKMAP_LIVE_CACHE || join(homedir(), '.cache', 'hookmap-live');

export const prefixOf = (a: LiveAgent) => join(CACHE, `${a.pkg.replace(/\//g, '+')}@${a.version}`);
export const binOf = (a: LiveAgent) => join(prefixOf(a), a.binPath ?? join('node_modules', '.bin', a.bin));

/** What run.ts found: per agent, a runnable binary or the reason it is skipped. */
export interface Manifest {
  [id: string]: { bin?: string; version?: string; skip?: string };
}

/** What run.ts resolved: its own run's file (HOOKMAP_LIVE_MANIFEST, so runs side by side never read each other's), else the cache's last. */
export const MANIFEST = process.env.HOOKMAP_LIVE_MANIFEST || join(CACHE, 'manifest.json');

export function manifest(): Manifest {
  try {
    return JSON.parse(readFileSync(MANIFEST, 'utf8'));
  } catch {
    return {};
  }
}

/** The binary to drive, or why not (the test prints it and skips). */
export function resolveAgent(id: string): { agent: LiveAgent; bin?: string; skip?: string } {
  const agent = AGENTS.find((a) => a.id === id)!;
  const m = manifest()[id];
  if (m?.skip) return { agent, skip: m.skip };
  if (agent.blocked) return { agent, skip: agent.blocked };
  const bin = m?.bin ?? binOf(agent);
  if (!existsSync(bin)) return { agent, skip: `${agent.pkg}@${agent.version} is not in ${CACHE} (run npm run test:live, which installs it)` };
  return { agent, bin };
}

export const DATE = new Date().toISOString().slice(0, 10);
