// The baseline: a hand-written TypeScript mapping of the Codex hooks, the way
// an adapter without a descriptor engine would do it. Same output as
// vendors/codex.yaml at the default posture (checked before timing).
import { aepDigest } from '../../engine/core/capture/canonical.ts';
import { Redactor } from '../../engine/core/capture/redact.ts';
import { buildEnvelope, type AepEvent } from '../../engine/core/map/envelope.ts';

const redactor = new Redactor();

const seqs = new Map<string, number>();
function env(
  host: string,
  p: any,
  type: string,
  data: Record<string, unknown>,
  subject?: string,
  capture = 'metadata',
  extensions?: Record<string, string>,
): AepEvent {
  const session = String(p.session_id);
  const seq = seqs.get(session) ?? 0;
  seqs.set(session, seq + 1);
  return buildEnvelope({ type, subject, host, agent: 'codex', session, run: p.turn_id, seq, epoch: 0, capture: capture as any, data, extensions });
}
const snake = (s: string) => s.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();

export function mapCodexByHand(host: string, p: any): AepEvent[] {
  const tool = () => (p.tool_use_id === undefined ? { name: p.tool_name } : { name: p.tool_name, call_id: p.tool_use_id });
  switch (p.hook_event_name) {
    case 'SessionStart': {
      const data: Record<string, unknown> = { client: { name: 'codex' } };
      if (p.source !== undefined) data.trigger = p.source;
      if (p.model !== undefined) data['gen_ai.request.model'] = p.model;
      // the project label (the working folder's name) the engine puts on session.started
      const project = typeof p.cwd === 'string' && p.cwd ? p.cwd.replace(/\/+$/, '').split('/').pop() : undefined;
      return [env(host, p, 'session.started', data, undefined, 'metadata', project ? { hookmapproject: project } : undefined)];
    }
    case 'UserPromptSubmit':
      return [env(host, p, 'run.started', { trigger: 'user' })];
    case 'Stop':
      return [env(host, p, 'run.finished', {})];
    case 'PreToolUse':
      return [env(host, p, 'tool.requested', { tool: tool(), args_digest: aepDigest(p.tool_input) }, p.tool_name)];
    case 'PostToolUse':
      return [env(host, p, 'tool.completed', { tool: tool(), result_digest: aepDigest(p.tool_response) }, p.tool_name)];
    case 'PermissionRequest': {
      const cmd = p.tool_input?.command;
      let prompt = `Permission requested: ${p.tool_name}`;
      if (cmd !== undefined) prompt += ` — ${Array.isArray(cmd) ? cmd.join(' ') : cmd}`;
      if (p.tool_input?.description !== undefined) prompt += ` (${p.tool_input.description})`;
      return [
        env(
          host,
          p,
          'attention.requested',
          {
            kind: 'permission',
            prompt: redactor.text(prompt),
            options: [
              { id: 'allow', label: 'Allow' },
              { id: 'deny', label: 'Deny' },
            ],
            respond_via: ['control'],
          },
          p.tool_name,
          'redacted',
        ),
      ];
    }
    case 'SubagentStart':
      return [env(host, p, 'delegation.subagent.started', p.agent_type === undefined ? {} : { agent_type: p.agent_type }, p.agent_id)];
    case 'SubagentStop':
      return [env(host, p, 'delegation.subagent.stopped', {}, p.agent_id)];
    case 'PreCompact':
      return [];
    case 'PostCompact':
      return [env(host, p, 'session.compacted', p.trigger === undefined ? {} : { trigger: p.trigger })];
    default:
      return [env(host, p, `x.codex.session.${snake(p.hook_event_name)}`, {})];
  }
}
