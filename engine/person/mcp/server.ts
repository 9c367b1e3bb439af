// `hookmap mcp`: an MCP server (stdio, @modelcontextprotocol/sdk) giving the
// model AEP's LLM-fired emit path (AEP-0001 §9; the AEP reference's
// docs/components/aep-mcp.md) with two tools:
//
//   ask_human   attention.requested in the agent's session; the call blocks
//               until a human answers (hookmap answer --text / --option, or
//               any AEP consumer's control.attention.respond) and returns the
//               answer, or says nobody answered (timeout, dismissal).
//   emit_event  one model-authored event (never control.*; never the
//               session/run/attention lifecycles the daemon owns).
//
// The server holds no event state: both tools call the daemon that serves
// the agent's hooks (engine/runtime/daemon/tool-routes.ts), so the envelopes are the
// daemon's own (same session log, same (epoch, seq), same capture gate).
// The session is found by the daemon from the agent's own announcement of
// the call (its pre-tool hook) unless --session / HOOKMAP_SESSION names it.
import http from 'node:http';
import https from 'node:https';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { MAX_ASK_TIMEOUT_MS, MAX_OPTIONS, MAX_QUESTION } from '../../runtime/daemon/asks.ts';

export interface McpOptions {
  /** The daemon (hookmap up or serve) base URL. */
  url: string;
  token?: string;
  agent: string;
  session?: string;
  /** ask_human's wait when the model does not say (ms). */
  timeoutMs?: number;
  version?: string;
  /** Progress notifications while an ask waits (keeps a client's request timeout from firing), ms. */
  progressEveryMs?: number;
}

export interface PostResult {
  status: number;
  body: any;
}

/** POST JSON to the daemon without a client-side timeout (an ask waits as long as its own timeout says). */
export function postJson(url: string, token: string | undefined, body: unknown, signal?: AbortSignal): Promise<PostResult> {
  const u = new URL(url);
  const mod = u.protocol === 'https:' ? https : http;
  const data = Buffer.from(JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const req = mod.request(
      u,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': data.length, ...(token ? { authorization: `Bearer ${token}` } : {}) },
        signal,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown;
          try {
            parsed = JSON.parse(text);
          } catch {
            parsed = { error: 'bad-reply', message: text.slice(0, 300) };
          }
          resolve({ status: res.statusCode ?? 0, body: parsed });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(data);
  });
}

const textResult = (text: string, isError = false, structured?: Record<string, unknown>): CallToolResult => ({
  content: [{ type: 'text', text }],
  ...(structured ? { structuredContent: structured } : {}),
  ...(isError ? { isError: true } : {}),
});

/** The words the model reads for a daemon refusal or an unreachable daemon. */
function refusal(what: string, r: PostResult | Error): CallToolResult {
  if (r instanceof Error) return textResult(`${what} failed: hookmap is not reachable (${r.message}). Continue without it.`, true);
  const code = r.body?.error ?? `http-${r.status}`;
  return textResult(`${what} refused [${code}]: ${r.body?.message ?? 'no detail'}`, true);
}

/** What the model reads for an ask's answer (text first: it is what the human typed). */
export function describeAnswer(a: Record<string, any>): string {
  if (a.status !== 'answered') return `No human answered (${a.why ?? 'no answer'}). Decide on your own or ask again later.`;
  const parts: string[] = [];
  if (a.option !== undefined) parts.push(`The human chose option ${a.option}${a.label ? ` ("${a.label}")` : ''}.`);
  if (a.text !== undefined) parts.push(`The human answered: ${a.text}`);
  return parts.join(' ') || 'The human answered without text.';
}

export function createMcpServer(o: McpOptions): McpServer {
  const base = `${o.url.replace(/\/+$/, '')}/mcp/${encodeURIComponent(o.agent)}`;
  const server = new McpServer({ name: 'hookmap', version: o.version ?? '0' }, { capabilities: { tools: {} } });

  server.registerTool(
    'ask_human',
    {
      title: 'Ask the human',
      description:
        'Ask the human supervising this session a question and wait for the answer (they may be away from the terminal: it reaches them through hookmap). ' +
        'Use it when you need a decision or information only they have. Returns their answer, or says nobody answered in time.',
      inputSchema: {
        question: z.string().min(1).max(MAX_QUESTION).describe('The question, self-contained: the human may not see the rest of the conversation.'),
        options: z.array(z.string().min(1).max(200)).max(MAX_OPTIONS).optional().describe('Suggested answers; the human may still answer in their own words.'),
        timeout_seconds: z
          .number()
          .int()
          .min(1)
          .max(MAX_ASK_TIMEOUT_MS / 1000)
          .optional()
          .describe('How long to wait for the answer.'),
      },
    },
    async (args, extra) => {
      const timeout = args.timeout_seconds !== undefined ? args.timeout_seconds * 1000 : o.timeoutMs;
      const body = { question: args.question, options: args.options, session: o.session, timeout_ms: timeout };
      // progress while waiting, when the client asked for it: its request timeout restarts on each
      const token = extra._meta?.progressToken;
      let n = 0;
      const tick =
        token === undefined
          ? undefined
          : setInterval(() => {
              void extra
                .sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: ++n, message: 'waiting for the human' } })
                .catch(() => {});
            }, o.progressEveryMs ?? 15_000);
      try {
        const r = await postJson(`${base}/ask_human`, o.token, body, extra.signal);
        if (r.status !== 200) return refusal('ask_human', r);
        return textResult(describeAnswer(r.body), r.body.status !== 'answered', r.body);
      } catch (e) {
        if (extra.signal.aborted) return textResult('ask_human was cancelled.', true);
        return refusal('ask_human', e as Error);
      } finally {
        if (tick) clearInterval(tick);
      }
    },
  );

  server.registerTool(
    'emit_event',
    {
      title: 'Emit an AEP event',
      description:
        'Record a milestone a supervisor would act on (AEP event: a registered type such as artifact.created, or x.<agent>.<area>.<name>). ' +
        'Do not repeat what your tools and hooks already report; commands (control.*) and session/run/attention lifecycles are refused.',
      inputSchema: {
        type: z.string().min(1).max(200).describe('The AEP event type.'),
        data: z.record(z.string(), z.unknown()).optional().describe("The event's payload (its type's schema)."),
        subject: z.string().max(512).optional(),
        severity: z.enum(['debug', 'info', 'notice', 'warning', 'error', 'critical']).optional(),
      },
    },
    async (args) => {
      try {
        const r = await postJson(`${base}/emit_event`, o.token, { ...args, session: o.session });
        if (r.status !== 200) return refusal('emit_event', r);
        return textResult(`emitted ${r.body.type} ${r.body.id} (session ${r.body.session}, seq ${r.body.seq})`, false, r.body);
      } catch (e) {
        return refusal('emit_event', e as Error);
      }
    },
  );
  return server;
}
