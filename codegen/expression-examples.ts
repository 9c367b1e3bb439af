// One example per binding and per function a descriptor expression can use
// (docs/reference/expressions.md is generated from these). Every example is
// executed: `hookmap docs` renders what it evaluates to, and
// test/cli/expression-examples.test.ts holds that equal to `result` (or the
// error code in `throws`), as Redpanda Connect tests its Bloblang examples.
import { EXPR_FUNCTIONS } from '../engine/core/expr/functions.ts';

export interface Example {
  /** The binding or function it shows (without `$`). */
  name: string;
  /** JSONata, as written after the `=` mark. */
  expr: string;
  /** The hook payload it runs against. */
  input?: unknown;
  /** The engine bindings in effect (values the mapper or daemon would bind). */
  bindings?: Record<string, unknown>;
  /** What it yields; undefined: nothing (a template key holding it is dropped). */
  result?: unknown;
  /** Or the JSONata error code it raises. */
  throws?: string;
}

/** The engine's functions (engine/core/expr/functions.ts): what each does. */
export const ENGINE_FUNCTION_DOCS: Record<keyof typeof EXPR_FUNCTIONS, string> = {
  snake: 'snake_case a hook or field name (PreToolUse -> pre_tool_use); undefined for a non-string',
  token: 'a token safe inside an AEP type segment ([a-z0-9_]); undefined when nothing is left',
  digest: 'the AEP digest of any value (the `*_digest` fields: correlation without content); undefined stays undefined',
  hash:
    'a short id: the first 12 hex of the SHA-256 of a string (anything else: of its JSON, so `[a, b]` derives one id from several fields); ' +
    'undefined, null and "" stay undefined',
  nonempty: 'the value, or undefined when it is undefined, null, "", [] or {} (so the key is dropped)',
  isarray: 'is the value an array',
  isobject: 'is the value an object (not an array, not null)',
  isstring: 'is the value a string',
  parsejson: 'the JSON value a string holds, or undefined when it holds none (never an error)',
};

export const ENGINE_FUNCTION_EXAMPLES: Example[] = [
  { name: 'snake', expr: '"x.codex.session." & $snake(hook_event_name)', input: { hook_event_name: 'PostCompact' }, result: 'x.codex.session.post_compact' },
  { name: 'token', expr: '$token("Tool Use!")', result: 'tool_use' },
  { name: 'digest', expr: '$digest(tool_input)', input: { tool_input: { command: 'ls' } }, result: '4cf29611a66934862f29acfcc817e30b' },
  { name: 'hash', expr: '$hash([agent_id, working_directory])', input: { agent_id: 'agent-1', working_directory: '/home/me/app' }, result: '689ac66dd171' },
  { name: 'nonempty', expr: '{ "error": $nonempty(error), "kept": $nonempty(status) }', input: { error: '', status: 'ok' }, result: { kept: 'ok' } },
  {
    name: 'isarray',
    expr: '$isarray(tool_input.command) ? $join(tool_input.command, " ") : tool_input.command',
    input: { tool_input: { command: ['git', 'status'] } },
    result: 'git status',
  },
  { name: 'isobject', expr: '$isobject(tool_response) ? tool_response : { "value": tool_response }', input: { tool_response: 42 }, result: { value: 42 } },
  { name: 'isstring', expr: '$isstring(error.name) ? error.name : "error"', input: { error: { name: 7 } }, result: 'error' },
  { name: 'parsejson', expr: '$parsejson(result).status', input: { result: '{"status":"ok"}' }, result: 'ok' },
];

/** JSONata's built-ins, one line each (the JSONata documentation has the rest). */
export const JSONATA_EXAMPLES: Example[] = [
  { name: 'sum', expr: '$sum([1, 2, 3])', result: 6 },
  { name: 'count', expr: '$count(items)', input: { items: ['a', 'b'] }, result: 2 },
  { name: 'max', expr: '$max([3, 7, 5])', result: 7 },
  { name: 'min', expr: '$min([3, 7, 5])', result: 3 },
  { name: 'average', expr: '$average([2, 4])', result: 3 },
  { name: 'string', expr: '$string(turnIndex)', input: { turnIndex: 3 }, result: '3' },
  { name: 'substring', expr: '$substring("PreToolUse", 3)', result: 'ToolUse' },
  { name: 'substringBefore', expr: '$substringBefore(hook, "#")', input: { hook: 'session/prompt#response' }, result: 'session/prompt' },
  { name: 'substringAfter', expr: '$substringAfter(hook, "#")', input: { hook: 'session/prompt#response' }, result: 'response' },
  { name: 'lowercase', expr: '$lowercase("Bash")', result: 'bash' },
  { name: 'uppercase', expr: '$uppercase("bash")', result: 'BASH' },
  { name: 'length', expr: '$length("hook")', result: 4 },
  { name: 'trim', expr: '$trim("  a   b ")', result: 'a b' },
  { name: 'pad', expr: '$pad("7", -3, "0")', result: '007' },
  { name: 'match', expr: '$match("a1b22", /[0-9]+/).match', result: ['1', '22'] },
  { name: 'contains', expr: '$contains(command, "rm -rf")', input: { command: 'rm -rf build' }, result: true },
  { name: 'replace', expr: '$replace("a-b-c", "-", "_")', result: 'a_b_c' },
  { name: 'split', expr: '$split("Bash,Edit", ",")', result: ['Bash', 'Edit'] },
  { name: 'join', expr: '$join(["git", "status"], " ")', result: 'git status' },
  { name: 'formatNumber', expr: '$formatNumber(1234.5, "#,##0.0")', result: '1,234.5' },
  { name: 'formatBase', expr: '$formatBase(255, 16)', result: 'ff' },
  { name: 'formatInteger', expr: '$formatInteger(3, "w")', result: 'three' },
  { name: 'parseInteger', expr: '$parseInteger("twelve", "w")', result: 12 },
  { name: 'number', expr: '$number("5") + 1', result: 6 },
  { name: 'floor', expr: '$floor(2.7)', result: 2 },
  { name: 'ceil', expr: '$ceil(2.1)', result: 3 },
  { name: 'round', expr: '$round(duration_ms)', input: { duration_ms: 12.6 }, result: 13 },
  { name: 'abs', expr: '$abs(-3)', result: 3 },
  { name: 'sqrt', expr: '$sqrt(16)', result: 4 },
  { name: 'power', expr: '$power(2, 10)', result: 1024 },
  { name: 'random', expr: '$random() < 1', result: true },
  { name: 'boolean', expr: '$boolean("")', result: false },
  { name: 'not', expr: '$not(mode = "url")', input: { mode: 'form' }, result: true },
  { name: 'map', expr: '$map(questions, function($q, $i) { $string($i + 1) })', input: { questions: [{}, {}] }, result: ['1', '2'] },
  {
    name: 'zip',
    expr: '$zip([1, 2], ["a", "b"])',
    result: [
      [1, 'a'],
      [2, 'b'],
    ],
  },
  {
    name: 'filter',
    expr: '$filter(todos, function($t) { $t.status = "done" }).id',
    input: {
      todos: [
        { id: 'a', status: 'done' },
        { id: 'b', status: 'open' },
      ],
    },
    result: 'a',
  },
  { name: 'single', expr: '$single([1, 2, 3], function($v) { $v = 2 })', result: 2 },
  { name: 'reduce', expr: '$reduce([1, 2, 3], function($acc, $v) { $acc + $v })', result: 6 },
  { name: 'sift', expr: '$sift({ "a": 1, "b": null }, function($v) { $v != null })', result: { a: 1 } },
  { name: 'keys', expr: '$keys(schema.properties)', input: { schema: { properties: { env: {}, replicas: {} } } }, result: ['env', 'replicas'] },
  { name: 'lookup', expr: '$lookup(answers, "1")', input: { answers: { 1: 'SQLite' } }, result: 'SQLite' },
  { name: 'append', expr: '$append([], tags)', input: { tags: 'one' }, result: ['one'] },
  { name: 'exists', expr: '$exists(tool_use_id)', input: {}, result: false },
  { name: 'spread', expr: '$spread({ "a": 1, "b": 2 })', result: [{ a: 1 }, { b: 2 }] },
  { name: 'merge', expr: '$merge([tool_input, { "answers": {} }])', input: { tool_input: { q: 1 } }, result: { q: 1, answers: {} } },
  { name: 'reverse', expr: '$reverse([1, 2])', result: [2, 1] },
  { name: 'each', expr: '$each(env, function($v, $k) { $k & "=" & $v })', input: { env: { CI: 'true' } }, result: 'CI=true' },
  { name: 'error', expr: '$error("no such tool")', throws: 'D3137' },
  { name: 'assert', expr: '$assert(true, "never raised")' },
  { name: 'type', expr: '$type(duration_ms) = "number"', input: { duration_ms: 3 }, result: true },
  { name: 'sort', expr: '$sort([3, 1, 2])', result: [1, 2, 3] },
  { name: 'shuffle', expr: '$count($shuffle([1, 2, 3]))', result: 3 },
  { name: 'distinct', expr: '$distinct(["a", "a", "b"])', result: ['a', 'b'] },
  { name: 'base64encode', expr: '$base64encode("hi")', result: 'aGk=' },
  { name: 'base64decode', expr: '$base64decode("aGk=")', result: 'hi' },
  { name: 'encodeUrlComponent', expr: '$encodeUrlComponent("a b&c")', result: 'a%20b%26c' },
  { name: 'encodeUrl', expr: '$encodeUrl("https://x.test/a b")', result: 'https://x.test/a%20b' },
  { name: 'decodeUrlComponent', expr: '$decodeUrlComponent("a%20b%26c")', result: 'a b&c' },
  { name: 'decodeUrl', expr: '$decodeUrl("https://x.test/a%20b")', result: 'https://x.test/a b' },
  { name: 'eval', expr: '$eval("1 + 2")', result: 3 },
  { name: 'toMillis', expr: '$toMillis("1970-01-01T00:00:01.000Z")', result: 1000 },
  { name: 'fromMillis', expr: '$fromMillis(1000)', result: '1970-01-01T00:00:01.000Z' },
  { name: 'clone', expr: '$clone({ "a": 1 })', result: { a: 1 } },
  { name: 'now', expr: '$type($now())', result: 'string' },
  { name: 'millis', expr: '$millis() > 0', result: true },
];

/** One example per engine binding (engine/core/expr/bindings.ts), with the values the engine would bind. */
export const BINDING_EXAMPLES: Example[] = [
  { name: 'hook', expr: '"x.codex.session." & $snake($hook)', bindings: { hook: 'PostCompact' }, result: 'x.codex.session.post_compact' },
  { name: 'agent', expr: '$agent & " asks a question"', bindings: { agent: 'hermes' }, result: 'hermes asks a question' },
  {
    name: 'config',
    expr: '$config.gate = true and tool_name in $config.gate_tools',
    input: { tool_name: 'Bash' },
    bindings: { config: { gate: true, gate_tools: ['Bash'] } },
    result: true,
  },
  {
    name: 'surface',
    expr: '"acp:" & $surface.connection & ":" & $string(id)',
    input: { id: 2 },
    bindings: { surface: { connection: 'c1' } },
    result: 'acp:c1:2',
  },
  {
    name: 'known_session',
    expr: 'sid ? sid : $known_session(key) ? key : "unknown"',
    input: { sid: '', key: 'gw:42' },
    bindings: { known_session: (id: unknown) => id === 'gw:42' },
    result: 'gw:42',
  },
  { name: 'session', expr: '{ "sessionId": $session }', bindings: { session: 's1' }, result: { sessionId: 's1' } },
  { name: 'first_sight', expr: '$first_sight ? "startup" : "resume"', bindings: { first_sight: true }, result: 'startup' },
  { name: 'run', expr: '$command.run = $run', bindings: { run: 'r1', command: { run: 'r1' } }, result: true },
  { name: 'run_open', expr: '$not($run_open and prompt = "")', input: { prompt: '' }, bindings: { run_open: true }, result: false },
  { name: 'run_start', expr: '$run_start', bindings: { run_start: '01HSTART' }, result: '01HSTART' },
  { name: 'previous', expr: '$previous', bindings: { previous: '01HPREV' }, result: '01HPREV' },
  { name: 'first', expr: '$first', bindings: { first: '01HFIRST' }, result: '01HFIRST' },
  { name: 'prev', expr: '$prev.status != status', input: { status: 'completed' }, bindings: { prev: { status: 'in_progress' } }, result: true },
  { name: 'id', expr: '$id', bindings: { id: 'td_1' }, result: 'td_1' },
  {
    name: 'events',
    expr: '$events[type = "attention.requested"][0].id',
    bindings: {
      events: [
        { id: 'e1', type: 'tool.requested' },
        { id: 'e2', type: 'attention.requested' },
      ],
    },
    result: 'e2',
  },
  { name: 'event_id', expr: '$event_id', bindings: { event_id: 'e1' }, result: 'e1' },
  { name: 'option', expr: '$option = "deny"', bindings: { option: 'deny' }, result: true },
  {
    name: 'text',
    expr: '{ "permission": "deny", "user_message": $text }',
    bindings: { text: 'use the test database' },
    result: { permission: 'deny', user_message: 'use the test database' },
  },
  {
    name: 'reason',
    expr: '{ "decision": "block", "reason": $reason }',
    bindings: { reason: 'the tests are failing' },
    result: { decision: 'block', reason: 'the tests are failing' },
  },
  { name: 'verb', expr: '$verb = "cancel" ? { "continue": false } : {}', bindings: { verb: 'cancel' }, result: { continue: false } },
  {
    name: 'values',
    expr: '$values.message ? { "followup_message": $values.message } : {}',
    bindings: { values: { message: 'run the tests' } },
    result: { followup_message: 'run the tests' },
  },
  { name: 'answer', expr: '$answer.text', bindings: { answer: { text: 'no' } }, result: 'no' },
  { name: 'request', expr: '$request.subject', bindings: { request: { subject: 'Bash' } }, result: 'Bash' },
  {
    name: 'always',
    expr: '$always.match = "prefix" ? $always.prefix & ":*" : $always.command',
    bindings: { always: { match: 'prefix', prefix: 'npm test', scope: 'project' } },
    result: 'npm test:*',
  },
  { name: 'command', expr: '$command.data.scope', bindings: { command: { data: { scope: 'run' } } }, result: 'run' },
  { name: 'data', expr: '$data.scope', bindings: { data: { scope: 'session' } }, result: 'session' },
  { name: 'home', expr: '$home & "/.codex/sessions"', bindings: { home: '/home/dev' }, result: '/home/dev/.codex/sessions' },
];
