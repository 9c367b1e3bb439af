// Shared shapes of the redaction pipeline (AEP-0003 §9.4): a rule finds
// matches in raw text; the scan resolves them by stage and rewrites the text.
// Every rule must do work linear in the text it is given (issue 11): each
// match attempt is bounded, and no position is re-scanned by a failed
// attempt started at an earlier position of the same run.

/** The §9.4 stages, in pipeline order: (a) secrets, (b) configured names, (c) home paths, (d) PII. */
export type Stage = 'secret' | 'name' | 'home' | 'pii';
export const STAGE_ORDER: Stage[] = ['secret', 'name', 'home', 'pii'];

export const SECRET = '[REDACTED:secret]';
export const PII = '[REDACTED:pii]';

/**
 * How a secret that reaches the end of a stream fragment continues into the
 * next one (the stream redactor swallows the continuation instead of
 * emitting it): a run of characters of one class, or everything up to a
 * terminator (exclusive) / a marker (inclusive).
 */
export type Continuation = { kind: 'class'; test: (code: number) => boolean } | { kind: 'until'; chars: string } | { kind: 'marker'; marker: string };

export interface Match {
  /** The span replaced. */
  start: number;
  end: number;
  /** Where the text this match depends on begins (a key, a command name): <= start. */
  ctx: number;
  stage: Stage;
  rule: string;
  /** The replacement text. */
  rep: string;
  /** The span ran to the end of the text and could go on (stream redaction only). */
  cont?: Continuation;
}

export interface RuleExample {
  input: string;
  /** Substrings that must be gone after redaction (default for positives: the whole secret is unknown, so give them). */
  gone?: string[];
  /** Substrings that must survive (ordinary text around the secret). */
  kept?: string[];
}

export interface Rule {
  /** Our id (stable; named in scanner findings and the corpus). */
  id: string;
  stage: Stage;
  /** Where the pattern comes from: `gitleaks:<rule-id>`, `secretlint:<rule>`, `AEP-0003 §9.4(a)`, a vendor's documented format. */
  source: string;
  description: string;
  /** Literal text the rule anchors on (documentation; the rules search for it themselves). */
  keywords?: string[];
  /**
   * A regex source that every match of the rule contains (matched case-sensitively):
   * one combined pass over the text finds which anchored rules can match at
   * all, and only those run (a prefilter; never changes what is found).
   */
  anchor?: string;
  /** Push every match in `text` into `out`. Must be linear in text.length. */
  find(text: string, out: Match[]): void;
  /** Text (context + span) a match may need before it is recognisable without continuation; bounds the stream hold-back. */
  window: number;
  /** Positive examples (redacted) and negative ones (left untouched). */
  positive: (string | RuleExample)[];
  negative: string[];
  /** Seeds for hostile inputs: each is repeated to 100 KB and 1 MB in the linear-time test. */
  adversarial: string[];
}
