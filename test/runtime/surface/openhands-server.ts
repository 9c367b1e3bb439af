// A stand-in for the OpenHands agent server's observation surface, speaking
// its documented protocol (openhands-agent-server sockets.py and the
// conversation router, as pinned by the AEP bridge-openhands design record):
//
//   GET /api/conversations/search[?page_id=P]      {items: [{id, ...}], next_page_id}
//                                                  (X-Session-API-Key checked when keys are set)
//   WS  /sockets/events/{conversation_id}           first-message auth {"type":"auth","session_api_key":K}
//       ?resend_mode=all | since&after_timestamp=T  (10 s window; 4001 on a bad key), 4004 for an
//                                                  unknown conversation, replay (all, or timestamp >= T),
//                                                  then every event published live
//
// Events are kept in transport shape (no parent_id; absent optionals
// omitted). The test drives it: publish(), dropAll() (every socket closed,
// as a server restart would), and reads what it saw (auth frames, queries,
// other frames a client wrote: an observer must write none).
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';

export interface FakeAgentServer {
  url: string;
  /** Conversations and their events, in order. */
  conversations: Map<string, any[]>;
  publish(conversation: string, event: any): void;
  /** Close every events socket (code 1012, service restart). */
  dropAll(): void;
  /** Every socket connection: its query and the frames the client wrote. */
  sockets: { conversation: string; query: URLSearchParams; frames: string[]; authed: boolean }[];
  searches: { query: URLSearchParams; key?: string }[];
  close(): Promise<void>;
}

export async function startFakeAgentServer(o: { keys?: string[]; pageSize?: number } = {}): Promise<FakeAgentServer> {
  const keys = o.keys ?? [];
  const conversations = new Map<string, any[]>();
  const live = new Map<string, Set<WebSocket>>();
  const sockets: FakeAgentServer['sockets'] = [];
  const searches: FakeAgentServer['searches'] = [];
  const pageSize = o.pageSize ?? 100;

  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (req.method === 'GET' && url.pathname === '/api/conversations/search') {
      const key = req.headers['x-session-api-key'] as string | undefined;
      searches.push({ query: url.searchParams, key });
      if (keys.length && !keys.includes(key ?? '')) {
        res.writeHead(401, { 'content-type': 'application/json' });
        return res.end('{"detail":"Unauthorized"}');
      }
      const ids = [...conversations.keys()];
      const start = Number(url.searchParams.get('page_id') ?? 0);
      const page = ids.slice(start, start + pageSize);
      const next = start + pageSize < ids.length ? String(start + pageSize) : null;
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end(JSON.stringify({ items: page.map((id) => ({ id, execution_status: 'idle' })), next_page_id: next }));
    }
    res.writeHead(404);
    res.end();
  });

  const wss = new WebSocketServer({ noServer: true });
  server.on('upgrade', (req: IncomingMessage, socket, head) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const m = /^\/sockets\/events\/([^/]+)$/.exec(url.pathname);
    if (!m) return socket.end('HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n');
    wss.handleUpgrade(req, socket, head, (ws) => void serve(ws, decodeURIComponent(m[1]), url.searchParams, req));
  });

  async function serve(ws: WebSocket, conversation: string, query: URLSearchParams, req: IncomingMessage) {
    const rec = { conversation, query, frames: [] as string[], authed: false };
    sockets.push(rec);
    const frames: string[] = [];
    let waiter: ((f: string) => void) | undefined;
    ws.on('message', (d) => {
      const f = String(d);
      rec.frames.push(f);
      if (waiter) {
        const w = waiter;
        waiter = undefined;
        w(f);
      } else frames.push(f);
    });
    const next = (ms: number) =>
      new Promise<string | undefined>((resolve) => {
        if (frames.length) return resolve(frames.shift());
        const t = setTimeout(() => {
          waiter = undefined;
          resolve(undefined);
        }, ms);
        waiter = (f) => {
          clearTimeout(t);
          resolve(f);
        };
      });
    if (keys.length) {
      const header = req.headers['x-session-api-key'] as string | undefined;
      if (header !== undefined) {
        if (!keys.includes(header)) return ws.close(4001, 'Authentication failed');
      } else {
        const first = await next(10_000);
        let data: any;
        try {
          data = JSON.parse(first ?? '');
        } catch {
          data = undefined;
        }
        if (!data || data.type !== 'auth' || !keys.includes(data.session_api_key)) return ws.close(4001, 'Authentication failed');
      }
    }
    rec.authed = true;
    const events = conversations.get(conversation);
    if (!events) return ws.close(4004, 'Conversation not found');
    const mode = query.get('resend_mode');
    const after = query.get('after_timestamp');
    if (mode === 'all') for (const e of events) ws.send(JSON.stringify(e));
    else if (mode === 'since' && after) for (const e of events) if (String(e.timestamp) >= after) ws.send(JSON.stringify(e));
    let set = live.get(conversation);
    if (!set) live.set(conversation, (set = new Set()));
    set.add(ws);
    ws.on('close', () => set!.delete(ws));
  }

  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    conversations,
    sockets,
    searches,
    publish(conversation, event) {
      let list = conversations.get(conversation);
      if (!list) conversations.set(conversation, (list = []));
      list.push(event);
      for (const ws of live.get(conversation) ?? []) ws.send(JSON.stringify(event));
    },
    dropAll() {
      for (const set of live.values()) for (const ws of set) ws.close(1012, 'Service Restart');
    },
    close: () =>
      new Promise<void>((r) => {
        for (const set of live.values()) for (const ws of set) ws.terminate();
        wss.close();
        server.closeAllConnections?.();
        server.close(() => r());
      }),
  };
}
