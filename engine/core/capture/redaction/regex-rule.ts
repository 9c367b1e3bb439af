// Builders for pattern rules. Linear time by construction (issue 11):
//   - every pattern starts at a literal or is anchored by a negative
//     lookbehind on its own first character class, so inside one long run of
//     token characters only the run's first position can start an attempt;
//   - every quantifier inside a pattern is bounded; a secret longer than
//     the bound is extended in code over its tail character class, and the
//     scan resumes after it, so no character is scanned twice by one rule.
// Also the shared pieces of hand-written finders: character-class tests and
// bounded single-character searches.
import type { Continuation, Match, Rule, RuleExample, Stage } from './types.ts';
import { SECRET } from './types.ts';

/** A character-class membership test from a regex class body (`A-Za-z0-9_-`). */
export function charClass(body: string): (code: number) => boolean {
  const re = new RegExp(`[${body}]`);
  const table = new Uint8Array(128);
  for (let c = 0; c < 128; c++) table[c] = re.test(String.fromCharCode(c)) ? 1 : 0;
  return (c) => c < 128 && table[c] === 1;
}

export interface PatternDef {
  id: string;
  source: string;
  description: string;
  /** The pattern (a regex source). A named group `s` marks the secret when it is not the whole match; it must end the match (only lookarounds after it). */
  pattern: string;
  flags?: string;
  /** Characters that may not precede the match (default: token characters). '' = no boundary. */
  left?: string;
  /** The secret's own character class: a match is extended over it (unbounded secrets, stream continuation). */
  tail?: string;
  /** Keep only matches that pass this test (of the secret text). */
  accept?: (secret: string, text: string, start: number) => boolean;
  /** Move the span's start back (a pattern anchored on a rare character in its middle, e.g. an email's '@'). */
  startOf?: (text: string, start: number) => number;
  stage?: Stage;
  rep?: string;
  window?: number;
  keywords?: string[];
  /** See Rule.anchor. */
  anchor?: string;
  positive: (string | RuleExample)[];
  negative: string[];
  adversarial?: string[];
}

export function patternRule(d: PatternDef): Rule {
  const left = d.left ?? 'A-Za-z0-9_';
  const hasGroup = d.pattern.includes('(?<s>');
  const source = left ? `(?<![${left}])(?:${d.pattern})` : d.pattern;
  const re = new RegExp(source, `g${d.flags ?? ''}`);
  const tail = d.tail ? charClass(d.tail) : undefined;
  const cont: Continuation | undefined = tail ? { kind: 'class', test: tail } : undefined;
  const stage = d.stage ?? 'secret';
  const rep = d.rep ?? SECRET;
  return {
    id: d.id,
    stage,
    source: d.source,
    description: d.description,
    keywords: d.keywords,
    anchor: d.anchor,
    window: d.window ?? 512,
    positive: d.positive,
    negative: d.negative,
    adversarial: d.adversarial ?? [],
    find(text: string, out: Match[]) {
      re.lastIndex = 0;
      let m: RegExpExecArray | null;
      while ((m = re.exec(text))) {
        let start = m.index;
        let end = start + m[0].length;
        if (hasGroup) {
          const g = m.groups?.s;
          if (!g) {
            re.lastIndex = end > m.index ? end : m.index + 1;
            continue;
          }
          start = end - g.length; // the group ends the match
        }
        if (tail) while (end < text.length && tail(text.charCodeAt(end))) end++;
        if (d.startOf) start = d.startOf(text, start);
        const next = Math.max(end, m.index + m[0].length, m.index + 1);
        if (d.accept && !d.accept(text.slice(start, end), text, start)) {
          re.lastIndex = next;
          continue;
        }
        out.push({ start, end, ctx: Math.min(start, m.index), stage, rule: d.id, rep, cont: end === text.length ? cont : undefined });
        re.lastIndex = next;
      }
    },
  };
}

/** A case-insensitive regex source for a literal (`ci('bearer')` -> `[Bb][Ee]...`): anchors are matched case-sensitively. */
export function ci(word: string): string {
  return [...word].map((c) => (/[a-z]/i.test(c) ? `[${c.toUpperCase()}${c.toLowerCase()}]` : c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).join('');
}

/** Deterministic pseudo-random filler for examples (never a real credential). */
export function fake(n: number, alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789', seed = 7): string {
  let x = seed >>> 0 || 1;
  let s = '';
  for (let i = 0; i < n; i++) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    s += alphabet[(x >>> 16) % alphabet.length];
  }
  return s;
}
export const HEXL = '0123456789abcdef';
export const B64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-';
/** Token characters as a regex class body (patterns, tails, boundaries). */
export const A = 'A-Za-z0-9';
/** Example alphabets (fake() fillers). */
export const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
export const UPPER_NUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

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
