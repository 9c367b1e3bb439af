// Test certificates made with openssl into a temp folder: a self-signed
// server certificate (test/security/tls.test.ts), and a small CA that signs
// a server and a client certificate (mutual TLS: test/fleet/auth.test.ts).
// EC P-256 keys, valid two days; nothing here is ever committed.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

const EC = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
const ssl = (args: string[]) => execFileSync('openssl', args, { stdio: 'ignore' });

/** A self-signed certificate for `name` (CN and DNS SAN). */
export function selfSigned(dir: string, name = 'hookmap-test.lan'): { cert: string; key: string } {
  const cert = join(dir, 'cert.pem');
  const key = join(dir, 'key.pem');
  ssl(['req', '-x509', ...EC, '-keyout', key, '-out', cert, '-days', '2', '-subj', `/CN=${name}`, '-addext', `subjectAltName=DNS:${name}`]);
  return { cert, key };
}

export interface TestPki {
  ca: string;
  server: { cert: string; key: string };
  client: { cert: string; key: string };
}

/** A CA, a server certificate for 127.0.0.1/localhost, and a client certificate, all signed by the CA, as PEM files in `dir`. */
export function testPki(dir: string, prefix = ''): TestPki {
  const p = (n: string) => join(dir, `${prefix}${n}`);
  ssl([
    'req',
    '-x509',
    ...EC,
    '-keyout',
    p('ca-key.pem'),
    '-out',
    p('ca.pem'),
    '-days',
    '2',
    '-subj',
    '/CN=hookmap test CA',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  ]);
  const leaf = (name: string, ext: string) => {
    ssl(['req', ...EC, '-keyout', p(`${name}-key.pem`), '-out', p(`${name}.csr`), '-subj', `/CN=hookmap test ${name}`]);
    writeFileSync(p(`${name}.ext`), ext);
    ssl([
      'x509',
      '-req',
      '-in',
      p(`${name}.csr`),
      '-CA',
      p('ca.pem'),
      '-CAkey',
      p('ca-key.pem'),
      '-CAcreateserial',
      '-out',
      p(`${name}.pem`),
      '-days',
      '2',
      '-extfile',
      p(`${name}.ext`),
    ]);
    return { cert: p(`${name}.pem`), key: p(`${name}-key.pem`) };
  };
  const server = leaf('server', 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n');
  const client = leaf('client', 'extendedKeyUsage=clientAuth\n');
  return { ca: p('ca.pem'), server, client };
}
