// The WebSocket clients the fleet tests open on relays: every client sends
// the test's credentials and is closed by the test's cleanup list; a
// subscriber is a consumer subscribed to everything (optionally from a
// position) once the relay said `subscribed`.
import { WsClient } from '../runtime/relay/helpers.ts';

export function wsClients(auth: Record<string, string>, stops: (() => Promise<void> | void)[]) {
  const client = async (url: string, hello: Record<string, unknown> = {}): Promise<WsClient> => {
    const c = await WsClient.hello(url, hello, auth);
    stops.push(() => c.close());
    return c;
  };
  const subscriber = async (url: string, from?: unknown): Promise<WsClient> => {
    const c = await client(url, { role: 'consumer' });
    c.send({ type: 'subscribe', id: 's', filter: {}, ...(from ? { from } : {}) });
    await c.next((m) => m.type === 'subscribed');
    return c;
  };
  return { client, subscriber };
}
