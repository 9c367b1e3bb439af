#!/usr/bin/env node
// A tiny MCP server over stdio (newline-delimited JSON-RPC 2.0) for the live
// suite: one tool, `deploy`, that asks the user through an MCP elicitation
// (elicitation/create, form mode) which target to deploy to, and returns what
// it was told. Every message it sees is appended to $MCP_ELICIT_LOG.
import { appendFileSync } from 'node:fs';

const LOG = process.env.MCP_ELICIT_LOG;
const log = (dir, m) => {
  if (LOG) appendFileSync(LOG, `${JSON.stringify({ dir, m })}\n`);
};
const send = (m) => {
  log('out', m);
  process.stdout.write(`${JSON.stringify(m)}\n`);
};

const SCHEMA = {
  type: 'object',
  properties: {
    env: { type: 'string', title: 'Environment', enum: ['staging', 'prod'] },
    replicas: { type: 'integer', title: 'Replicas', minimum: 1, maximum: 5 },
  },
  required: ['env'],
};

const pending = new Map(); // our request id -> the tools/call id waiting on it
let next = 1;

function onMessage(m) {
  log('in', m);
  if (m.method === 'initialize') {
    return send({
      jsonrpc: '2.0',
      id: m.id,
      result: { protocolVersion: m.params?.protocolVersion ?? '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'deployer', version: '0.0.1' } },
    });
  }
  if (m.method === 'ping') return send({ jsonrpc: '2.0', id: m.id, result: {} });
  if (m.method === 'tools/list') {
    return send({
      jsonrpc: '2.0',
      id: m.id,
      result: { tools: [{ name: 'deploy', description: 'Deploy the app; asks the user for the target', inputSchema: { type: 'object', properties: {} } }] },
    });
  }
  if (m.method === 'tools/call') {
    const id = `elicit-${next++}`;
    pending.set(id, m.id);
    return send({ jsonrpc: '2.0', id, method: 'elicitation/create', params: { message: 'Pick a deploy target', requestedSchema: SCHEMA } });
  }
  if (m.id !== undefined && pending.has(m.id) && !m.method) {
    const callId = pending.get(m.id);
    pending.delete(m.id);
    const r = m.result ?? {};
    const text =
      r.action === 'accept'
        ? `deployed to ${r.content?.env} with ${r.content?.replicas ?? 1} replicas`
        : `deploy not done: elicitation ${r.action ?? JSON.stringify(m.error)}`;
    return send({ jsonrpc: '2.0', id: callId, result: { content: [{ type: 'text', text }] } });
  }
  if (m.id !== undefined && m.method) send({ jsonrpc: '2.0', id: m.id, error: { code: -32601, message: `no method ${m.method}` } });
}

let buf = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (c) => {
  buf += c;
  let i;
  while ((i = buf.indexOf('\n')) >= 0) {
    const line = buf.slice(0, i).trim();
    buf = buf.slice(i + 1);
    if (!line) continue;
    try {
      onMessage(JSON.parse(line));
    } catch (e) {
      log('error', String(e));
    }
  }
});
process.stdin.on('end', () => process.exit(0));
