// A scripted model server for the live suite: no model, no network, loopback
// only. It speaks just enough of each API family the agents use:
//   - Anthropic Messages (POST /v1/messages, SSE or JSON; count_tokens)    Claude Code
//   - OpenAI Responses (POST /v1/responses, SSE)                           Codex
//   - OpenAI Chat Completions (POST /v1/chat/completions, SSE or JSON)     Qwen Code, OpenCode, pi
//   - Gemini generateContent / streamGenerateContent                       Gemini CLI
// What the "model" does is a scenario: a list of steps (call this tool with
// these args, then say this). The step answered is the number of tool results
// already in the conversation, so a retry or a side request (a title, a
// summary: any request that offers no tools) never advances the script.
// Every request is recorded, so a test asserts what the model was told.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Step =
  /** namespace: the Responses API's tool namespace (Codex offers an MCP server's tools as namespace `mcp__<server>`). */
  { tool: string; args: Record<string, unknown>; namespace?: string } | { say: string };

export interface Scenario {
  name: string;
  steps: Step[];
  /** Text for requests that are not the main loop (no tools offered). */
  aside?: string;
  /** Sub-agents' own scripts: a conversation whose first user message holds `match` (the prompt the main loop gave it) follows `steps`. */
  agents?: { match: string; steps: Step[] }[];
}

export interface Seen {
  at: number;
  method: string;
  path: string;
  family: Family | 'other';
  body: any;
  /** The step index this request was answered with (main-loop requests only). */
  step?: number;
  /** The sub-agent script it was answered from (its `match`), when not the main one. */
  agent?: string;
  /** The token usage this response reported, when known usage was asked for (reportUsage). */
  usage?: KnownUsage;
  /** Refused 429 (rateLimit). */
  limited?: boolean;
}

/** Token usage a response reports (input: every input token, cached ones included, as OpenTelemetry counts). */
export interface KnownUsage {
  input: number;
  output: number;
  cache_read: number;
  cache_write: number;
  reasoning: number;
}

export type Family = 'anthropic' | 'responses' | 'chat' | 'gemini';

export interface ModelServer {
  url: string;
  requests: Seen[];
  /** Replace the script (one scenario at a time). */
  play(s: Scenario): void;
  /** Requests of the main loop (tools offered) since the last play(). */
  main(): Seen[];
  /** From now on every response reports this usage, plus the request's number to its input (so no two are alike); undefined: the fixed defaults. */
  reportUsage(u: KnownUsage | undefined): void;
  /** The next `n` main-loop requests (any family) are refused 429 in that API's documented error shape, with retry-after (s) when given. */
  rateLimit(n: number, retryAfterS?: number): void;
  close(): Promise<void>;
}

const sse = (res: ServerResponse) => {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  return (event: string | undefined, data: unknown) => {
    res.write(`${event ? `event: ${event}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);
  };
};

let idn = 0;
const nid = (p: string) => `${p}_${Date.now().toString(36)}${(++idn).toString(36)}`;

export const FAMILIES: readonly Family[] = ['anthropic', 'responses', 'chat', 'gemini'];

export interface ModelServerOptions {
  log?: (l: string) => void;
  /** Only these API families answer (the others 404): an author checks which one the agent speaks. Default: all. */
  families?: readonly Family[];
  /** Port on 127.0.0.1 (default: any free one). */
  port?: number;
}

export async function startModelServer(opts: ModelServerOptions = {}): Promise<ModelServer> {
  const requests: Seen[] = [];
  let scenario: Scenario = { name: 'idle', steps: [{ say: 'ok' }] };
  let since = 0;
  let known: KnownUsage | undefined;
  let limited = 0;
  let retryAfter: number | undefined;
  /** The usage of the next response (recorded on its request), or undefined for the defaults. */
  const nextUsage = (seen: Seen): KnownUsage | undefined => {
    if (!known) return undefined;
    const u = { ...known, input: known.input + requests.length };
    seen.usage = u;
    return u;
  };

  const stepFor = (toolResults: number, steps = scenario.steps): Step => steps[Math.min(toolResults, steps.length - 1)] ?? { say: 'ok' };
  /** A sub-agent's script when the conversation's first user message holds its match (Anthropic messages). */
  const agentOf = (msgs: any[]): { match: string; steps: Step[] } | undefined => {
    const first = msgs.find((m) => m?.role === 'user');
    const text =
      typeof first?.content === 'string' ? first.content : (Array.isArray(first?.content) ? first.content : []).map((c: any) => c?.text ?? '').join('\n');
    return scenario.agents?.find((a) => text.includes(a.match));
  };

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      let body: any;
      const raw = Buffer.concat(chunks).toString('utf8');
      try {
        body = raw ? JSON.parse(raw) : undefined;
      } catch {
        body = raw;
      }
      try {
        route(req, res, body);
      } catch (e) {
        opts.log?.(`model: ${req.method} ${req.url}: ${(e as Error).stack}`);
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: String(e) } }));
      }
    });
  });

  function route(req: IncomingMessage, res: ServerResponse, body: any) {
    const path = (req.url ?? '/').split('?')[0];
    const seen: Seen = { at: Date.now(), method: req.method ?? 'GET', path, family: 'other', body };
    requests.push(seen);
    opts.log?.(`model: ${req.method} ${req.url}`);
    const on = (f: Family) => req.method === 'POST' && (!opts.families || opts.families.includes(f));
    if (on('anthropic') && /\/messages\/count_tokens$/.test(path)) return json(res, { input_tokens: 42 });
    if (on('anthropic') && /\/messages$/.test(path)) return anthropic(res, body, seen);
    if (on('responses') && /\/responses$/.test(path)) return responses(res, body, seen);
    if (on('chat') && /\/chat\/completions$/.test(path)) return chat(res, body, seen);
    if (on('gemini') && /:(stream)?[gG]enerateContent$/.test(path)) return gemini(res, body, seen, /:stream/.test(path));
    if (on('gemini') && /:countTokens$/.test(path)) return json(res, { totalTokens: 42 });
    if (req.method === 'GET' && /\/models$/.test(path))
      return json(res, { object: 'list', data: [{ id: 'scripted', object: 'model', created: 0, owned_by: 'hookmap' }], models: [] });
    json(res, { error: { type: 'not_found_error', message: `scripted model server: no ${req.method} ${path}` } }, 404);
  }

  const json = (res: ServerResponse, v: unknown, status = 200) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(v));
  };

  /** Each API's documented 429 body: the agent sees a rate limit, not an answer. */
  const REFUSAL: Record<Family, unknown> = {
    // docs.anthropic.com/en/api/errors
    anthropic: { type: 'error', error: { type: 'rate_limit_error', message: 'scripted model server: rate limited' } },
    // platform.openai.com/docs/guides/error-codes (Responses and Chat Completions alike)
    responses: { error: { message: 'scripted model server: rate limited', type: 'requests', param: null, code: 'rate_limit_exceeded' } },
    chat: { error: { message: 'scripted model server: rate limited', type: 'requests', param: null, code: 'rate_limit_exceeded' } },
    // ai.google.dev/gemini-api/docs/troubleshooting (google.rpc.Status)
    gemini: { error: { code: 429, message: 'scripted model server: rate limited', status: 'RESOURCE_EXHAUSTED' } },
  };
  /** Refuse this main-loop request 429 when rateLimit asked for it; true when refused. */
  const refuse = (res: ServerResponse, seen: Seen): boolean => {
    if (limited <= 0 || seen.family === 'other') return false;
    limited--;
    seen.limited = true;
    res.writeHead(429, { 'content-type': 'application/json', ...(retryAfter !== undefined ? { 'retry-after': String(retryAfter) } : {}) });
    res.end(JSON.stringify(REFUSAL[seen.family]));
    return true;
  };

  // ---- Anthropic Messages
  function anthropic(res: ServerResponse, body: any, seen: Seen) {
    seen.family = 'anthropic';
    const tools: any[] = body?.tools ?? [];
    const msgs: any[] = body?.messages ?? [];
    const results = msgs.flatMap((m) => (Array.isArray(m.content) ? m.content : [])).filter((c: any) => c?.type === 'tool_result').length;
    const isMain = tools.length > 0;
    if (isMain && refuse(res, seen)) return;
    const sub = isMain ? agentOf(msgs) : undefined;
    const steps = sub?.steps ?? scenario.steps;
    const step: Step = isMain ? stepFor(results, steps) : { say: scenario.aside ?? 'ok' };
    if (isMain) seen.step = Math.min(results, steps.length - 1);
    if (sub) seen.agent = sub.match;
    const model = body?.model ?? 'claude-scripted';
    const id = nid('msg');
    const ku = nextUsage(seen);
    const usage = ku
      ? {
          input_tokens: ku.input - ku.cache_read - ku.cache_write,
          output_tokens: ku.output,
          cache_creation_input_tokens: ku.cache_write,
          cache_read_input_tokens: ku.cache_read,
        }
      : { input_tokens: 10, output_tokens: 5, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
    const block = 'tool' in step ? { type: 'tool_use', id: nid('toolu'), name: step.tool, input: step.args } : { type: 'text', text: step.say };
    const stop = 'tool' in step ? 'tool_use' : 'end_turn';
    if (!body?.stream) return json(res, { id, type: 'message', role: 'assistant', model, content: [block], stop_reason: stop, stop_sequence: null, usage });
    const send = sse(res);
    send('message_start', {
      type: 'message_start',
      message: { id, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: 1 } },
    });
    if (block.type === 'tool_use') {
      send('content_block_start', {
        type: 'content_block_start',
        index: 0,
        content_block: { type: 'tool_use', id: (block as any).id, name: (block as any).name, input: {} },
      });
      send('content_block_delta', {
        type: 'content_block_delta',
        index: 0,
        delta: { type: 'input_json_delta', partial_json: JSON.stringify((block as any).input) },
      });
    } else {
      send('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
      send('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: (block as any).text } });
    }
    send('content_block_stop', { type: 'content_block_stop', index: 0 });
    send('message_delta', { type: 'message_delta', delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: usage.output_tokens } });
    send('message_stop', { type: 'message_stop' });
    res.end();
  }

  // ---- OpenAI Responses
  function responses(res: ServerResponse, body: any, seen: Seen) {
    seen.family = 'responses';
    const tools: any[] = body?.tools ?? [];
    const input: any[] = Array.isArray(body?.input) ? body.input : [];
    const results = input.filter(
      (i) => i?.type === 'function_call_output' || i?.type === 'custom_tool_call_output' || i?.type === 'local_shell_call_output',
    ).length;
    const isMain = tools.length > 0;
    if (isMain && refuse(res, seen)) return;
    const step: Step = isMain ? stepFor(results) : { say: scenario.aside ?? 'ok' };
    if (isMain) seen.step = Math.min(results, scenario.steps.length - 1);
    const id = nid('resp');
    const item =
      'tool' in step
        ? {
            type: 'function_call',
            id: nid('fc'),
            call_id: nid('call'),
            name: step.tool,
            ...(step.namespace ? { namespace: step.namespace } : {}),
            arguments: JSON.stringify(step.args),
            status: 'completed',
          }
        : { type: 'message', id: nid('msg'), role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: step.say, annotations: [] }] };
    const ku = nextUsage(seen);
    const usage = ku
      ? {
          input_tokens: ku.input,
          input_tokens_details: { cached_tokens: ku.cache_read },
          output_tokens: ku.output,
          output_tokens_details: { reasoning_tokens: ku.reasoning },
          total_tokens: ku.input + ku.output,
        }
      : { input_tokens: 10, input_tokens_details: { cached_tokens: 0 }, output_tokens: 5, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 15 };
    const response = {
      id,
      object: 'response',
      created_at: Math.floor(Date.now() / 1000),
      status: 'completed',
      model: body?.model ?? 'scripted',
      output: [item],
      usage,
    };
    if (body?.stream === false) return json(res, response);
    const send = sse(res);
    send('response.created', { type: 'response.created', response: { ...response, status: 'in_progress', output: [] } });
    send('response.output_item.added', { type: 'response.output_item.added', output_index: 0, item });
    if (item.type === 'message')
      send('response.output_text.delta', { type: 'response.output_text.delta', item_id: item.id, output_index: 0, content_index: 0, delta: (step as any).say });
    send('response.output_item.done', { type: 'response.output_item.done', output_index: 0, item });
    send('response.completed', { type: 'response.completed', response });
    res.end();
  }

  // ---- OpenAI Chat Completions
  function chat(res: ServerResponse, body: any, seen: Seen) {
    seen.family = 'chat';
    const tools: any[] = body?.tools ?? [];
    const msgs: any[] = body?.messages ?? [];
    const results = msgs.filter((m) => m?.role === 'tool').length;
    const isMain = tools.length > 0;
    if (isMain && refuse(res, seen)) return;
    const step: Step = isMain ? stepFor(results) : { say: scenario.aside ?? 'ok' };
    if (isMain) seen.step = Math.min(results, scenario.steps.length - 1);
    const id = nid('chatcmpl');
    const model = body?.model ?? 'scripted';
    const created = Math.floor(Date.now() / 1000);
    const call = 'tool' in step ? { id: nid('call'), type: 'function', function: { name: step.tool, arguments: JSON.stringify(step.args) } } : undefined;
    const finish = call ? 'tool_calls' : 'stop';
    const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };
    if (!body?.stream) {
      return json(res, {
        id,
        object: 'chat.completion',
        created,
        model,
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: call ? null : (step as any).say, ...(call ? { tool_calls: [call] } : {}) },
            finish_reason: finish,
          },
        ],
        usage,
      });
    }
    const send = sse(res);
    const chunk = (delta: unknown, finish_reason: string | null, extra: Record<string, unknown> = {}) =>
      send(undefined, { id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, finish_reason }], ...extra });
    chunk({ role: 'assistant', content: '' }, null);
    if (call) chunk({ tool_calls: [{ index: 0, ...call }] }, null);
    else chunk({ content: (step as any).say }, null);
    chunk({}, finish, { usage });
    send(undefined, '[DONE]');
    res.end();
  }

  // ---- Gemini generateContent
  function gemini(res: ServerResponse, body: any, seen: Seen, stream: boolean) {
    seen.family = 'gemini';
    const tools: any[] = (body?.tools ?? []).flatMap((t: any) => t?.functionDeclarations ?? []);
    const contents: any[] = body?.contents ?? [];
    const results = contents.flatMap((c) => c?.parts ?? []).filter((p: any) => p?.functionResponse).length;
    const isMain = tools.length > 0;
    if (isMain && refuse(res, seen)) return;
    const step: Step = isMain ? stepFor(results) : { say: scenario.aside ?? '{"reasoning":"scripted","next_speaker":"user"}' };
    if (isMain) seen.step = Math.min(results, scenario.steps.length - 1);
    const part = 'tool' in step ? { functionCall: { name: step.tool, args: step.args } } : { text: step.say };
    const out = {
      candidates: [{ content: { role: 'model', parts: [part] }, finishReason: 'STOP', index: 0 }],
      usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 },
      modelVersion: 'scripted',
    };
    if (!stream) return json(res, out);
    const send = sse(res);
    send(undefined, out);
    res.end();
  }

  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(opts.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    play(s) {
      scenario = s;
      since = requests.length;
    },
    main: () => requests.slice(since).filter((r) => r.step !== undefined),
    reportUsage(u) {
      known = u;
    },
    rateLimit(n, after) {
      limited = n;
      retryAfter = after;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}
