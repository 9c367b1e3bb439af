// HTTP authorization schemes (RFC 6750 Bearer, RFC 7617 Basic; the scheme is
// case-insensitive per RFC 7235 §2.1), structural secret rules (structural.ts)
// built as linear pattern rules (regex-rule.ts). Bearer tokens are an
// AEP-0003 §9.4(a) floor row.
import { ci, patternRule } from './regex-rule.ts';

const TOKEN68 = 'A-Za-z0-9._~+/-';

export const BEARER_RULE = patternRule({
  id: 'bearer-token',
  anchor: ci('bearer'),
  source: 'AEP-0003 §9.4(a) floor (`Bearer `-prefixed tokens); RFC 6750 b64token, scheme case-insensitive (RFC 7235 §2.1); gitleaks:curl-auth-header',
  description:
    'Bearer tokens: `Bearer <t>` always (the floor); other casings (`bearer`, `BEARER`) when <t> looks like a token (8+ chars with a digit or symbol, or 20+)',
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
