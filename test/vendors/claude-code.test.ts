// Envelope-level and control-side facts of the Claude Code descriptor the
// fixture format does not compare: synthesized run ids and cause links, the
// holds (kind, key, timeout) and their settle keys, the decision templates'
// exact reply bytes, native-HTTP delivery marks and the neutral reply.
import { describe, expect, it } from 'vitest';
import { loadVendor } from '../../engine/descriptor/registry.ts';
import { answerBindings, renderHoldDecision } from '../../engine/map/decide.ts';
import { Mapper, type MapResult } from '../../engine/map/mapper.ts';
import type { CompiledHold } from '../../engine/descriptor/types.ts';

const d = loadVendor('claude-code');
const SESSION = 'c_env_1';
const base = (hook: string, extra: Record<string, unknown> = {}) => ({
  session_id: SESSION,
  transcript_path: '/home/dev/.claude/projects/-home-dev-proj/c_env_1.jsonl',
  cwd: '/home/dev/proj',
  permission_mode: 'default',
  hook_event_name: hook,
  ...extra,
});
const fire = (m: Mapper, hook: string, extra: Record<string, unknown> = {}): Promise<MapResult> => m.map(undefined, base(hook, extra));

/** Render a hold's decision template with the daemon's own renderer (engine/map/decide.ts): the answer applied, the descriptor's vars bound. */
async function decide(hold: CompiledHold, name: string, payload: Record<string, unknown>, answer: { values?: Record<string, unknown>; text?: string; option?: string } = {}): Promise<string> {
  if (!hold.decisions.has(name)) throw new Error(`no decision ${name}`);
  const b = await answerBindings(d, { hook: String(payload.hook_event_name), session: SESSION, request: {}, payload, config: d.config, applied: answer, answer });
  return renderHoldDecision(hold, name, payload, b, d.replies.neutral);
}

const QUESTIONS = [
  { question: 'Which database should the new service use?', header: 'Database', multiSelect: false, options: [{ label: 'PostgreSQL', description: 'relational' }, { label: 'SQLite' }] },
  { question: 'Which regions should we roll out to?', header: 'Regions', multiSelect: true, options: [{ label: 'us-east' }, { label: 'eu-west' }] },
];
const BASH = { command: 'touch marker', description: 'Create marker file' };

describe('claude-code: synthesized runs', () => {
  it('one run per UserPromptSubmit, closed by Stop with a cause link to run.started', async () => {
    const m = new Mapper(d);
    const { events: [start] } = await fire(m, 'UserPromptSubmit', { prompt: 'go', prompt_id: 'p1' });
    expect(start.type).toBe('run.started');
    const { events: [req] } = await fire(m, 'PreToolUse', { tool_name: 'Bash', tool_input: BASH, tool_use_id: 'toolu_1' });
    expect(req.run).toBe(start.run);
    const { events: [card] } = await fire(m, 'PermissionRequest', { tool_name: 'Bash', tool_input: BASH });
    expect(card.run).toBe(start.run);
    const { events: [fin] } = await fire(m, 'Stop', { stop_hook_active: false, last_assistant_message: 'done' });
    expect(fin.type).toBe('run.finished');
    expect(fin.run).toBe(start.run);
    expect(fin.cause).toBe(start.id);
    const { events: [next] } = await fire(m, 'UserPromptSubmit', { prompt: 'again' });
    expect(next.run).not.toBe(start.run);
  });

  it('StopFailure closes the run as run.failed, cause-linked', async () => {
    const m = new Mapper(d);
    const { events: [start] } = await fire(m, 'UserPromptSubmit', { prompt: 'go' });
    const { events: [failed] } = await fire(m, 'StopFailure', { error: 'server_error', error_details: '500' });
    expect(failed.type).toBe('run.failed');
    expect(failed.run).toBe(start.run);
    expect(failed.cause).toBe(start.id);
    const { events: after } = await fire(m, 'Stop', { stop_hook_active: false });
    expect(after).toEqual([]);
  });

  it('an interrupted run (no Stop) is cancelled at the next prompt, cause-linked', async () => {
    const m = new Mapper(d);
    const { events: [first] } = await fire(m, 'UserPromptSubmit', { prompt: 'one' });
    const { events: [cancelled, second] } = await fire(m, 'UserPromptSubmit', { prompt: 'two' });
    expect(cancelled.type).toBe('run.cancelled');
    expect(cancelled.run).toBe(first.run);
    expect(cancelled.cause).toBe(first.id);
    expect(second.run).not.toBe(first.run);
  });

  it('TeammateIdle is agent-scoped: no session, run or seq on the envelope', async () => {
    const m = new Mapper(d);
    await fire(m, 'UserPromptSubmit', { prompt: 'x' });
    const { events: [idle] } = await fire(m, 'TeammateIdle', { teammate_name: 'researcher', team_name: 't' });
    expect(idle.type).toBe('agent.idle');
    expect(idle.session).toBeUndefined();
    expect(idle.run).toBeUndefined();
    expect(idle.seq).toBeUndefined();
  });
});

describe('claude-code: PermissionRequest holds', () => {
  it('a tool permission holds kind permission, keyed so the same call\'s PostToolUse settles it as dismissed', async () => {
    const m = new Mapper(d);
    const r = await fire(m, 'PermissionRequest', { tool_name: 'Bash', tool_input: BASH, permission_suggestions: [] });
    expect(r.hold?.kind).toBe('permission');
    expect(r.hold?.timeoutMs).toBe(55000);
    expect(r.hold?.request?.type).toBe('attention.requested');
    expect(r.hold?.request?.id).toBe(r.events[0].id);
    expect(r.hold?.key).toBeTruthy();
    const post = await fire(m, 'PostToolUse', { tool_name: 'Bash', tool_input: BASH, tool_response: { stdout: '', stderr: '', interrupted: false }, tool_use_id: 'toolu_1', duration_ms: 12 });
    expect(post.settle).toEqual({ key: r.hold!.key, as: 'dismissed' });
    const fail = await fire(m, 'PostToolUseFailure', { tool_name: 'Bash', tool_input: BASH, tool_use_id: 'toolu_1', error: 'exit 1' });
    expect(fail.settle).toEqual({ key: r.hold!.key, as: 'dismissed' });
    const other = await fire(m, 'PostToolUse', { tool_name: 'Bash', tool_input: { command: 'ls' }, tool_response: {}, tool_use_id: 'toolu_2' });
    expect(other.settle?.key).not.toBe(r.hold!.key);
  });

  it('permission decisions: the exact reply bytes', async () => {
    const payload = base('PermissionRequest', { tool_name: 'Bash', tool_input: BASH });
    const hold = d.hooks.get('PermissionRequest')!.holds.find((h) => h.kind === 'permission')!;
    expect(await decide(hold, 'allow', payload)).toBe('{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}');
    expect(await decide(hold, 'deny', payload)).toBe('{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"Denied via hookmap attention loop"}}}');
    expect(await decide(hold, 'text', payload, { text: 'use trash-cli instead' })).toBe('{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"use trash-cli instead"}}}');
  });

  it('AskUserQuestion holds kind form (first matching hold), keyed on its questions', async () => {
    const m = new Mapper(d);
    const r = await fire(m, 'PermissionRequest', { tool_name: 'AskUserQuestion', tool_input: { questions: QUESTIONS } });
    expect(r.hold?.kind).toBe('form');
    expect(r.hold?.index).toBe(0);
    expect(r.events.map((e) => e.data?.kind)).toEqual(['form']);
    // answered in Claude Code's own dialog: the tool ran with answers added to its input
    const post = await fire(m, 'PostToolUse', { tool_name: 'AskUserQuestion', tool_input: { questions: QUESTIONS, answers: { [QUESTIONS[0].question]: 'SQLite' } }, tool_response: {}, tool_use_id: 'toolu_q' });
    expect(post.settle).toEqual({ key: r.hold!.key, as: 'dismissed' });
  });

  it('form values map 1-based choice ids back to Claude Code labels (multi joined, Other free text kept)', async () => {
    const payload = base('PermissionRequest', { tool_name: 'AskUserQuestion', tool_input: { questions: QUESTIONS } });
    const hold = d.hooks.get('PermissionRequest')!.holds.find((h) => h.kind === 'form')!;
    const bytes = await decide(hold, 'values', payload, { values: { 1: '2', 2: ['1', '2'] } });
    expect(JSON.parse(bytes)).toEqual({
      hookSpecificOutput: {
        hookEventName: 'PermissionRequest',
        decision: {
          behavior: 'allow',
          updatedInput: {
            questions: QUESTIONS,
            answers: { 'Which database should the new service use?': 'SQLite', 'Which regions should we roll out to?': 'us-east, eu-west' },
          },
        },
      },
    });
    const other = JSON.parse(await decide(hold, 'values', payload, { values: { 1: 'MySQL 8', 2: ['2', 'ap-south'] } }));
    expect(other.hookSpecificOutput.decision.updatedInput.answers).toEqual({
      'Which database should the new service use?': 'MySQL 8',
      'Which regions should we roll out to?': 'eu-west, ap-south',
    });
    // a one-question form answered by a single value
    const single = base('PermissionRequest', { tool_name: 'AskUserQuestion', tool_input: { questions: [QUESTIONS[0]] } });
    const one = JSON.parse(await decide(hold, 'values', single, { values: { 1: '1' } }));
    expect(one.hookSpecificOutput.decision.updatedInput).toEqual({ questions: [QUESTIONS[0]], answers: { 'Which database should the new service use?': 'PostgreSQL' } });
  });
});

describe('claude-code: Elicitation holds', () => {
  const SCHEMA = { type: 'object', properties: { env: { type: 'string', enum: ['staging', 'production'] }, replicas: { type: 'integer' } }, required: ['env'] };

  it('form mode holds kind form; the matching ElicitationResult settles it out of band and emits nothing', async () => {
    const m = new Mapper(d);
    const r = await fire(m, 'Elicitation', { mcp_server_name: 'deploy', message: 'Configure', mode: 'form', elicitation_id: 'e1', requested_schema: SCHEMA });
    expect(r.hold?.kind).toBe('form');
    expect(r.hold?.request?.id).toBe(r.events[0].id);
    const res = await fire(m, 'ElicitationResult', { mcp_server_name: 'deploy', action: 'accept', content: { env: 'staging' }, mode: 'form', elicitation_id: 'e1' });
    expect(res.events).toEqual([]);
    expect(res.settle).toEqual({ key: r.hold!.key, as: 'oob' });
    const stranger = await fire(m, 'ElicitationResult', { mcp_server_name: 'deploy', action: 'accept', content: {}, mode: 'form', elicitation_id: 'e2' });
    expect(stranger.settle?.key).not.toBe(r.hold!.key);
  });

  it('url mode is observed (kind auth, oob) and never held', async () => {
    const m = new Mapper(d);
    const r = await fire(m, 'Elicitation', { mcp_server_name: 'github', message: 'Please authenticate', mode: 'url', url: 'https://auth.example.com/login' });
    expect(r.hold).toBeUndefined();
    expect(r.events[0].data).toMatchObject({ kind: 'auth', respond_via: ['oob'] });
  });

  it('values decision: accept with the values as content', async () => {
    const payload = base('Elicitation', { mcp_server_name: 'deploy', message: 'Configure', mode: 'form', requested_schema: SCHEMA });
    const hold = d.hooks.get('Elicitation')!.holds[0];
    expect(await decide(hold, 'values', payload, { values: { env: 'staging', replicas: 3 } })).toBe(
      '{"hookSpecificOutput":{"hookEventName":"Elicitation","action":"accept","content":{"env":"staging","replicas":3}}}',
    );
  });
});

describe('claude-code: surface facts', () => {
  it('marks the hooks 2.1.328 delivered over native HTTP (and SessionStart, which it did not)', () => {
    for (const h of ['PreToolUse', 'PermissionRequest', 'PostToolUse']) expect(d.hooks.get(h)!.http, h).toBe(true);
    expect(d.hooks.get('SessionStart')!.http).toBe(false);
  });

  it('never registers hooks that would change the agent by default (WorktreeCreate) or stream (MessageDisplay)', () => {
    expect(d.hooks.get('WorktreeCreate')!.register).toBe(false);
    expect(d.hooks.get('MessageDisplay')!.register).toBe(false);
  });

  it('every hook answers the neutral empty reply and exit 0 when nothing is decided', async () => {
    const m = new Mapper(d);
    for (const hook of [...d.hooks.keys(), 'SomeFutureHook']) {
      const r = await m.map(undefined, base(hook, { tool_name: 'Bash', tool_input: BASH, tool_response: {}, tool_use_id: 't', prompt: 'p', source: 'startup', reason: 'other', trigger: 'auto', notification_type: 'idle_prompt', message: 'm', mcp_server_name: 's', mode: 'form', requested_schema: { type: 'object', properties: {} }, agent_id: 'a', agent_type: 'Explore', task_id: 'k', teammate_name: 'n', error: 'unknown' }));
      expect(r.reply, hook).toBe('');
      expect(r.exitCode, hook).toBe(0);
    }
  });

  it('the three documented deviations are stated', () => {
    expect(d.hooks.get('PreCompact')!.deviation).toBeTruthy();
    expect(d.deviations.join('\n')).toMatch(/AskUserQuestion/);
    expect(d.deviations.join('\n')).toMatch(/permission_prompt/);
  });
});
