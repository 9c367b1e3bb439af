// A scripted stand-in for an ACP agent (tests and bench only): newline-
// delimited JSON-RPC on stdio, no model. It answers initialize, session/new
// and session/prompt; during a prompt it plays FAKE_ACP_SCRIPT (a JSON list
// of steps): {tool, status?} sends tool_call + tool_call_update completed,
// {permission, title?} asks session/request_permission and waits for the
// answer, {raw} writes those bytes verbatim, {exit} exits with that code,
// {sleep} waits (ms), {stderr} writes to stderr. session/cancel ends the
// running prompt with stopReason cancelled. `--echo` mode instead echoes
// every stdin line back on stdout (the bench's pass-through agent).
// FAKE_ACP_RECORD=<file> appends every line the agent received,
// FAKE_ACP_WROTE=<file> every byte it wrote on stdout.
import { appendFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

if (process.argv.includes('--echo')) {
  process.stdin.pipe(process.stdout);
} else {
  const script = JSON.parse(process.env.FAKE_ACP_SCRIPT || '[]');
  const write = (text) => {
    if (process.env.FAKE_ACP_WROTE) appendFileSync(process.env.FAKE_ACP_WROTE, text);
    process.stdout.write(text);
  };
  const out = (m) => write(`${JSON.stringify(m)}\n`);
  let next = 100;
  const waiting = new Map();
  let cancel;
  const rl = createInterface({ input: process.stdin, crlfDelay: Infinity });
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  async function prompt(m) {
    const sessionId = m.params.sessionId;
    let cancelled = false;
    let wake = () => {};
    cancel = () => {
      cancelled = true;
      wake();
    };
    for (const st of script) {
      if (cancelled) break;
      if (st.raw !== undefined) write(st.raw);
      else if (st.stderr !== undefined) process.stderr.write(st.stderr);
      else if (st.exit !== undefined) process.exit(st.exit);
      else if (st.sleep !== undefined) await Promise.race([sleep(st.sleep), new Promise((r) => (wake = r))]);
      else if (st.tool) {
        out({
          jsonrpc: '2.0',
          method: 'session/update',
          params: {
            sessionId,
            update: { sessionUpdate: 'tool_call', toolCallId: st.tool, title: st.title ?? st.tool, kind: 'execute', status: 'in_progress' },
          },
        });
        out({
          jsonrpc: '2.0',
          method: 'session/update',
          params: { sessionId, update: { sessionUpdate: 'tool_call_update', toolCallId: st.tool, status: st.status ?? 'completed' } },
        });
      } else if (st.permission) {
        const id = next++;
        const answer = new Promise((r) => waiting.set(id, r));
        out({
          jsonrpc: '2.0',
          id,
          method: 'session/request_permission',
          params: {
            sessionId,
            toolCall: { toolCallId: st.permission, title: st.title ?? 'touch x', kind: 'execute', status: 'pending' },
            options: [
              { optionId: 'yes', name: 'Allow', kind: 'allow_once' },
              { optionId: 'no', name: 'Reject', kind: 'reject_once' },
            ],
          },
        });
        const r = await answer;
        out({
          jsonrpc: '2.0',
          method: 'session/update',
          params: {
            sessionId,
            update: { sessionUpdate: 'tool_call_update', toolCallId: st.permission, status: r?.result?.outcome?.optionId === 'yes' ? 'completed' : 'failed' },
          },
        });
      }
    }
    out({ jsonrpc: '2.0', id: m.id, result: { stopReason: cancelled ? 'cancelled' : 'end_turn' } });
  }
  rl.on('line', (line) => {
    if (process.env.FAKE_ACP_RECORD) appendFileSync(process.env.FAKE_ACP_RECORD, `${line}\n`);
    let m;
    try {
      m = JSON.parse(line);
    } catch {
      return;
    }
    if (m.method === 'initialize') out({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: 1, agentInfo: { name: 'fake-acp', version: '0.0.0' } } });
    else if (m.method === 'session/new') out({ jsonrpc: '2.0', id: m.id, result: { sessionId: process.env.FAKE_ACP_SESSION || 'fake-session-1' } });
    else if (m.method === 'session/prompt') void prompt(m);
    else if (m.method === 'session/cancel') cancel?.();
    else if (m.id !== undefined && !m.method && waiting.has(m.id)) {
      waiting.get(m.id)(m);
      waiting.delete(m.id);
    }
  });
  rl.on('close', () => process.exit(Number(process.env.FAKE_ACP_EXIT || 0)));
}
