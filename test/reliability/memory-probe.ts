// A relay alone in a process with --expose-gc, for test/reliability/memory.test.ts:
// prints its port, then answers each "measure" line on stdin with its memory
// (after full collections) and its store's stats, as one JSON line.
//   node --expose-gc --import tsx test/reliability/memory-probe.ts [bufferBytes] [sessionBufferBytes]
import { createInterface } from 'node:readline';
import { createRelay } from '../../engine/runtime/relay/index.ts';

const bufferBytes = process.argv[2] ? Number(process.argv[2]) : undefined;
const sessionBufferBytes = process.argv[3] ? Number(process.argv[3]) : undefined;
// token-less (explicit): the probe measures the buffer's memory, not authentication
const relay = createRelay({ host: '127.0.0.1', port: 0, noAuth: true, bufferBytes, sessionBufferBytes });
const { port } = await relay.listen();
process.stdout.write(`${JSON.stringify({ port, limits: relay.core.limits })}\n`);
const gc = (globalThis as { gc?: () => void }).gc;
for await (const line of createInterface({ input: process.stdin })) {
  if (line.trim() !== 'measure') continue;
  for (let i = 0; i < 3; i++) gc?.();
  await new Promise((r) => setTimeout(r, 50));
  gc?.();
  const m = process.memoryUsage();
  process.stdout.write(
    `${JSON.stringify({ rss: m.rss, heapUsed: m.heapUsed, heapTotal: m.heapTotal, external: m.external, arrayBuffers: m.arrayBuffers, store: relay.core.store.stats() })}\n`,
  );
}
await relay.close();
