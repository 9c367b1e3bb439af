// TLS for hookmap's own links (AEP-0003 §8.1: off-host bindings need TLS).
// `hookmap up --tls-cert/--tls-key` serves https/wss; its daemons dial the
// relay over loopback, where the certificate's name (a LAN host name) is not
// what they connect to. They therefore pin the operator's certificate as a
// trusted root next to the system roots and verify the name the certificate
// itself carries, so the owner token never crosses an unverified TLS link.
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { rootCertificates } from 'node:tls';
import type { TlsFiles } from './server-limits.ts';

export type { TlsFiles } from './server-limits.ts';

/** Read `--tls-cert` / `--tls-key` PEM files (a clear error naming the file). */
export function loadTlsFiles(certFile: string, keyFile: string): TlsFiles {
  const read = (f: string, what: string) => {
    try {
      return readFileSync(f);
    } catch (e) {
      throw new Error(`cannot read the TLS ${what} ${f}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, { cause: e });
    }
  };
  const cert = read(certFile, 'certificate');
  const key = read(keyFile, 'key');
  try {
    new X509Certificate(cert);
  } catch (e) {
    throw new Error(`${certFile} is not a PEM certificate: ${(e as Error).message}`, { cause: e });
  }
  return { cert, key };
}

/** Client options to reach our own TLS server over loopback: the cert pinned, its own name verified. */
export function tlsClientOptions(tls: TlsFiles): { ca: (string | Buffer)[]; servername?: string } {
  const x = new X509Certificate(tls.cert);
  const san = x.subjectAltName ?? '';
  const names = san.split(',').map((s) => s.trim());
  const hasLoopbackIp = names.some((n) => n === 'IP Address:127.0.0.1' || n === 'IP Address:0:0:0:0:0:0:0:1');
  const dns = names.find((n) => n.startsWith('DNS:'))?.slice(4);
  const cn = /(?:^|\n)CN=([^\n]+)/.exec(x.subject)?.[1];
  return { ca: [...rootCertificates, tls.cert], servername: hasLoopbackIp ? undefined : (dns ?? cn) };
}
