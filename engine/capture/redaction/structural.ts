// Structural secret rules: PEM blocks, HTTP auth schemes, URL credentials and
// credentials passed to well-known commands. Each is linear: literal-anchored
// searches that never restart inside what they already consumed.
import { looksRandom } from './entropy.ts';
import { charClass, ci, fake, patternRule } from './regex-rule.ts';
import type { Match, Rule } from './types.ts';
import { SECRET } from './types.ts';

/** The first `ch` in text[from, to), or -1 (bounded: never scans past `to`). */
export function indexIn(text: string, ch: string, from: number, to: number): number {
  const code = ch.charCodeAt(0);
  const stop = Math.min(to, text.length);
  for (let k = from; k < stop; k++) if (text.charCodeAt(k) === code) return k;
  return -1;
}

/** The last `ch` in text[from, to), or -1. */
export function lastIn(text: string, ch: string, from: number, to: number): number {
  const code = ch.charCodeAt(0);
  for (let k = Math.min(to, text.length) - 1; k >= from; k--) if (text.charCodeAt(k) === code) return k;
  return -1;
}

// ---- PEM blocks (AEP-0003 §9.4(a) floor: "PEM blocks"; gitleaks:private-key) ----

const PEM_LABEL = charClass('A-Z0-9 _');

export const PEM_RULE: Rule = {
  id: 'pem-block',
  stage: 'secret',
  source: 'AEP-0003 §9.4(a) floor (PEM blocks); gitleaks:private-key (-----BEGIN ... PRIVATE KEY-----, incl. PGP "KEY BLOCK")',
  description: 'PEM blocks (BEGIN .. END); a PRIVATE KEY block without its END is redacted to the end of the text',
  keywords: ['-----begin'],
  window: 512,
  find(text: string, out: Match[]) {
    let i = 0;
    let noEndFrom = Infinity; // once no END exists after p, none exists after any later p
    while ((i = text.indexOf('-----BEGIN ', i)) >= 0) {
      let j = i + 11;
      const stop = Math.min(text.length, j + 100);
      while (j < stop && PEM_LABEL(text.charCodeAt(j))) j++;
      if (!text.startsWith('-----', j) || j === i + 11) { i += 11; continue; }
      const label = text.slice(i + 11, j);
      const bodyFrom = j + 5;
      const isPrivate = /PRIVATE KEY|ENCRYPTED/.test(label);
      const endAt = bodyFrom >= noEndFrom ? -1 : text.indexOf('-----END ', bodyFrom);
      if (endAt < 0) {
        noEndFrom = Math.min(noEndFrom, bodyFrom);
        if (isPrivate) {
          out.push({ start: i, end: text.length, ctx: i, stage: 'secret', rule: 'pem-block', rep: SECRET, cont: { kind: 'marker', marker: '-----END ' } });
          return;
        }
        i = bodyFrom;
        continue;
      }
      // the END line: -----END <label>-----
      let k = endAt + 9;
      const kStop = Math.min(text.length, k + 100);
      while (k < kStop && PEM_LABEL(text.charCodeAt(k))) k++;
      const end = text.startsWith('-----', k) ? k + 5 : k;
      out.push({ start: i, end, ctx: i, stage: 'secret', rule: 'pem-block', rep: SECRET });
      i = end;
    }
  },
  positive: [
    { input: 'config follows\n-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7bq\nZzz999\n-----END RSA PRIVATE KEY-----\ndone', gone: ['MIIEowIBAAKCAQEA7bq', 'BEGIN RSA'], kept: ['config follows', 'done'] },
    { input: '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk\n-----END OPENSSH PRIVATE KEY-----', gone: ['b3BlbnNzaC1rZXk'] },
    { input: '{"private_key": "-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\\n-----END PRIVATE KEY-----\\n", "client_email": "svc"}', gone: ['MIIEvQIBADANBgkqhkiG9w0BAQEFAASC'], kept: ['client_email'] },
    { input: 'cat key.pem\n-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIBkg4LVWM9nuwNSk3yByxZpYRTBnVJk5oAI4\n(truncated)', gone: ['MHcCAQEEIBkg4LVWM9nuwNSk3yByxZpYRTBnVJk5oAI4'], kept: ['cat key.pem'] },
    { input: '-----BEGIN PGP PRIVATE KEY BLOCK-----\nlQOYBF0\n-----END PGP PRIVATE KEY BLOCK-----', gone: ['lQOYBF0'] },
    { input: '-----BEGIN CERTIFICATE-----\nMIIDdzCCAl+gAwIBAgIE\n-----END CERTIFICATE-----', gone: ['MIIDdzCCAl+gAwIBAgIE'] },
  ],
  negative: ['-----BEGIN without a label', 'a line of ----- dashes -----', '-----BEGIN CERTIFICATE----- (no END, public: left as is)'],
  adversarial: ['-----BEGIN ', '-----BEGIN CERTIFICATE-----', '-----BEGIN A-----x-----END '],
};

// ---- HTTP authorization schemes (RFC 6750 Bearer, RFC 7617 Basic; case-insensitive per RFC 7235) ----

const TOKEN68 = 'A-Za-z0-9._~+/-';

export const BEARER_RULE = patternRule({
  id: 'bearer-token',
  anchor: ci('bearer'),
  source: 'AEP-0003 §9.4(a) floor (`Bearer `-prefixed tokens); RFC 6750 b64token, scheme case-insensitive (RFC 7235 §2.1); gitleaks:curl-auth-header',
  description: 'Bearer tokens: `Bearer <t>` always (the floor); other casings (`bearer`, `BEARER`) when <t> looks like a token (8+ chars with a digit or symbol, or 20+)',
  pattern: `(?<b>[Bb][Ee][Aa][Rr][Ee][Rr])[ \\t]+(?<s>[${TOKEN68}]{1,4096}=*)`,
  tail: `${TOKEN68}=`,
  accept: (t, text, start) => {
    const scheme = text.slice(Math.max(0, start - 16), start).trimEnd();
    if (scheme.endsWith('Bearer')) return true; // the floor: `Bearer `-prefixed tokens, whatever they are
    return (t.length >= 8 && /[\d._~+/=-]/.test(t)) || t.length >= 20;
  },
  positive: [
    { input: "curl -H 'Authorization: Bearer abc123.DEF-456_ghi~789' https://x.test", gone: ['abc123.DEF-456_ghi~789'] },
    { input: 'authorization: bearer abc123DEF456ghi789', gone: ['abc123DEF456ghi789'] },
    { input: 'BEARER eyJhbGciOiJub25lIn0x.payload', gone: ['eyJhbGciOiJub25lIn0x.payload'] },
    { input: 'requests.get(u, headers={"Authorization": "Bearer " + t}) # Bearer 0a1b2c3d4e5f', gone: ['0a1b2c3d4e5f'] },
    { input: 'use Bearer abcdefgh', gone: ['abcdefgh'] },
  ],
  negative: ['the bearer of good news arrived', 'a bearer token is sent in the header', 'bearer tokens expire'],
  adversarial: ['bearer ', 'Bearer Bearer ', 'bearer a'],
});

const B64 = new Int8Array(128).fill(-1);
for (let i = 0; i < 64; i++) B64['ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'.charCodeAt(i)] = i;

/** Whether base64 `t` decodes to printable ASCII with a colon (`user:password`), without allocating. */
export function decodesToUserPass(t: string): boolean {
  let bits = 0;
  let acc = 0;
  let colon = false;
  let n = 0;
  for (let i = 0; i < t.length; i++) {
    const c = t.charCodeAt(i);
    if (c === 61 /* = */) break;
    const v = c < 128 ? B64[c] : -1;
    if (v < 0) return false;
    acc = ((acc << 6) | v) & 0xffffff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      const byte = (acc >> bits) & 0xff;
      if (byte < 0x20 || byte > 0x7e) return false;
      if (byte === 58) colon = true;
      n++;
    }
  }
  return colon && n >= 3;
}

/** RFC 7617: Basic <base64(user:pass)>: redacted when it decodes to `user:pass`. */
export const BASIC_RULE = patternRule({
  id: 'basic-auth',
  anchor: ci('basic'),
  source: 'RFC 7617 Basic credentials (base64 of user:password); gitleaks:curl-auth-header (Basic); the AEP redaction fixtures (authorization: Basic ...)',
  description: 'HTTP Basic credentials, any casing of the scheme, when the base64 decodes to user:password',
  pattern: '(?<b>[Bb][Aa][Ss][Ii][Cc])[ \\t]+(?<s>[A-Za-z0-9+/]{4,4096}={0,2})(?![A-Za-z0-9+/=])',
  accept: (t) => decodesToUserPass(t),
  positive: [
    { input: 'curl -H "Authorization: Basic dXNlcjpwYXNzd29yZA==" https://api.test', gone: ['dXNlcjpwYXNzd29yZA=='] },
    { input: 'authorization: basic YWRtaW46aHVudGVyMg==', gone: ['YWRtaW46aHVudGVyMg=='] },
    { input: 'header Basic dXNlcjpwYXNz sent', gone: ['dXNlcjpwYXNz'], kept: ['header', 'sent'] },
  ],
  negative: ['Basic usage of the CLI', 'basic authentication is disabled', 'Basic QUJDREVGR0g= (decodes without a colon)'],
  adversarial: ['basic ', 'Basic QUJD ', 'basic Basic '],
});

// ---- credentials in URLs (secretlint:basicauth, secretlint:database-connection-string) ----

const AUTH_STOP = charClass('\\s/?#"\'<>`\\\\');
const SCHEME = charClass('A-Za-z0-9+.-');

export const URL_CREDENTIALS_RULE: Rule = {
  id: 'url-credentials',
  stage: 'secret',
  source: 'secretlint:@secretlint/secretlint-rule-basicauth (scheme://user:password@host), secretlint:@secretlint/secretlint-rule-database-connection-string (postgres/mysql/mongodb URIs); RFC 3986 §3.2.1 userinfo',
  description: 'The password of `scheme://user:password@host` (any scheme); a user part alone when it looks like a random token',
  keywords: ['://'],
  window: 600,
  find(text: string, out: Match[]) {
    let i = 0;
    while ((i = text.indexOf('://', i)) >= 0) {
      // scheme: letters before ://
      let s = i;
      while (s > 0 && i - s < 32 && SCHEME(text.charCodeAt(s - 1))) s--;
      const from = i + 3;
      if (s === i) { i = from; continue; }
      let e = from;
      const stop = Math.min(text.length, from + 512);
      while (e < stop && !AUTH_STOP(text.charCodeAt(e))) e++;
      const at = lastIn(text, '@', from, e);
      if (at >= 0 && indexIn(text, '[', from, at) < 0) {
        const colon = indexIn(text, ':', from, at);
        if (colon >= 0) {
          const pw = text.slice(colon + 1, at);
          if (pw && !pw.startsWith('[REDACTED')) out.push({ start: colon + 1, end: at, ctx: s, stage: 'secret', rule: 'url-credentials', rep: SECRET });
        } else if (looksRandom(text.slice(from, at))) {
          out.push({ start: from, end: at, ctx: s, stage: 'secret', rule: 'url-credentials', rep: SECRET });
        }
      }
      i = Math.max(e, from);
    }
  },
  positive: [
    { input: 'psql postgres://admin:pw@db.internal:5432/app', gone: [':pw@'], kept: ['postgres://admin:', '@db.internal:5432/app'] },
    { input: 'DATABASE_URL=postgresql://app_user:S3cr3t!x@10.0.0.5/prod', gone: ['S3cr3t!x'] },
    { input: 'mongodb+srv://root:hunter2hunter2@cluster0.mongodb.net/?retryWrites=true', gone: ['hunter2hunter2'] },
    { input: 'redis://:p4ssw0rd@cache:6379/0', gone: ['p4ssw0rd'] },
    { input: 'git clone https://oauth2:tok3n-value@gitlab.example.com/g/p.git', gone: ['tok3n-value'] },
    { input: 'amqp://guest:guest@localhost:5672/', gone: [':guest@'] },
    { input: `https://${fake(32, '0123456789abcdef', 3)}@o123.ingest.sentry.io/42`, gone: [fake(32, '0123456789abcdef', 3)] },
  ],
  negative: ['https://github.com/org/repo', 'ssh://git@github.com/org/repo.git', 'https://example.com/user/path', 'mailto:someone at host', 'http://localhost:8787/hooks/x'],
  adversarial: ['://', 'a://', 'a://b:c', 'postgres://a:b', 'x://@@@@', 'a://:'],
};

// ---- credentials given to well-known commands ----

const ARG_STOP = charClass('\\s"\'`;|&');
const SEPARATORS = /[\n;|&]/g;

interface CommandFlagDef {
  id: string;
  source: string;
  description: string;
  /** Command names (regex alternatives). */
  commands: string;
  /** Flag alternatives (regex). */
  flags: string;
  /** Value attached to the flag (`-psecret`) and/or spaced (`-p secret`, `--user=x`). */
  attached?: boolean;
  spaced?: boolean;
  /** The value is `user:password`: only the part after the first colon is secret (and the value must have one). */
  afterColon?: boolean;
  /** A literal prefix of the value itself (`pass:` in openssl's -passin pass:X). */
  valuePrefix?: string;
  positive: (string | { input: string; gone?: string[]; kept?: string[] })[];
  negative: string[];
}

function commandFlagRule(d: CommandFlagDef): Rule {
  const cmdRe = new RegExp(`(?<![\\w.-])(?:${d.commands})(?![\\w-])`, 'g');
  const spacer = d.attached && d.spaced ? '(?:=|[ \\t]{1,8})?' : d.attached ? '' : '(?:=|[ \\t]{1,8})';
  const flagRe = new RegExp(`(?<![\\w-])(?:${d.flags})${spacer}(?=["'\\w$%!@#^*(){}\\[\\]:+.,/~-])`, 'g');
  return {
    id: d.id,
    stage: 'secret',
    source: d.source,
    description: d.description,
    anchor: d.commands,
    window: 600,
    positive: d.positive,
    negative: d.negative,
    adversarial: [`${d.commands.split('|')[0]} ${d.flags.split('|')[0]}`, `${d.flags.split('|')[0]}x `, `${d.commands.split('|')[0]} `],
    find(text: string, out: Match[]) {
      // command positions and separator positions, each found once, in order
      const cmds: number[] = [];
      cmdRe.lastIndex = 0;
      let m: RegExpExecArray | null;
      while ((m = cmdRe.exec(text))) cmds.push(m.index);
      if (!cmds.length) return;
      flagRe.lastIndex = 0;
      if (!flagRe.test(text)) return;
      const seps: number[] = [];
      SEPARATORS.lastIndex = 0;
      while ((m = SEPARATORS.exec(text))) seps.push(m.index);
      let ci = -1;
      let si = -1;
      flagRe.lastIndex = 0;
      while ((m = flagRe.exec(text))) {
        const at = m.index;
        while (ci + 1 < cmds.length && cmds[ci + 1] < at) ci++;
        while (si + 1 < seps.length && seps[si + 1] < at) si++;
        const next = at + m[0].length;
        flagRe.lastIndex = next;
        if (ci < 0 || (si >= 0 && seps[si] > cmds[ci]) || at - cmds[ci] > 512) continue;
        // the value: quoted or a bare argument
        let vs = next;
        let ve: number;
        const q = text[vs];
        if (q === '"' || q === "'") {
          const close = indexIn(text, q, vs + 1, vs + 513);
          if (close < 0) continue;
          vs += 1;
          ve = close;
        } else {
          ve = vs;
          while (ve < text.length && !ARG_STOP(text.charCodeAt(ve))) ve++;
        }
        if (d.valuePrefix) {
          if (!text.startsWith(d.valuePrefix, vs)) continue;
          vs += d.valuePrefix.length;
        }
        if (d.afterColon) {
          const c = indexIn(text, ':', vs, ve);
          if (c < 0) continue;
          vs = c + 1;
        }
        if (ve <= vs || text.startsWith('[REDACTED', vs)) continue;
        out.push({ start: vs, end: ve, ctx: cmds[ci], stage: 'secret', rule: d.id, rep: SECRET, cont: ve === text.length && q !== '"' && q !== "'" ? { kind: 'class', test: (c) => !ARG_STOP(c) } : undefined });
        flagRe.lastIndex = Math.max(ve, next);
      }
    },
  };
}

export const COMMAND_RULES: Rule[] = [
  commandFlagRule({
    id: 'curl-user',
    source: 'gitleaks:curl-auth-user (curl -u/--user user:password)',
    description: '`curl -u user:password` / `--user`: the password part',
    commands: 'curl',
    flags: '-u|--user',
    spaced: true,
    afterColon: true,
    positive: [
      { input: 'curl -u user:pw https://api.test', gone: [':pw '], kept: ['curl -u user:', 'https://api.test'] },
      { input: "curl -s --user 'admin:s3cr3t value' https://x", gone: ['s3cr3t value'] },
      { input: 'curl --user=deploy:Tr0ub4dor https://x', gone: ['Tr0ub4dor'] },
    ],
    negative: ['curl -u user https://x (prompted)', 'docker run -u 1000:1000 image', 'curl https://x; id -u root:x'],
  }),
  commandFlagRule({
    id: 'mysql-password-flag',
    source: 'MySQL 8.4 Reference Manual, 6.2.2.1 Using Options on the Command Line (-p<password> attached); MariaDB client options',
    description: '`mysql -p<password>` (the attached form is the password) in the mysql/mariadb client family',
    commands: 'mysql|mysqldump|mysqladmin|mysqlimport|mysqlshow|mysqlcheck|mysqlpump|mysqlsh|mariadb|mariadb-dump|mariadb-admin',
    flags: '-p',
    attached: true,
    positive: [
      { input: 'mysql -u root -pS3cretPass mydb', gone: ['S3cretPass'], kept: ['mysql -u root -p', 'mydb'] },
      { input: "mysqldump -uroot -p'my pass' db > dump.sql", gone: ['my pass'] },
    ],
    negative: ['mysql -u root -p mydb (prompts)', 'mkdir -pv build', 'ssh -p22 host'],
  }),
  commandFlagRule({
    id: 'sshpass-password',
    source: 'sshpass(1) -p password',
    description: '`sshpass -p <password>`',
    commands: 'sshpass',
    flags: '-p',
    attached: true,
    spaced: true,
    positive: [{ input: 'sshpass -p hunter22 ssh user@host', gone: ['hunter22'], kept: ['ssh'] }],
    negative: ['sshpass -f ~/.pw ssh host', 'ssh -p 22 host'],
  }),
  commandFlagRule({
    id: 'redis-cli-password',
    source: 'redis-cli(1) -a <password> / --pass',
    description: '`redis-cli -a <password>`',
    commands: 'redis-cli|valkey-cli',
    flags: '-a|--pass|--askpass-value',
    spaced: true,
    positive: [{ input: 'redis-cli -h cache -a R3disPass ping', gone: ['R3disPass'], kept: ['ping'] }],
    negative: ['redis-cli -h cache ping', 'ls -a /tmp'],
  }),
  commandFlagRule({
    id: 'openssl-pass-arg',
    source: 'openssl-passphrase-options(1) (-passin/-passout/-pass pass:<password>)',
    description: 'openssl `pass:<password>` arguments',
    commands: 'openssl',
    flags: '-passin|-passout|-pass|-password',
    spaced: true,
    valuePrefix: 'pass:',
    positive: [{ input: 'openssl pkcs12 -export -in c.pem -passout pass:Exp0rtPw -out c.p12', gone: ['Exp0rtPw'], kept: ['-out c.p12'] }],
    negative: ['openssl pkcs12 -passin env:P12_PASS', 'openssl pkcs12 -passin file:pw.txt'],
  }),
];
