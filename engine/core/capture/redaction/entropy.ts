// "Looks random": the entropy test the redaction pipeline applies to values
// next to secret-looking names whose name alone is not conclusive (`STRIPE_KEY`,
// `sig`, `--key`). Beyond the AEP-0003 §9.4 floor; modelled on gitleaks'
// generic-api-key rule (a keyword-named assignment plus a Shannon-entropy
// threshold) and detect-secrets' hex/base64 entropy limits. UUIDs and
// 40-hex git SHAs are never "random secrets" here (they are identifiers).

/** Shannon entropy in bits per character. */
export function shannon(s: string): number {
  if (!s) return 0;
  const counts = new Map<number, number>();
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    counts.set(c, (counts.get(c) ?? 0) + 1);
  }
  let h = 0;
  for (const n of counts.values()) {
    const p = n / s.length;
    h -= p * Math.log2(p);
  }
  return h;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const HEX = /^[0-9a-f]+$/i;
const TOKEN_CHARS = /^[A-Za-z0-9+/=_.~%-]+$/;
/** A dash/underscore/dot-joined run of lower-case words (`v1-build-cache-linux`): a name, not a key. */
const WORDY = /^(?:[a-z]{1,2}\d*[._-])?(?:[a-z]{3,}[._-]?)+\d*$/;

export function isUuid(s: string): boolean {
  return UUID.test(s);
}

/** A 40-hex (SHA-1, git object id) or 64-hex (SHA-256) value: a hash, when named as one. */
export function isHashShaped(s: string): boolean {
  return HEX.test(s) && (s.length === 40 || s.length === 64 || s.length === 32);
}

/**
 * Whether a value next to a maybe-secret name looks like a random secret:
 * 16..4096 token characters, no UUID or git SHA, not a run of words, and
 * either hex with >= 3.0 bits/char, or >= 3.5 bits/char with upper, lower
 * and digits (or 20+ long with 15% digits), or >= 4.0 bits/char when 32+.
 */
export function looksRandom(s: string): boolean {
  if (s.length < 16 || s.length > 4096) return false;
  if (!TOKEN_CHARS.test(s)) return false;
  if (UUID.test(s)) return false;
  if (HEX.test(s)) {
    if (s.length === 40) return false; // a git object id
    return /\d/.test(s) && /[a-f]/i.test(s) && shannon(s) >= 3.0;
  }
  if (WORDY.test(s)) return false;
  const h = shannon(s);
  const upper = /[A-Z]/.test(s);
  const lower = /[a-z]/.test(s);
  const digits = s.replace(/\D+/g, '').length;
  if (upper && lower && digits && h >= 3.5) return true;
  if (digits / s.length >= 0.15 && (upper || lower) && s.length >= 20 && h >= 3.5) return true;
  return s.length >= 32 && h >= 4.0;
}
