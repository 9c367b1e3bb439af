// JSON-RPC 2.0 lines -> moments, with requests joined to their responses by
// id (engine state owned by the tee, one table per direction: a response
// travelling one way answers a request that travelled the other way).
// Pure: no I/O. The moment shapes are the ones the AEP ACP pins use
// (conformance/fixtures/mappings/acp.json: {kind, method, params|result}),
// plus the wiring the pins leave to the tee:
//
//   request       { kind: "request", from, id, method, params? }
//   notification  { kind: "notification", from, method, params? }
//   response      { kind: "response", from, id, method, request: { params }, result | error }
//   unmatched     { kind: "response", from, id, unmatched: true, result | error }
//
// `from` is "client" (the editor, on the agent's stdin) or "agent" (the
// agent's stdout). Problems (a line that is not JSON, not JSON-RPC, a
// response nobody asked for, a request id reused while pending, a full
// table) come back beside the moment, never instead of the bytes: the tee
// has already passed the line through. Bridge design: AEP
// docs/components/bridge-acp-design.md, "Id joins and identity".

const other = (from) => (from === 'client' ? 'agent' : 'client');
const idKey = (from, id) => `${from}\u0000${typeof id}\u0000${String(id)}`;
const isObj = (v) => !!v && typeof v === 'object' && !Array.isArray(v);
const validId = (id) => typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id));

export class RpcJoin {
  /** @param {{ maxPending?: number }} [opts] */
  constructor(opts = {}) {
    this.maxPending = opts.maxPending ?? 4096;
    /** key(from of the request, id) -> { from, id, method, params } */
    this.pending = new Map();
  }

  /**
   * One parsed JSON value seen travelling `from`. Returns the moments it
   * makes (a batch makes several) and the problems it shows.
   * @returns {{ moments: object[], problems: { code: string, message: string }[] }}
   */
  accept(from, value) {
    const out = { moments: [], problems: [] };
    if (Array.isArray(value)) {
      if (value.length === 0) out.problems.push({ code: 'not-jsonrpc', message: 'an empty batch' });
      for (const v of value) this.one(from, v, out);
    } else this.one(from, value, out);
    return out;
  }

  one(from, m, out) {
    if (!isObj(m)) {
      out.problems.push({ code: 'not-jsonrpc', message: `a ${m === null ? 'null' : typeof m} is not a JSON-RPC message` });
      return;
    }
    const hasId = 'id' in m && m.id !== null && m.id !== undefined;
    if (typeof m.method === 'string') {
      if (!hasId) {
        out.moments.push(withPayload({ kind: 'notification', from, method: m.method }, m, 'params'));
        return;
      }
      if (!validId(m.id)) {
        out.problems.push({ code: 'not-jsonrpc', message: `request ${m.method} has an id that is neither a string nor a number` });
        return;
      }
      const key = idKey(from, m.id);
      if (this.pending.has(key))
        out.problems.push({ code: 'duplicate-id', message: `${from} reused request id ${JSON.stringify(m.id)} (${m.method}) while it was still pending` });
      this.pending.delete(key);
      this.pending.set(key, { from, id: m.id, method: m.method, params: m.params });
      if (this.pending.size > this.maxPending) {
        const [oldKey, old] = this.pending.entries().next().value;
        this.pending.delete(oldKey);
        out.problems.push({
          code: 'join-table-full',
          message:
            `more than ${this.maxPending} requests pending: forgot ${old.from} request ${JSON.stringify(old.id)} ` +
            `(${old.method}); its response will be unmatched`,
        });
      }
      out.moments.push(withPayload({ kind: 'request', from, id: m.id, method: m.method }, m, 'params'));
      return;
    }
    if ('result' in m || 'error' in m) {
      const key = validId(m.id) ? idKey(other(from), m.id) : undefined;
      const req = key === undefined ? undefined : this.pending.get(key);
      if (!req) {
        out.problems.push({
          code: 'unmatched-response',
          message: `${from} answered id ${JSON.stringify(m.id ?? null)}, which no pending ${other(from)} request has`,
        });
        out.moments.push(result({ kind: 'response', from, id: m.id ?? null, unmatched: true }, m));
        return;
      }
      this.pending.delete(key);
      out.moments.push(result({ kind: 'response', from, id: m.id, method: req.method, request: req.params === undefined ? {} : { params: req.params } }, m));
      return;
    }
    out.problems.push({ code: 'not-jsonrpc', message: 'an object with neither method nor result/error' });
  }

  /** Is `from`'s request `id` still waiting for its answer? */
  isPending(from, id) {
    return this.pending.has(idKey(from, id));
  }

  /** Forget a request answered some other way (the tee wrote the answer itself). */
  settle(from, id) {
    const key = idKey(from, id);
    const req = this.pending.get(key);
    this.pending.delete(key);
    return req;
  }

  /**
   * Every request still waiting, as the response moments its sender will
   * never get (the process is gone): `error` says so, `exit` carries how.
   */
  abandon(exit) {
    const out = [];
    for (const req of this.pending.values()) {
      out.push({
        kind: 'response',
        from: other(req.from),
        id: req.id,
        method: req.method,
        request: req.params === undefined ? {} : { params: req.params },
        error: { code: -32099, message: 'the agent process exited before this request was answered' },
        exit,
      });
    }
    this.pending.clear();
    return out;
  }
}

function withPayload(moment, m, key) {
  if (m[key] !== undefined) moment[key] = m[key];
  return moment;
}

function result(moment, m) {
  if ('error' in m) moment.error = m.error;
  else moment.result = m.result;
  return moment;
}

/**
 * One line's bytes -> a JSON value, or why not. Blank lines are nothing
 * (not a problem): JSON-RPC over NDJSON tolerates them.
 * @returns {{ blank: true } | { value: unknown } | { problem: { code: string, message: string } }}
 */
export function parseLine(buf) {
  const text = buf.toString('utf8');
  if (text.trim() === '') return { blank: true };
  try {
    return { value: JSON.parse(text) };
  } catch (e) {
    return { problem: { code: 'malformed-json', message: `not JSON (${buf.length} bytes): ${e.message}` } };
  }
}
