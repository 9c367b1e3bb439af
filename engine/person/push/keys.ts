// The VAPID key pair (RFC 8292) this hookmap signs its pushes with, made on
// the first start in $HOOKMAP_HOME/push/vapid.json (0600, created exclusively
// so two first starts agree on one pair). The public key is what a browser's
// PushManager.subscribe() takes as applicationServerKey and what
// `hookmap push key` prints; the private key never leaves the file.
import { createECDH } from 'node:crypto';
import { closeSync, existsSync, openSync, readFileSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { ensureDir } from '../../core/io/paths.ts';

export interface VapidKeys {
  publicKey: string;
  privateKey: string;
  /** The contact the push service may use (RFC 8292 §2.1 `sub`): a mailto: or https: URI. */
  subject: string;
}

export class PushKeyError extends Error {}

export const pushDir = (home: string) => join(home, 'push');
export const vapidPath = (home: string) => join(pushDir(home), 'vapid.json');
const DEFAULT_SUBJECT = 'mailto:hookmap@localhost';
const B64URL = /^[A-Za-z0-9_-]+$/;

function parseKeys(path: string): VapidKeys {
  const st = statSync(path);
  if (process.platform !== 'win32' && (st.mode & 0o077) !== 0)
    throw new PushKeyError(`${path} is readable by others (mode ${(st.mode & 0o777).toString(8)}): run chmod 600 ${path}`);
  let doc: Record<string, unknown>;
  try {
    doc = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new PushKeyError(`${path} is not valid JSON: ${(e as Error).message} (delete it to make a new pair: every device then subscribes again)`);
  }
  const { publicKey, privateKey, subject } = doc;
  if (typeof publicKey !== 'string' || !B64URL.test(publicKey) || Buffer.from(publicKey, 'base64url').length !== 65)
    throw new PushKeyError(`${path}: publicKey must be an uncompressed P-256 point, base64url (65 bytes)`);
  if (typeof privateKey !== 'string' || !B64URL.test(privateKey) || Buffer.from(privateKey, 'base64url').length !== 32)
    throw new PushKeyError(`${path}: privateKey must be a P-256 scalar, base64url (32 bytes)`);
  return { publicKey, privateKey, subject: typeof subject === 'string' && /^(mailto:|https:)/.test(subject) ? subject : DEFAULT_SUBJECT };
}

/** The key pair of this home, made now when there is none. */
export function ensureVapidKeys(home: string): VapidKeys & { created: boolean; path: string } {
  const path = vapidPath(home);
  if (existsSync(path)) return { ...parseKeys(path), created: false, path };
  ensureDir(pushDir(home));
  // a P-256 key pair as VAPID wants it (RFC 8292 §3.2): the public key an uncompressed point, the private key its 32-byte scalar
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  const d = ecdh.getPrivateKey();
  // the scalar as 32 bytes (Node drops leading zero bytes)
  const k = { publicKey: ecdh.getPublicKey().toString('base64url'), privateKey: Buffer.concat([Buffer.alloc(32 - d.length), d]).toString('base64url') };
  let fd: number;
  try {
    fd = openSync(path, 'wx', 0o600);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return { ...parseKeys(path), created: false, path };
    throw e;
  }
  try {
    writeSync(
      fd,
      `${JSON.stringify({ publicKey: k.publicKey, privateKey: k.privateKey, subject: DEFAULT_SUBJECT, created: new Date().toISOString() }, null, 2)}\n`,
    );
  } finally {
    closeSync(fd);
  }
  return { ...k, subject: DEFAULT_SUBJECT, created: true, path };
}

/** The key pair when one was made already (doctor, `push list`): never creates one. */
export function readVapidKeys(home: string): VapidKeys | undefined {
  const path = vapidPath(home);
  return existsSync(path) ? parseKeys(path) : undefined;
}
