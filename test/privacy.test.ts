// Privacy end to end: payloads stuffed with secrets, home paths, emails and
// prompt text go through `hookmap map` semantics (one engine state per agent,
// NDJSON steps in, NDJSON results out). At capture metadata NONE of those
// strings may appear anywhere in the serialized events; at the default
// posture no secret or home path does; at redacted secrets become
// `[REDACTED:secret]` while ordinary text survives.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { CaptureLevel } from '../engine/core/aep/schemas.ts';
import { mapStep } from '../engine/cli/commands/map.ts';
import { loadVendor } from '../engine/core/descriptor/registry.ts';
import { Mapper } from '../engine/core/map/mapper.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));

const S = {
  openai: 'sk-proj-AbCdEf0123456789GhIjKlMnOpQrSt',
  anthropic: 'sk-ant-api03-ZyXwVu9876543210TsRqPoNmLkJi',
  aws: 'AKIAIOSFODNN7EXAMPLE',
  github: 'ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789',
  jwt: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJqYW5lIn0.c2lnbmF0dXJlMTIzNDU2',
  pemBody: 'MIIEowIBAAKCAQEA7hunter2PEMbodyQ0xYz',
  password: 'hunter2correcthorse',
  email: 'jane.doe@example.com',
  user: 'janedoe',
};
const PEM = `-----BEGIN RSA PRIVATE KEY-----\n${S.pemBody}\n-----END RSA PRIVATE KEY-----`;
const HOME = `/home/${S.user}/work/nightingale`;
const PROMPT = 'Please deploy Project Nightingale to prod using the staging credentials';
const BLOB =
  `export OPENAI_API_KEY=${S.openai}\ncurl -H "Authorization: Bearer ${S.jwt}" ` +
  `https://api.example.com\n# aws ${S.aws} gh ${S.github} anthropic ${S.anthropic}\npassword=${S.password}\nmail ` +
  `${S.email}\n${PEM}\ncd ${HOME}`;

const SECRETS = [S.openai, S.anthropic, S.aws, S.github, S.jwt, S.pemBody, S.password, S.email, S.user];
/** At metadata, not even the content itself (prompt text, paths) may appear. */
const EVERYTHING = [...SECRETS, 'Nightingale', HOME, 'staging credentials'];

type Step = { hook?: string; input: Record<string, unknown> };
const common = (hook: string, session: string) => ({
  session_id: session,
  transcript_path: `${HOME}/.transcripts/${session}.jsonl`,
  cwd: HOME,
  hook_event_name: hook,
});

function codexSteps(): Step[] {
  const c = (hook: string, extra: Record<string, unknown>) => ({ input: { ...common(hook, 'p_codex'), turn_id: 't1', ...extra } });
  return [
    c('SessionStart', { source: 'startup', model: 'gpt-5.2-codex', permission_mode: 'default' }),
    c('UserPromptSubmit', { prompt: `${PROMPT}\n${BLOB}` }),
    c('PreToolUse', { tool_name: 'Bash', tool_use_id: 'call_1', tool_input: { command: BLOB } }),
    c('PermissionRequest', { tool_name: 'Bash', tool_input: { command: `cat ${HOME}/.env && echo ${S.openai}`, description: PROMPT } }),
    c('PostToolUse', { tool_name: 'Bash', tool_use_id: 'call_1', tool_response: BLOB }),
    c('PostCompact', { trigger: 'auto', summary: BLOB }),
    c('Stop', { last_assistant_message: `${PROMPT} ${BLOB}` }),
    c('SomeFutureHook', { detail: BLOB }),
  ];
}

function geminiSteps(): Step[] {
  const g = (hook: string, extra: Record<string, unknown>) => ({ input: { ...common(hook, 'p_gemini'), timestamp: '2026-11-29T10:00:00.000Z', ...extra } });
  return [
    g('SessionStart', { source: 'startup' }),
    g('BeforeAgent', { prompt: `${PROMPT}\n${BLOB}` }),
    g('BeforeModel', { llm_request: { model: 'gemini-2.5-pro', messages: [{ role: 'user', content: BLOB }], config: {} } }),
    g('AfterModel', { llm_request: { model: 'gemini-2.5-pro' }, llm_response: { candidates: [{ content: { role: 'model', parts: [BLOB] } }] } }),
    g('BeforeTool', { tool_name: 'run_shell_command', tool_input: { command: BLOB } }),
    g('AfterTool', { tool_name: 'run_shell_command', tool_input: { command: BLOB }, tool_response: { llmContent: BLOB, returnDisplay: BLOB } }),
    g('AfterTool', {
      tool_name: 'read_file',
      tool_input: { absolute_path: `${HOME}/.env` },
      tool_response: { llmContent: '', error: { type: 'file_not_found', message: `no such file ${HOME}/.env (${S.email})` } },
    }),
    g('Notification', { notification_type: 'ToolPermission', message: `run_shell_command wants to run: ${BLOB}`, details: { command: BLOB } }),
    g('PreCompress', { trigger: 'auto' }),
    g('AfterAgent', { prompt: PROMPT, prompt_response: BLOB, stop_hook_active: false }),
    g('SomeFutureHook', { detail: BLOB }),
    g('SessionEnd', { reason: 'exit' }),
  ];
}

function claudeSteps(): Step[] {
  const c = (hook: string, extra: Record<string, unknown>) => ({ input: { ...common(hook, 'p_claude'), permission_mode: 'default', ...extra } });
  return [
    c('SessionStart', { source: 'startup', model: 'claude-sonnet-4-6' }),
    c('UserPromptSubmit', { prompt: `${PROMPT}\n${BLOB}`, prompt_id: 'p1' }),
    c('PreToolUse', { tool_name: 'Bash', tool_input: { command: BLOB, description: PROMPT }, tool_use_id: 'toolu_1' }),
    c('PermissionRequest', { tool_name: 'Bash', tool_input: { command: BLOB, description: PROMPT } }),
    c('PostToolUse', {
      tool_name: 'Bash',
      tool_input: { command: BLOB },
      tool_response: { stdout: BLOB, stderr: BLOB, interrupted: false },
      tool_use_id: 'toolu_1',
      duration_ms: 5,
    }),
    c('PostToolUseFailure', { tool_name: 'Bash', tool_input: { command: BLOB }, tool_use_id: 'toolu_2', error: BLOB, is_interrupt: false }),
    c('PermissionDenied', { tool_name: 'Bash', tool_input: { command: BLOB }, tool_use_id: 'toolu_3', reason: BLOB }),
    c('PermissionRequest', {
      tool_name: 'AskUserQuestion',
      tool_input: {
        questions: [
          {
            question: `${PROMPT}? token ${S.openai}`,
            header: `Deploy ${S.email}`,
            multiSelect: false,
            options: [{ label: `yes, with ${S.github}`, description: BLOB }, { label: `no, keep ${HOME}` }],
          },
        ],
      },
    }),
    c('Elicitation', {
      mcp_server_name: 'deploy',
      message: `${PROMPT} ${BLOB}`,
      mode: 'form',
      requested_schema: {
        type: 'object',
        properties: {
          target: { type: 'string', title: `Target for ${S.email}`, enum: ['a', 'b'], enumNames: [S.aws, HOME] },
          note: { type: 'string', title: BLOB },
        },
        required: ['target'],
      },
    }),
    c('ElicitationResult', { mcp_server_name: 'deploy', action: 'accept', content: { note: BLOB } }),
    c('Elicitation', { mcp_server_name: 'github', message: `${PROMPT} ${BLOB}`, mode: 'url', url: `https://auth.example.com/?token=${S.jwt}` }),
    c('Notification', { notification_type: 'idle_prompt', message: BLOB, title: PROMPT }),
    c('SubagentStart', { agent_id: 'agent-1', agent_type: 'Explore' }),
    c('SubagentStop', {
      agent_id: 'agent-1',
      agent_type: 'Explore',
      agent_transcript_path: `${HOME}/sub.jsonl`,
      last_assistant_message: BLOB,
      stop_hook_active: false,
    }),
    c('TaskCreated', { task_id: 'task-1', task_subject: PROMPT, task_description: BLOB }),
    c('TaskCompleted', { task_id: 'task-1', task_subject: PROMPT }),
    c('InstructionsLoaded', { file_path: `${HOME}/CLAUDE.md`, memory_type: 'Project', load_reason: 'session_start' }),
    c('ConfigChange', { source: 'project_settings', file_path: `${HOME}/.claude/settings.json` }),
    c('CwdChanged', { old_cwd: HOME, new_cwd: `${HOME}/src` }),
    c('FileChanged', { file_path: `${HOME}/.env`, event: 'change' }),
    c('WorktreeRemove', { worktree_path: `${HOME}/.claude/worktrees/x` }),
    c('PreCompact', { trigger: 'manual', custom_instructions: BLOB }),
    c('PostCompact', { trigger: 'manual', compact_summary: BLOB }),
    c('UserPromptExpansion', { expansion_type: 'slash_command', command_name: 'deploy', command_args: BLOB, prompt: PROMPT }),
    c('StopFailure', { error: 'rate_limit', error_details: BLOB, last_assistant_message: BLOB }),
    c('SessionEnd', { reason: 'other' }),
  ];
}

const AGENTS: [string, () => Step[]][] = [
  ['codex', codexSteps],
  ['gemini-cli', geminiSteps],
  ['claude-code', claudeSteps],
];

/** `hookmap map <agent> [--capture L]` semantics, in process: one state, one NDJSON result line per step. */
async function mapAll(agent: string, steps: Step[], capture?: CaptureLevel): Promise<string[]> {
  const mapper = new Mapper(loadVendor(agent), { capture });
  const lines: string[] = [];
  for (const [i, s] of steps.entries()) {
    const res = await mapStep(mapper, JSON.stringify(s), i + 1);
    expect(res, `${agent} step ${i + 1}`).not.toHaveProperty('error');
    lines.push(JSON.stringify(res));
  }
  return lines;
}

function leaks(lines: string[], needles: string[]): string[] {
  const out: string[] = [];
  for (const [i, l] of lines.entries()) {
    // compare on the decoded text too, so JSON escaping cannot hide a match
    const text = `${l}\n${JSON.stringify(JSON.parse(l))}`;
    for (const n of needles) if (text.includes(n) || text.includes(JSON.stringify(n).slice(1, -1))) out.push(`line ${i + 1}: ${n}`);
  }
  return out;
}

describe('privacy: capture metadata carries no content at all', () => {
  for (const [agent, steps] of AGENTS) {
    it(`${agent}: no secret, path, email or prompt text in any event`, async () => {
      const lines = await mapAll(agent, steps(), 'metadata');
      expect(lines.join('')).toContain('"events"');
      expect(leaks(lines, EVERYTHING)).toEqual([]);
    });
  }
});

describe('privacy: the default posture leaks no secret', () => {
  for (const [agent, steps] of AGENTS) {
    it(`${agent}: default ceilings (attention at redacted) redact secrets, emails and home paths`, async () => {
      const lines = await mapAll(agent, steps());
      expect(leaks(lines, SECRETS)).toEqual([]);
    });
  }
});

describe('privacy: capture redacted replaces secrets, keeps ordinary text', () => {
  it('claude-code: the permission card and form labels carry redacted text', async () => {
    const steps = claudeSteps();
    const lines = await mapAll('claude-code', steps, 'redacted');
    expect(leaks(lines, SECRETS)).toEqual([]);
    const events = lines.flatMap((l) => JSON.parse(l).events);
    const card = events.find((e: any) => e.type === 'attention.requested' && e.data.kind === 'permission');
    expect(card.data.prompt).toContain('Permission requested: Bash');
    expect(card.data.prompt).toContain('[REDACTED:secret]');
    expect(card.data.prompt).toContain('Project Nightingale'); // ordinary prompt text survives at redacted
    const form = events.find((e: any) => e.type === 'attention.requested' && e.subject === 'AskUserQuestion');
    expect(form.data.fields[0].label).toContain('[REDACTED:');
    expect(form.data.fields[0].choices.map((c: any) => c.label)).toEqual(['yes, with [REDACTED:secret]', 'no, keep ~/work/nightingale']);
    const started = events.find((e: any) => e.type === 'run.started');
    expect(started.data.prompt).toContain('Please deploy Project Nightingale');
    expect(started.data.prompt).toContain('Bearer [REDACTED:secret]');
  });

  it('gemini-cli: the Notification message and tool error are redacted, not dropped', async () => {
    const lines = await mapAll('gemini-cli', geminiSteps(), 'redacted');
    expect(leaks(lines, SECRETS)).toEqual([]);
    const events = lines.flatMap((l) => JSON.parse(l).events);
    const status = events.find((e: any) => e.type === 'progress.status');
    expect(status.data.message).toMatch(/^run_shell_command wants to run: export OPENAI_API_KEY=\[REDACTED:secret\]/);
    const failed = events.find((e: any) => e.type === 'tool.failed');
    expect(failed.data.error).toEqual({ type: 'file_not_found', message: 'no such file ~/work/nightingale/.env ([REDACTED:pii])' });
  });

  it('codex: the prompt keeps its words, loses its secrets', async () => {
    const lines = await mapAll('codex', codexSteps(), 'redacted');
    expect(leaks(lines, SECRETS)).toEqual([]);
    const started = lines.flatMap((l) => JSON.parse(l).events).find((e: any) => e.type === 'run.started');
    expect(started.data.prompt.startsWith(PROMPT)).toBe(true);
    expect(started.data.prompt).toContain('[REDACTED:secret]');
  });
});

describe('privacy: the detector itself', () => {
  for (const [agent, steps] of AGENTS) {
    it(`${agent}: at capture full the same payloads DO carry the planted strings (so the checks above are not vacuous)`, async () => {
      const lines = await mapAll(agent, steps(), 'full');
      expect(leaks(lines, [S.openai, S.jwt, 'Nightingale']).length).toBeGreaterThan(0);
    });
  }
});

describe('privacy: through the real CLI', () => {
  it('`hookmap map claude-code --capture metadata` prints no secret', () => {
    const stdin =
      claudeSteps()
        .map((s) => JSON.stringify(s))
        .join('\n') + '\n';
    const r = spawnSync(process.execPath, ['bin/hookmap.mjs', 'map', 'claude-code', '--capture', 'metadata'], {
      cwd: ROOT,
      input: stdin,
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(r.status, r.stderr).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines.length).toBe(claudeSteps().length);
    expect(leaks(lines, EVERYTHING)).toEqual([]);
  }, 40_000);
});
