// The secret scanner of `hookmap record` (issue 10): the strictest redaction
// rules, run over the final bytes of a file (a recorded fixture candidate
// after redaction, serialized), reporting what still looks like a secret.
// A recorder refuses to write a file with any finding; every fixture under
// fixtures/*/recorded/ must scan clean (test/redaction/recorded-scan.test.ts).
// Home paths and PII are redacted by the recorder but are not findings.
import { Redactor, type RedactionConfig } from '../redact.ts';

export interface Finding {
  rule: string;
  /** 1-based line and column of the finding's start. */
  line: number;
  column: number;
  /** The finding with its middle masked (never the secret itself). */
  excerpt: string;
}

const mask = (s: string) => (s.length <= 8 ? '*'.repeat(s.length) : `${s.slice(0, 3)}${'*'.repeat(Math.min(12, s.length - 6))}${s.slice(-3)}`);

export class SecretScanner {
  private readonly r: Redactor;
  constructor(cfg: RedactionConfig = {}) {
    this.r = new Redactor({ ...cfg, strict: true });
  }

  scan(text: string): Finding[] {
    const out: Finding[] = [];
    let line = 1;
    let lineStart = 0;
    let at = 0;
    for (const m of this.r.resolvedMatches(text)) {
      if (m.stage !== 'secret' && m.stage !== 'name') continue;
      for (; at < m.start; at++)
        if (text.charCodeAt(at) === 10) {
          line++;
          lineStart = at + 1;
        }
      out.push({ rule: m.rule, line, column: m.start - lineStart + 1, excerpt: mask(text.slice(m.start, m.end)) });
    }
    return out;
  }
}

export function formatFindings(where: string, fs: Finding[]): string {
  return fs.map((f) => `${where}:${f.line}:${f.column}: ${f.rule} (${f.excerpt})`).join('\n');
}
