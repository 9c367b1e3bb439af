// Secret-looking NAMES: object keys in structured values (`{"token": ...}`,
// `Password`, `API_KEY`), `KEY=value` / `key: value` assignments in text,
// header names and `--flag value` options. One classifier for all of them.
//
//   secret  the value is replaced whatever it looks like (AEP-0003 §9.4(a):
//           `(password|passwd|secret|api[_-]?key|token)\s*[=:]` is the floor;
//           AEP conformance fixtures/redaction value_cases: credential-named
//           object keys; gitleaks:generic-api-key keywords)
//   maybe   replaced only when the value looks random (entropy.ts)
//   (none)  not a secret name: counters, ids, hashes named as such, file names
//
// The name is split into words at `_`, `-`, `.`, spaces and camelCase
// (`clientSecret` -> client, secret); the LAST word decides, so
// `password_hash`, `token_count`, `secret_name`, `api_key_id` and
// `max_tokens` are not secrets, while `DB_PASSWORD`, `x-api-key`,
// `_authToken` and `AWS_SECRET_ACCESS_KEY` are.

export type KeyClass = 'secret' | 'maybe' | undefined;

/** Last words that make a name secret. */
const SECRET_LAST = new Set([
  'password',
  'passwd',
  'passphrase',
  'passcode',
  'passwords',
  'secret',
  'secrets',
  'token',
  'apikey',
  'apikeys',
  'authorization',
  'credential',
  'credentials',
  'creds',
  'cookie',
  'cookies',
  'auth',
  'authtoken',
  'bearer',
  'jwt',
  'privatekey',
  'clientsecret',
  'accesstoken',
  'refreshtoken',
  'connectionstring',
  'pat',
  'otp',
  'totp',
  'mfa',
]);
/** `<word> key` pairs that are secret keys. */
const SECRET_KEY_PAIRS = new Set([
  'api',
  'access',
  'secret',
  'private',
  'signing',
  'encryption',
  'master',
  'account',
  'auth',
  'app',
  'session',
  'shared',
  'storage',
  'service',
  'license',
  'client',
  'consumer',
  'webhook',
  'hmac',
  'decryption',
  'crypto',
  'cipher',
  'admin',
  'root',
  'deploy',
  'ssh',
]);
/** `<word> key` pairs that are identifiers, not secrets. */
const PLAIN_KEY_PAIRS = new Set([
  'public',
  'primary',
  'foreign',
  'sort',
  'partition',
  'cache',
  'idempotency',
  'hot',
  'lookup',
  'map',
  'row',
  'range',
  'hash',
  'dedupe',
  'dedup',
  'group',
  'routing',
  'object',
  'item',
  'index',
  'composite',
  'unique',
  'natural',
  'surrogate',
  'react',
  'i18n',
  'translation',
  'message',
  'shortcut',
  'keyboard',
  'event',
  'env',
]);
/** Last words that make a name maybe-secret (entropy decides). */
const MAYBE_LAST = new Set(['key', 'sig', 'signature', 'salt', 'seed', 'hmac', 'sas', 'access', 'dsn', 'pass', 'pwd', 'pin']);
/** Last words that say "this is not the secret itself". */
const PLAIN_LAST = new Set([
  'hash',
  'hashed',
  'sha',
  'sha1',
  'sha256',
  'sha512',
  'md5',
  'digest',
  'checksum',
  'fingerprint',
  'etag',
  'commit',
  'integrity',
  'id',
  'ids',
  'uuid',
  'name',
  'names',
  'type',
  'types',
  'kind',
  'file',
  'files',
  'path',
  'paths',
  'dir',
  'url',
  'uri',
  'endpoint',
  'host',
  'length',
  'len',
  'size',
  'count',
  'counts',
  'limit',
  'max',
  'min',
  'ttl',
  'timeout',
  'expiry',
  'expires',
  'expiration',
  'expired',
  'at',
  'time',
  'date',
  'format',
  'version',
  'prefix',
  'suffix',
  'hint',
  'label',
  'field',
  'fields',
  'header',
  'env',
  'var',
  'required',
  'enabled',
  'disabled',
  'present',
  'set',
  'valid',
  'policy',
  'strength',
  'usage',
  'used',
  'budget',
  'mode',
  'method',
  'scheme',
  'scope',
  'scopes',
  'provider',
  'source',
  'location',
  'helper',
  'manager',
  'index',
  'position',
  'tokens',
  'keys',
  'stdin',
  'prompt',
  'reset',
  'changed',
  'rotation',
  'generated',
  'last',
  'stats',
  'estimate',
  'remaining',
  'ratio',
  'rate',
  'total',
  'input',
  'output',
  'cost',
  'price',
  'class',
  'style',
  'schema',
  'template',
  'placeholder',
  'example',
]);
/** Trailing words that do not change what a name holds (`password_value` is a password). */
const TRANSPARENT_LAST = new Set([
  'value',
  'val',
  'str',
  'string',
  'raw',
  'plain',
  'plaintext',
  'text',
  'b64',
  'base64',
  'hex',
  'encoded',
  'data',
  'content',
  'enc',
  'encrypted',
]);
/** The AEP-0003 §9.4(a) floor: a name ENDING in one of these (separators ignored) is secret. */
const FLOOR_SUFFIX = /(?:password|passwd|secret|apikey|token)$/;

/** Split a name into lower-case words: `AWS_SECRET_ACCESS_KEY` / `clientSecret` / `x-api-key` / `APIKey`. */
export function nameWords(name: string): string[] {
  const spaced = name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2');
  return spaced
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

const memo = new Map<string, KeyClass>();

/** The class of a name (memoized: payloads repeat their key names). */
export function classifyKey(name: string): KeyClass {
  if (!name || name.length > 128) return undefined;
  const known = memo.get(name);
  if (known !== undefined || memo.has(name)) return known;
  const cls = classify(name);
  if (memo.size >= 8192) memo.clear();
  memo.set(name, cls);
  return cls;
}

function classify(name: string): KeyClass {
  let words = nameWords(name);
  while (words.length > 1 && TRANSPARENT_LAST.has(words[words.length - 1])) words = words.slice(0, -1);
  if (!words.length) return undefined;
  const last = words[words.length - 1];
  if (PLAIN_LAST.has(last)) return undefined;
  const prev = words.length > 1 ? words[words.length - 2] : undefined;
  if (SECRET_LAST.has(last)) return 'secret';
  if (FLOOR_SUFFIX.test(words.join(''))) return 'secret';
  if (last === 'key' || last === 'keys') {
    if (prev && SECRET_KEY_PAIRS.has(prev)) return 'secret';
    if (prev && PLAIN_KEY_PAIRS.has(prev)) return undefined;
    return last === 'key' ? 'maybe' : undefined;
  }
  if ((last === 'pass' || last === 'pwd') && prev && prev !== 'old') return 'secret';
  if (last === 'pwd') return undefined; // the shell's PWD / OLDPWD: a directory
  if (MAYBE_LAST.has(last)) return 'maybe';
  // a secret word before an unknown last word (`SECRET_KEY_BASE`, `token_v2`): entropy decides
  if (words.slice(0, -1).some((w) => SECRET_LAST.has(w) || w === 'secret' || w === 'password')) return 'maybe';
  return undefined;
}

/** Header names whose whole value is a credential (to the end of the line). */
export function isCredentialHeader(name: string): boolean {
  const n = name.toLowerCase();
  return n === 'authorization' || n === 'proxy-authorization' || n === 'cookie' || n === 'set-cookie';
}
