// The AEP-0003 §9.4 redaction pipeline, applied in order to `redacted`-gated
// free text: (a) secrets, (b) operator-configured names, (c) home paths,
// (d) PII. The pipeline is a floor: we redact a few more well-known token
// shapes than the spec's minimum.
import { homedir } from 'node:os';

export interface RedactionConfig {
  /** Names of environment variables (or config keys) whose VALUES are secret. */
  secretNames?: string[];
  /** Literal secret values to scrub (resolved from secretNames by the caller or here from env). */
  secretValues?: string[];
  /** PII class (emails, phone numbers): on by default. */
  pii?: boolean;
  home?: string;
}

const SECRET = '[REDACTED:secret]';
const PII = '[REDACTED:pii]';

const SECRET_PATTERNS: [RegExp, string][] = [
  [/-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|$)/g, SECRET],
  [/-----BEGIN [A-Z0-9 ]+-----[\s\S]*?-----END [A-Z0-9 ]+-----/g, SECRET],
  [/\bAKIA[0-9A-Z]{16}\b/g, SECRET],
  [/\bBearer\s+[A-Za-z0-9\-._~+/]+=*/g, `Bearer ${SECRET}`],
  [/\beyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}/g, SECRET],
  // well-known token prefixes (beyond the normative minimum)
  [/\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|sk-(?:ant-|proj-)?[A-Za-z0-9_-]{20,}|xox[abposr]-[A-Za-z0-9-]{10,}|AIza[0-9A-Za-z_-]{35})\b/g, SECRET],
];
// key=value / key: value secrets keep the key, lose the value
const KEYED_SECRET = /\b([A-Za-z0-9_-]*(?:password|passwd|secret|api[_-]?key|token)[A-Za-z0-9_-]*["']?\s*[=:]\s*["']?)([^\s"',;]+)/gi;

const EMAIL = /\b[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}\b/g;
const PHONE = /(?<![\w/.-])(?:\+\d{1,3}[\s.-]?)?(?:\(\d{2,4}\)[\s.-]?|\d{2,4}[\s.-])\d{3,4}[\s.-]\d{3,4}(?![\w/.-])/g;

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

export class Redactor {
  private readonly literals: RegExp | null;
  private readonly homes: RegExp[];
  private readonly pii: boolean;

  constructor(cfg: RedactionConfig = {}) {
    const values = [...(cfg.secretValues ?? [])];
    // operator-configured names (§9.4 b): HOOKMAP_SECRET_NAMES=DB_PASSWORD,STRIPE_KEY
    const operatorNames = (process.env.HOOKMAP_SECRET_NAMES ?? '').split(',').map((n) => n.trim()).filter(Boolean);
    for (const name of [...(cfg.secretNames ?? []), ...operatorNames]) {
      const v = process.env[name];
      if (v && v.length >= 4) values.push(v);
    }
    const uniq = [...new Set(values.filter((v) => v.length >= 4))].sort((a, b) => b.length - a.length);
    this.literals = uniq.length ? new RegExp(uniq.map(escapeRe).join('|'), 'g') : null;
    const home = cfg.home ?? homedir();
    this.homes = [];
    if (home && home !== '/') this.homes.push(new RegExp(`${escapeRe(home.replace(/\/+$/, ''))}(?=/|\\b|$)`, 'g'));
    // any other user's home prefix, POSIX and Windows
    this.homes.push(/\/(?:home|Users)\/[^/\s"']+/g, /\b[A-Za-z]:\\Users\\[^\\\s"']+/g);
    // PII is on by default at `redacted`; an operator may switch it off (§9.4 d)
    this.pii = cfg.pii ?? !/^(0|off|false|no)$/i.test(process.env.HOOKMAP_REDACT_PII ?? '');
  }

  text(s: string): string {
    let out = s;
    for (const [re, rep] of SECRET_PATTERNS) out = out.replace(re, rep);
    out = out.replace(KEYED_SECRET, (_m, key: string) => `${key}${SECRET}`);
    if (this.literals) out = out.replace(this.literals, SECRET);
    for (const re of this.homes) out = out.replace(re, '~');
    if (this.pii) out = out.replace(EMAIL, PII).replace(PHONE, PII);
    return out;
  }

  /** Every string inside a JSON value (keys kept). */
  deep(value: unknown): unknown {
    if (typeof value === 'string') return this.text(value);
    if (Array.isArray(value)) return value.map((v) => this.deep(v));
    if (value && typeof value === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) out[k] = this.deep(v);
      return out;
    }
    return value;
  }
}

export const defaultRedactor = new Redactor();
