// The server side of bench/relay/fixed-rate.ts, in its own process so the
// measuring clients never share its event loop. `relay`: hookmap's relay
// (createRelay, defaults). `bare`: a bare `ws` broadcast (every text frame
// an emitter sends is written to every other connection; no hello, no
// validation, no buffer, no filters): the floor. Prints its port on stdout,
// then answers each `cpu` line on stdin with its CPU time so far (µs), so
// the bench can report server CPU per event, which machine load moves
// far less than latency.
//   node --import tsx bench/relay/fixed-rate-server.ts relay|bare
import { createInterface } from 'node:readline';
import { WebSocketServer, type WebSocket } from 'ws';
import { createRelay } from '../../engine/runtime/relay/index.ts';

void (async () => {
  for await (const line of createInterface({ input: process.stdin })) {
    if (line.trim() !== 'cpu') continue;
    const u = process.cpuUsage();
    process.stdout.write(`${JSON.stringify({ cpu: u.user + u.system })}\n`);
  }
})();

// a normal exit on SIGTERM, so --cpu-prof (BENCH_PROF in fixed-rate.ts) writes its profile
process.on('SIGTERM', () => process.exit(0));
const kind = process.argv[2];
if (kind === 'relay') {
  const relay = createRelay({ host: '127.0.0.1', port: 0, noAuth: true }); // token-less (explicit): the bench measures fan-out
  const { port } = await relay.listen();
  process.stdout.write(`${port}\n`);
} else if (kind === 'bare') {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0, perMessageDeflate: false });
  const subscribers = new Set<WebSocket>();
  wss.on('connection', (ws, req) => {
    if (req.url?.startsWith('/emit')) {
      ws.on('message', (data, isBinary) => {
        if (isBinary) return;
        // the received bytes as they are, to every subscriber (no per-subscriber encoding: the cheapest fan-out)
        for (const s of subscribers) s.send(data as Buffer, { binary: false });
      });
      return;
    }
    subscribers.add(ws);
    ws.on('close', () => subscribers.delete(ws));
  });
  await new Promise((r) => wss.once('listening', r));
  process.stdout.write(`${(wss.address() as { port: number }).port}\n`);
} else {
  process.stderr.write('usage: fixed-rate-server.ts relay|bare\n');
  process.exit(2);
}
