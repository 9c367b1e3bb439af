// The server side of bench/relay/fixed-rate.ts, in its own process so the
// measuring clients never share its event loop. `relay`: hookmap's relay
// (createRelay, defaults). `bare`: a bare `ws` broadcast (every text frame
// an emitter sends is written to every other connection; no hello, no
// validation, no buffer, no filters): the floor. Prints its port on stdout.
//   node --import tsx bench/relay/fixed-rate-server.ts relay|bare
import { WebSocketServer, type WebSocket } from 'ws';
import { createRelay } from '../../engine/relay/index.ts';

const kind = process.argv[2];
if (kind === 'relay') {
  const relay = createRelay({ host: '127.0.0.1', port: 0 });
  const { port } = await relay.listen();
  process.stdout.write(`${port}\n`);
} else if (kind === 'bare') {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0, perMessageDeflate: false });
  const subscribers = new Set<WebSocket>();
  wss.on('connection', (ws, req) => {
    if (req.url?.startsWith('/emit')) {
      ws.on('message', (data, isBinary) => {
        if (isBinary) return;
        const text = data.toString();
        for (const s of subscribers) s.send(text);
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
