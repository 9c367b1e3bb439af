// Secrets next to secret-looking names in text: `KEY=value`, `key: value`,
// `"token": "..."`, `--password X` / `--api-key=X`, and credential headers
// (`Authorization: ...`, `Cookie: ...`). The name is classified by keys.ts;
// a `maybe` name needs a random-looking value (entropy.ts).
//
// AEP-0003 §9.4(a) floor: `(password|passwd|secret|api[_-]?key|token)\s*[=:]\s*\S+`.
// Hardening: gitleaks:generic-api-key (keyword-named assignments with an
// entropy threshold), gitleaks:curl-auth-header (header values), the AEP
// conformance fixtures/redaction cases (quoted keys, value on the next line).
//
// Linear: one pass over keyword hits; each hit looks at most 64 characters
// back and a bounded distance ahead, and the scan resumes past the value.
import { looksRandom } from './entropy.ts';
import { classifyKey, isCredentialHeader, type KeyClass } from './keys.ts';
import { charClass, fake } from './regex-rule.ts';
import type { Continuation, Match, Rule } from './types.ts';
import { SECRET } from './types.ts';

const STEM_WORDS = [
  'pass',
  'pwd',
  'secret',
  'token',
  'key',
  'auth',
  'cred',
  'cookie',
  'sig',
  'salt',
  'seed',
  'dsn',
  'pin',
  'otp',
  'mfa',
  'bearer',
  'jwt',
  'pat',
  'access',
  'connection',
];
const STEMS = new RegExp(STEM_WORDS.join('|'), 'gi');
const IDENT = charClass('A-Za-z0-9_.-');
const SPACE = charClass(' \\t');
const WS = charClass('\\s');
/** Where an unquoted value ends. */
const VALUE_STOP = charClass('\\s"\'`,;&)}\\]<>');
const SCHEME_WORD =
  /^(?:Bearer|Basic|Token|Digest|Negotiate|NTLM|Bot|ApiKey|Key|SSWS|AWS4-HMAC-SHA256|GoogleLogin|OAuth|MAC|HOBA|Mutual|SCRAM-SHA-256|vapid)[ \t]+/i;
const NON_VALUES = new Set(['null', 'true', 'false', 'none', 'nil', 'undefined', 'yes', 'no']);
const MAX_NAME = 64;
const MAX_QUOTED = 4096;

function unquotedEnd(text: string, from: number): number {
  let e = from;
  if (text.startsWith('${', e) || text.startsWith('$(', e)) {
    const close = text.charCodeAt(e + 1) === 123 /* { */ ? '}' : ')';
    const stop = Math.min(text.length, e + 256);
    for (let k = e + 2; k < stop; k++) if (text[k] === close) return k + 1;
  }
  while (e < text.length) {
    const c = text.charCodeAt(e);
    if (VALUE_STOP(c)) break;
    // an escaped newline / quote in JSON-encoded text ends the value
    if (c === 92 /* \ */ && /[nrt"'\\]/.test(text[e + 1] ?? '')) break;
    e++;
  }
  return e;
}

/** indexOf with memory: hits are visited left to right, so each needle's search never rescans text (linear overall). */
class NextIndex {
  private readonly at = new Map<string, number>();
  constructor(private readonly text: string) {}
  find(needle: string, from: number): number {
    const known = this.at.get(needle);
    if (known !== undefined && (known === -1 || known >= from)) return known;
    const i = this.text.indexOf(needle, from);
    this.at.set(needle, i);
    return i;
  }
}

function findKeyed(text: string, out: Match[], rule: string, strict: boolean): void {
  STEMS.lastIndex = 0;
  const next = new NextIndex(text);
  let m: RegExpExecArray | null;
  while ((m = STEMS.exec(text))) {
    const hit = m.index;
    // the whole name around the hit
    let l = hit;
    while (l > 0 && hit - l < MAX_NAME && IDENT(text.charCodeAt(l - 1))) l--;
    let r = hit + m[0].length;
    while (r < text.length && r - l <= MAX_NAME && IDENT(text.charCodeAt(r))) r++;
    if (r - l > MAX_NAME || (l > 0 && IDENT(text.charCodeAt(l - 1)))) {
      // inside a run longer than any name: skip the run, once
      while (r < text.length && IDENT(text.charCodeAt(r))) r++;
      STEMS.lastIndex = r;
      continue;
    }
    STEMS.lastIndex = r;
    while (r > l && (text[r - 1] === '.' || text[r - 1] === '-')) r--;
    let nameFrom = l;
    let dashes = 0;
    while (nameFrom < r && text[nameFrom] === '-') {
      nameFrom++;
      dashes++;
    }
    const name = text.slice(nameFrom, r);
    if (!name) continue;
    const isFlag =
      (dashes >= 2 || (dashes === 1 && /^[a-z][a-z-]*$/.test(name))) && (l === 0 || WS(text.charCodeAt(l - 1)) || text[l - 1] === '"' || text[l - 1] === "'");
    // a quote right before the name (a JSON key, a quoted header)
    let openQuote = '';
    if (l > 0 && (text[l - 1] === '"' || text[l - 1] === "'")) openQuote = text[l - 1];
    // after the name: a closing quote, blanks, the operator
    let p = r;
    if (openQuote && text[p] === openQuote) p++;
    else if (text[p] === '\\' && (text[p + 1] === '"' || text[p + 1] === "'")) p += 2;
    const blanksFrom = p;
    while (p < text.length && p - blanksFrom < 16 && SPACE(text.charCodeAt(p))) p++;
    let op: string;
    const c = text[p];
    if (c === '=' || c === ':') {
      if (text[p + 1] === '=' && c === '=') continue; // `==`: a comparison
      if (c === ':' && text[p + 1] === ':') continue; // `::`: a scope operator
      op = c === ':' && text[p + 1] === '=' ? ':=' : c === '=' && text[p + 1] === '>' ? '=>' : c;
      if (c === '=' && p > 0 && (text[p - 1] === '!' || text[p - 1] === '<' || text[p - 1] === '>')) continue;
    } else if (c === '?' && text[p + 1] === '=') {
      op = '?=';
    } else if (isFlag && p > blanksFrom && p < text.length && !WS(text.charCodeAt(p)) && text[p] !== '-') {
      op = ' ';
    } else continue;
    let vs = op === ' ' ? p : p + op.length;
    // blanks (and, for assignments, one line break: `token=\nvalue`) before the value
    const wsFrom = vs;
    while (vs < text.length && vs - wsFrom < 32 && WS(text.charCodeAt(vs))) vs++;
    if (vs >= text.length) continue;
    // classify the name (a bare `key` / `token` after a qualifying word: `API key: ...`)
    let cls: KeyClass = classifyKey(name);
    if (/^(key|token|secret)$/i.test(name) && l >= 2 && text[l - 1] === ' ') {
      let w = l - 1;
      while (w > 0 && l - 1 - w < 16 && /[A-Za-z]/.test(text[w - 1])) w--;
      const prev = text.slice(w, l - 1);
      if (prev && classifyKey(`${prev}_${name}`) === 'secret') cls = 'secret';
    }
    if (!cls) continue;
    // the value
    let ve: number;
    let cont: Continuation | undefined;
    let header = false;
    const q = text[vs];
    if (op === ':' && isCredentialHeader(name)) {
      header = true;
      let stopAt = openQuote || '\n';
      if (text[vs] === '"' || text[vs] === "'") {
        stopAt = text[vs];
        vs++;
      } // a quoted header value ("Authorization": "token ...")
      ve = vs;
      const lim = Math.min(text.length, vs + MAX_QUOTED);
      while (ve < lim && text[ve] !== stopAt && text[ve] !== '\n' && text[ve] !== '\r' && !(text[ve] === '\\' && /[nr"']/.test(text[ve + 1] ?? ''))) ve++;
      while (ve > vs && SPACE(text.charCodeAt(ve - 1))) ve--;
      const scheme = SCHEME_WORD.exec(text.slice(vs, Math.min(ve, vs + 40)));
      if (scheme) vs += scheme[0].length;
      if (ve === text.length) cont = { kind: 'until', chars: `\n\r${openQuote}` };
    } else if (q === '"' || q === "'" || q === '`' || (q === '\\' && (text[vs + 1] === '"' || text[vs + 1] === "'"))) {
      const esc = q === '\\';
      const quote = esc ? `\\${text[vs + 1]}` : q;
      const from = vs + quote.length;
      const close = next.find(quote, from);
      if (close >= 0 && close - from <= MAX_QUOTED) {
        vs = from;
        ve = close;
      } else if (close < 0 && text.length - from <= MAX_QUOTED) {
        vs = from; // the text ends inside the quoted value
        ve = text.length;
        cont = { kind: 'until', chars: quote[quote.length - 1] };
      } else {
        vs = from;
        ve = unquotedEnd(text, vs);
      }
    } else {
      if (q === '{' || q === '[') continue; // a structure: its own keys decide
      ve = unquotedEnd(text, vs);
      if (ve === text.length) cont = { kind: 'class', test: (k) => !VALUE_STOP(k) && k !== 92 };
    }
    const value = text.slice(vs, ve);
    STEMS.lastIndex = Math.max(STEMS.lastIndex, ve);
    if (!value || value.startsWith('[REDACTED') || NON_VALUES.has(value.toLowerCase()) || /^\*+$/.test(value)) continue;
    if (cls === 'maybe' && !header && !(strict ? value.length >= 8 : looksRandom(value))) continue;
    out.push({ start: vs, end: ve, ctx: openQuote ? l - 1 : l, stage: 'secret', rule, rep: SECRET, cont });
  }
}

/** The keyed rule; `strict` (hookmap record) takes any 8+ character value of a maybe-secret name. */
export function keyedRule(strict = false): Rule {
  return { ...KEYED_RULE, find: (text, out) => findKeyed(text, out, 'keyed-secret', strict) };
}

export const KEYED_RULE: Rule = {
  id: 'keyed-secret',
  stage: 'secret',
  source:
    'AEP-0003 §9.4(a) floor ((password|passwd|secret|api[_-]?key|token)\\s*[=:]\\s*\\S+); ' +
    'gitleaks:generic-api-key (keywords + entropy); gitleaks:curl-auth-header; AEP conformance ' +
    'fixtures/redaction (quoted keys, next-line values)',
  description:
    'Values of secret-named assignments (`KEY=value`, `key: value`, JSON `"token": "..."`), ' +
    '`--flag value` options and credential headers (`Authorization:`, `Cookie:`); maybe-secret ' +
    'names (`STRIPE_KEY`, `sig`) only with a random-looking value',
  window: 600,
  find: (text, out) => findKeyed(text, out, 'keyed-secret', false),
  positive: [
    { input: 'export API_KEY=sk_live_abcdef123456 && run', gone: ['sk_live_abcdef123456'], kept: ['export API_KEY=', '&& run'] },
    { input: 'password : hunter2sequel', gone: ['hunter2sequel'] },
    { input: 'payload {"token": "tok_9f8e7d6c5b4a"} sent', gone: ['tok_9f8e7d6c5b4a'], kept: ['payload', 'sent'] },
    { input: '{"api_key": "AQ0meta11223344", "region": "eu"}', gone: ['AQ0meta11223344'], kept: ['region', 'eu'] },
    { input: 'token=\nZX12abcdef', gone: ['ZX12abcdef'] },
    { input: 'password=foo@bar.com', gone: ['foo@bar.com'] },
    { input: 'mysql --password=Sup3rS3cret -h db', gone: ['Sup3rS3cret'], kept: ['-h db'] },
    { input: 'gh auth login --with-token --token abc123def456', gone: ['abc123def456'] },
    { input: 'docker login --password "p@ss word" registry', gone: ['p@ss word'], kept: ['registry'] },
    { input: 'Authorization: token ghp_notreallyatoken', gone: ['ghp_notreallyatoken'], kept: ['Authorization: token '] },
    { input: 'curl -H "Cookie: session=abc123; theme=dark" https://x', gone: ['abc123', 'theme=dark'], kept: ['https://x'] },
    { input: 'x-api-key: 5f2b9c', gone: ['5f2b9c'] },
    { input: 'DB_PASS=letmein ./migrate', gone: ['letmein'], kept: ['./migrate'] },
    { input: 'AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', gone: ['wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY'] },
    { input: 'spring.datasource.password=tiger', gone: ['tiger'] },
    {
      input: `STRIPE_KEY=${fake(24, 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789', 211)}`,
      gone: [fake(24, 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789', 211)],
    },
    { input: 'https://blob.core.windows.net/c/x?sv=2022-11-02&sig=Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MA%3D&se=2030', gone: ['Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MA'] },
    { input: '//registry.npmjs.org/:_authToken=abcdef-0123-4567', gone: ['abcdef-0123-4567'] },
    { input: 'API key: q8Wz2LmN4pRt6VxY', gone: ['q8Wz2LmN4pRt6VxY'] },
  ],
  negative: [
    'max_tokens=4096',
    'token_count: 12',
    'password_hash: 5f4dcc3b5aa765d61d8327deb882cf99',
    'sha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    'secret_name=prod-db',
    'the token is refreshed hourly',
    'if token == expected: return',
    'cache_key=v1-build-cache-linux',
    'sort_key: created_at',
    'PWD=/srv/project',
    'key: 550e8400-e29b-41d4-a716-446655440000',
    'key=2fd4e1c67a2d28fced849ee1bb76e7391b93eb12',
    '{"auth": {"type": "oauth"}}',
    'password_required: true',
    'token: null',
  ],
  adversarial: ['token', 'token=', 'password:', 'x-api-key', '--token ', 'key=a ', 'pat', 'authorization: ', '"token": "', 'passpasspass'],
};
