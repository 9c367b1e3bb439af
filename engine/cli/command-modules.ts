// Every command's module by the name the command table gives it
// (engine/cli/usage.ts `module`), each a literal import() loaded only when
// its command runs: the dispatcher pays for one command, and the package's
// bundle (npm run build: codegen/bundle.mjs) finds every command from these
// literals and splits each into its own chunk.
import type { RuntimeConfig } from '../core/config/schema.ts';

export interface CommandModule {
  run(argv: string[], config: RuntimeConfig): Promise<number>;
}

export const COMMAND_MODULES: Readonly<Record<string, () => Promise<CommandModule>>> = {
  answer: () => import('./commands/answer.ts'),
  attach: () => import('./commands/attach.ts'),
  autostart: () => import('./commands/autostart.ts'),
  bridge: () => import('./commands/bridge.ts'),
  budgets: () => import('./commands/budgets.ts'),
  cancel: () => import('./commands/cancel.ts'),
  capabilities: () => import('./commands/capabilities.ts'),
  channels: () => import('./commands/channels.ts'),
  check: () => import('./commands/check.ts'),
  codegen: () => import('./commands/codegen.ts'),
  config: () => import('./commands/config.ts'),
  docs: () => import('./commands/docs.ts'),
  doctor: () => import('./commands/doctor.ts'),
  history: () => import('./commands/history.ts'),
  hook: () => import('./commands/hook.ts'),
  map: () => import('./commands/map.ts'),
  mcp: () => import('./commands/mcp.ts'),
  new: () => import('./commands/new.ts'),
  open: () => import('./commands/open.ts'),
  policy: () => import('./commands/policy.ts'),
  push: () => import('./commands/push.ts'),
  record: () => import('./commands/record.ts'),
  relay: () => import('./commands/relay.ts'),
  replay: () => import('./commands/replay.ts'),
  rules: () => import('./commands/rules.ts'),
  run: () => import('./commands/run.ts'),
  search: () => import('./commands/search.ts'),
  serve: () => import('./commands/serve.ts'),
  service: () => import('./commands/service.ts'),
  sessions: () => import('./commands/sessions.ts'),
  setup: () => import('./commands/setup.ts'),
  sink: () => import('./commands/sink.ts'),
  steer: () => import('./commands/steer.ts'),
  tail: () => import('./commands/tail.ts'),
  tee: () => import('./commands/tee.ts'),
  timeline: () => import('./commands/timeline.ts'),
  tokens: () => import('./commands/tokens.ts'),
  up: () => import('./commands/up.ts'),
  'usage-report': () => import('./commands/usage-report.ts'),
  validate: () => import('./commands/validate.ts'),
};
