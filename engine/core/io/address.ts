// A listening server's address as the URL its clients use (an IPv6 host in brackets).
import type { AddressInfo } from 'node:net';

export function urlOf(addr: AddressInfo): { host: string; url: string } {
  const h = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  return { host: h, url: `http://${h}:${addr.port}` };
}
