// Claude Code's first-run dialogs, answered ahead in its config
// ($HOME/.claude.json, AGENT-FACTS: onboarding, the folder's trust, the API
// key) so its TUI opens at its prompt in tmux; and what its pane shows there.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const TUI_KEY = 'sk-ant-live-test-not-a-key';

/** Onboarding done, `project` trusted, TUI_KEY approved: the TUI asks none of them. */
export function skipFirstRun(home: string, project: string, key = TUI_KEY): void {
  const cfgPath = join(home, '.claude.json');
  const cfg = existsSync(cfgPath) ? JSON.parse(readFileSync(cfgPath, 'utf8')) : {};
  cfg.hasCompletedOnboarding = true;
  cfg.projects = { ...(cfg.projects ?? {}), [project]: { ...(cfg.projects?.[project] ?? {}), hasTrustDialogAccepted: true } };
  cfg.customApiKeyResponses = { approved: [key.slice(-20)], rejected: [] };
  writeFileSync(cfgPath, JSON.stringify(cfg, null, 2));
}

/** The pane shows the TUI waiting at its prompt (its input marker and the shortcuts hint). */
export const atPrompt = (pane: string): boolean => /for shortcuts|shift\+tab to cycle/i.test(pane) && /^❯/m.test(pane);

/** The pane asks whether to use the API key (answered with Up, Enter when it does). */
export const asksForKey = (pane: string): boolean => /Do you want to use this API key/i.test(pane);
