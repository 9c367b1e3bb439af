// A WebSocket upgrade the relay refuses (no token, a path it does not serve,
// a foreign Host or Origin, shutting down) hands Node's raw socket to the relay with no 'error'
// listener; a client that resets the connection after the refusal must not
// become an uncaught ECONNRESET in the relay's process (vitest fails the run
// on an unhandled error, and a real relay would exit). AEP-0003 §3 (the
// WebSocket binding), robustness: no single input stops the events after it.
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { ev, post, startRelay } from './helpers.ts';

function upgradeThenReset(port: number, path: string, headers = '', host = `127.0.0.1:${port}`): Promise<string> {
  return new Promise((resolve) => {
    let got = '';
    const s = connect(port, '127.0.0.1', () => {
      s.write(
        `GET ${path} HTTP/1.1\r\nHost: ${host}\r\n${headers}Upgrade: websocket\r\nConnection: ` +
          `Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: ` +
          `13\r\n\r\n`,
      );
    });
    s.on('data', (d) => {
      got += String(d);
      // the refusal has arrived: reset instead of closing politely
      s.resetAndDestroy();
      resolve(got.split('\r\n')[0]);
    });
    s.on('error', () => {});
  });
}

describe('refused WebSocket upgrades reset by the client', () => {
  it('an unauthorized /socket and an unknown path are refused; the reset after it stops nothing', async () => {
    const { url, port } = await startRelay({ token: 'reset-token' });
    expect(await upgradeThenReset(port, '/socket')).toBe('HTTP/1.1 401 Unauthorized');
    expect(await upgradeThenReset(port, '/nowhere', 'Authorization: Bearer reset-token\r\n')).toBe('HTTP/1.1 404 Not Found');
    // the browser guard's refusals (engine/runtime/auth/guard.ts): a foreign Host, another origin
    expect(await upgradeThenReset(port, '/socket', 'Authorization: Bearer reset-token\r\n', 'evil.example')).toBe('HTTP/1.1 421 Misdirected Request');
    expect(await upgradeThenReset(port, '/socket', 'Authorization: Bearer reset-token\r\nOrigin: http://evil.example\r\n')).toBe('HTTP/1.1 403 Forbidden');
    await new Promise((r) => setTimeout(r, 100)); // the resets reach the relay's sockets
    const r = await post(url, [ev('after-reset', 1)], { token: 'reset-token' });
    expect(r.status).toBe(202);
  });
});
