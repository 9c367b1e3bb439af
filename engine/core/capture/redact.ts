// The AEP-0003 §9.4 redaction pipeline for `redacted`-gated free text, in
// order: (a) secrets, (b) operator-configured names, (c) home paths, (d) PII.
// The pipeline is a floor; the rule table (engine/core/capture/redaction/) adds
// provider token formats, URL and command-line credentials, credential
// headers, secret-named keys with an entropy test, and redaction that holds
// across streamed fragments (AEP-0007 §6). Every rule is linear in its
// input (issue 11); big strings can be redacted off the critical path in
// yielding slices (`prepare`) so one agent's payload never stalls another's.
//
// Public API (the relay, the daemon and the capture gate call it):
//   new Redactor(cfg).text(s)   a string
//   new Redactor(cfg).deep(v)   every string of a JSON value; values under
//                               secret-named keys are replaced whole
//
// This file is the ONE place the pipeline reads the environment:
// HOOKMAP_SECRET_NAMES (names of env vars whose values are secret) and
// HOOKMAP_REDACT_PII=off (keep emails and phone numbers).
import { homedir } from 'node:os';
import { looksRandom } from './redaction/entropy.ts';
import { classifyKey } from './redaction/keys.ts';
import { keyedRule } from './redaction/keyed.ts';
import { HOME_RULES, literalRule, operatorHomeRule, PII_RULES } from './redaction/personal.ts';
import { apply, findAll, guardPlaceholders, resolve } from './redaction/scan.ts';
import { StreamRedactor } from './redaction/stream.ts';
import { BASIC_RULE, BEARER_RULE, COMMAND_RULES, PEM_RULE, URL_CREDENTIALS_RULE } from './redaction/structural.ts';
import { TOKEN_RULES } from './redaction/tokens.ts';
import { SECRET, type Match, type Rule } from './redaction/types.ts';

export { SECRET, PII } from './redaction/types.ts';
export { StreamRedactor } from './redaction/stream.ts';

export interface RedactionConfig {
  /** Names of environment variables (or config keys) whose VALUES are secret. */
  secretNames?: string[];
  /** Literal secret values to scrub (resolved from secretNames by the caller or here from env). */
  secretValues?: string[];
  /** PII class (emails, phone numbers): on by default. */
  pii?: boolean;
  home?: string;
  /**
   * The strictest settings (`hookmap record`): PII always on, maybe-secret
   * names redacted whatever their value looks like, and the values of every
   * environment variable whose NAME is secret-looking scrubbed as literals.
   */
  strict?: boolean;
  /**
   * The environment whose variables' VALUES are scrubbed (the ones `secretNames`
   * names; under `strict`, every secret-looking name): the CLI edge hands its
   * own down. Default: none. The names and the PII switch are configuration
   * (HOOKMAP_SECRET_NAMES / HOOKMAP_REDACT_PII, resolved at the edge:
   * engine/cli/config.ts), given as `secretNames` and `pii`.
   */
  env?: Readonly<Record<string, string | undefined>>;
}

/** What an operator configures for redaction (RuntimeConfig.redaction, plus the environment holding the values). */
export type RedactionSettings = Pick<RedactionConfig, 'secretNames' | 'pii' | 'env'>;

/** The fixed secret rules (stage a), in table order. */
export function secretRules(strict = false): Rule[] {
  return [PEM_RULE, ...TOKEN_RULES, BEARER_RULE, BASIC_RULE, URL_CREDENTIALS_RULE, ...COMMAND_RULES, keyedRule(strict)];
}

/** Every fixed row of the table (docs, the corpus test, the linear-time test). */
export function ruleTable(): Rule[] {
  return [...secretRules(), ...HOME_RULES, ...PII_RULES];
}

/** Strings at least this long are redacted in yielding slices by `prepare`. */
export const PREPARE_MIN = 32 * 1024;
const PREPARE_SLICE = 64 * 1024;
const CACHE_CHARS = 16 * 1024 * 1024;
const NON_VALUES = new Set(['', 'null', 'true', 'false', 'none', 'nil', 'undefined']);

const yieldToLoop = () => new Promise<void>((r) => setImmediate(r));

export class Redactor {
  private readonly rules: Rule[];
  private readonly strict: boolean;
  /** The hold-back a stream of this configuration needs. */
  readonly holdBack: number;
  private readonly prepared = new Map<string, string>();
  private preparedChars = 0;

  constructor(cfg: RedactionConfig = {}) {
    const env = cfg.env ?? {};
    this.strict = cfg.strict ?? false;
    // (b) configured names (the descriptor's, HOOKMAP_SECRET_NAMES=DB_PASSWORD,STRIPE_KEY): their values in `env`
    const values = [...(cfg.secretValues ?? [])];
    for (const name of cfg.secretNames ?? []) {
      const v = env[name];
      if (v && v.length >= 4) values.push(v);
    }
    if (this.strict) {
      for (const [name, v] of Object.entries(env)) if (v && v.length >= 8 && classifyKey(name) === 'secret') values.push(v);
    }
    const rules: Rule[] = [...secretRules(this.strict)];
    if (values.length) rules.push(literalRule(values));
    // (c) home paths: the operator's own, then any user's
    const home = operatorHomeRule(cfg.home ?? homedir());
    if (home) rules.push(home);
    rules.push(...HOME_RULES);
    // (d) PII: on by default at `redacted`; an operator may switch it off (never under strict)
    if (this.strict || (cfg.pii ?? true)) rules.push(...PII_RULES);
    this.rules = rules;
    this.holdBack = Math.min(8192, Math.max(...rules.map((r) => r.window)) + 64);
  }

  /** Resolved matches (non-overlapping, sorted): what `text` replaces. */
  resolvedMatches(s: string): Match[] {
    return guardPlaceholders(s, resolve(findAll(s, this.rules)));
  }

  text(s: string): string {
    if (!s) return s;
    if (s.length >= PREPARE_MIN) {
      const done = this.prepared.get(s);
      if (done !== undefined) return done;
    }
    const ms = this.resolvedMatches(s);
    return ms.length ? apply(s, ms) : s;
  }

  /**
   * Every string inside a JSON value, keys kept. A value under a secret-named
   * key (`token`, `Password`, `API_KEY`, `authorization`, ...) is replaced
   * whole, objects under one have all their strings replaced; a maybe-secret
   * name (`STRIPE_KEY`, `sig`) is replaced when its value looks random.
   * `_path` is the value's place in its event (stream redaction keys on it).
   */
  deep(value: unknown, _path?: string): unknown {
    return this.walk(value, false);
  }

  private walk(value: unknown, secret: boolean): unknown {
    if (typeof value === 'string') return secret ? this.whole(value) : this.text(value);
    if (Array.isArray(value)) return value.map((v) => this.walk(v, secret));
    if (value && typeof value === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) {
        if (secret) {
          out[k] = this.walk(v, true);
          continue;
        }
        const cls = classifyKey(k);
        if (cls === 'secret' || (cls === 'maybe' && this.strict && typeof v === 'string' && v.length >= 8)) {
          out[k] = typeof v === 'number' ? SECRET : this.walk(v, true);
        } else if (cls === 'maybe' && typeof v === 'string' && looksRandom(v)) {
          out[k] = SECRET;
        } else out[k] = this.walk(v, false);
      }
      return out;
    }
    return value;
  }

  private whole(s: string): string {
    return NON_VALUES.has(s.toLowerCase()) || s.startsWith('[REDACTED') ? s : SECRET;
  }

  /** A fresh per-stream redactor (AEP-0007 §6): push fragments, flush at the end. */
  stream(): StreamRedactor {
    return new StreamRedactor(this);
  }

  /** `text`, in slices that yield to the event loop between them (same result as the stream redactor). */
  async textAsync(s: string): Promise<string> {
    if (s.length < PREPARE_MIN) return this.text(s);
    const st = this.stream();
    let out = '';
    for (let i = 0; i < s.length; i += PREPARE_SLICE) {
      out += st.push(s.slice(i, i + PREPARE_SLICE));
      await yieldToLoop();
    }
    return out + st.flush();
  }

  /** Drop what `prepare` computed (the caller's firing is done with it). */
  forgetPrepared(): void {
    this.prepared.clear();
    this.preparedChars = 0;
  }

  /**
   * Redact every big string of `value` ahead of time, yielding between
   * slices, so the synchronous `text`/`deep` calls that follow (the capture
   * gate) find the result ready. One agent's multi-megabyte payload then
   * costs other agents' hooks at most one slice of waiting.
   */
  async prepare(value: unknown): Promise<void> {
    const big: string[] = [];
    const seen = (v: unknown, depth: number) => {
      if (typeof v === 'string') {
        if (v.length >= PREPARE_MIN && !this.prepared.has(v)) big.push(v);
        return;
      }
      if (!v || typeof v !== 'object' || depth > 64) return;
      for (const x of Array.isArray(v) ? v : Object.values(v)) seen(x, depth + 1);
    };
    seen(value, 0);
    for (const s of big) {
      if (this.prepared.has(s)) continue;
      const r = await this.textAsync(s);
      this.prepared.set(s, r);
      this.preparedChars += s.length;
      while (this.preparedChars > CACHE_CHARS && this.prepared.size) {
        const [k] = this.prepared.keys();
        this.prepared.delete(k);
        this.preparedChars -= k.length;
      }
    }
  }
}
