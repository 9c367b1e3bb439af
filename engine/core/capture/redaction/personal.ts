// AEP-0003 §9.4 (b) configured names, (c) home paths, (d) PII. Stage (b) and
// the operator's home are per-configuration (built by the Redactor); the
// rest are fixed rows.
import { charClass, patternRule } from './regex-rule.ts';
import type { Match, Rule } from './types.ts';
import { PII, SECRET } from './types.ts';

/** §9.4(b): literal values the operator names as secret (values of configured env vars / keys). */
export function literalRule(values: string[]): Rule {
  const uniq = [...new Set(values.filter((v) => v.length >= 4))].sort((a, b) => b.length - a.length);
  return {
    id: 'configured-value',
    stage: 'name',
    source: 'AEP-0003 §9.4(b) floor (values of environment variables / config keys the operator lists as secret)',
    description: 'Values of HOOKMAP_SECRET_NAMES and descriptor capture.secret_names variables',
    window: Math.max(64, ...uniq.map((v) => v.length)),
    positive: [],
    negative: [],
    adversarial: [],
    find(text: string, out: Match[]) {
      for (const v of uniq) {
        let i = 0;
        while ((i = text.indexOf(v, i)) >= 0) {
          out.push({ start: i, end: i + v.length, ctx: i, stage: 'name', rule: 'configured-value', rep: SECRET });
          i += v.length;
        }
      }
    },
  };
}

const PATH_CHAR = charClass('A-Za-z0-9_.-');

/** §9.4(c): the operator's own home directory prefix. */
export function operatorHomeRule(home: string): Rule | undefined {
  const h = home.replace(/[\\/]+$/, '');
  if (!h || h === '/' || h.length < 2) return undefined;
  return {
    id: 'operator-home',
    stage: 'home',
    source: 'AEP-0003 §9.4(c) floor (user home directory prefix replaced with ~)',
    description: "The operator's home directory prefix",
    window: h.length + 1,
    positive: [],
    negative: [],
    adversarial: [],
    find(text: string, out: Match[]) {
      let i = 0;
      while ((i = text.indexOf(h, i)) >= 0) {
        const after = text.charCodeAt(i + h.length);
        // a whole path component: /home/al must not eat /home/alice
        if (Number.isNaN(after) || !PATH_CHAR(after)) out.push({ start: i, end: i + h.length, ctx: i, stage: 'home', rule: 'operator-home', rep: '~' });
        i += h.length;
      }
    },
  };
}

export const HOME_RULES: Rule[] = [
  patternRule({
    id: 'home-path',
    source: 'AEP-0003 §9.4(c); AEP conformance fixtures/redaction (any /home/<user>, /Users/<user>: hardening beyond the floor)',
    description: 'Any POSIX user home prefix (/home/<user>, /Users/<user>)',
    // at the start of a path only (a `home` folder deeper in a path is not a home: /srv/x/home/.cache stays), and a
    // user name never starts with a dot (/home/.factory is a folder in a home, not a user: the path keeps its shape)
    pattern: '/(?:home|Users)/[^/.\\s"\'`\\\\:][^/\\s"\'`\\\\:]{0,63}',
    left: 'A-Za-z0-9_.~-',
    tail: '^/\\s"\'`\\\\:',
    stage: 'home',
    rep: '~',
    positive: [
      { input: 'copied to /home/alice/project/file.txt', gone: ['/home/alice'], kept: ['~/project/file.txt'] },
      { input: 'backup at /Users/bob/Documents/x.key', gone: ['/Users/bob'], kept: ['~/Documents/x.key'] },
    ],
    negative: ['/usr/share/doc', '/homework/notes', 'the home/ folder', '/tmp/scratch/home/.factory/sessions/x', '/srv/data/home/alice/x'],
    adversarial: ['/home/', '/home/a/home/', '/Users/'],
  }),
  patternRule({
    id: 'windows-home-path',
    anchor: 'Users',
    source: 'AEP-0003 §9.4(c) (Windows user profile prefix C:\\Users\\<user>)',
    description: 'Windows user profile prefix, plain or JSON-escaped backslashes',
    pattern: '[A-Za-z]:(?:\\\\\\\\?)Users(?:\\\\\\\\?)[^\\\\/\\s"\'`]{1,64}',
    left: 'A-Za-z0-9',
    stage: 'home',
    rep: '~',
    positive: [
      { input: 'opened C:\\Users\\carol\\repo\\a.ts', gone: ['carol'], kept: ['repo'] },
      { input: '{"cwd":"C:\\\\Users\\\\dave\\\\src"}', gone: ['dave'], kept: ['src'] },
    ],
    negative: ['C:\\Program Files\\app', 'D:\\data\\Users.csv'],
    adversarial: ['C:\\Users\\', 'C:C:C:'],
  }),
];

export const PII_RULES: Rule[] = [
  patternRule({
    id: 'email',
    source: 'AEP-0003 §9.4(d) floor (emails)',
    description: 'Email addresses (not git@host SSH remotes)',
    // anchored on the rare '@'; the local part is read by a bounded lookbehind
    pattern: '@(?<=(?<![A-Za-z0-9._%+-])(?!git@)[A-Za-z0-9._%+-]{1,64}@)[A-Za-z0-9-]{1,63}(?:\\.[A-Za-z0-9-]{1,63}){0,8}\\.[A-Za-z]{2,24}(?![A-Za-z0-9-])',
    left: '',
    startOf: emailStart,
    stage: 'pii',
    rep: PII,
    positive: [
      { input: 'contact jane.doe+test@example.co.uk for access', gone: ['jane.doe+test@example.co.uk'], kept: ['contact', 'for access'] },
      { input: 'mail bob@example.com', gone: ['bob@example.com'] },
      { input: 'git config user.email "dev.name@company.io"', gone: ['dev.name@company.io'] },
    ],
    negative: ['git@github.com:org/repo.git', 'npm i react@18.2.0', 'see @types/node', 'user@localhost'],
    adversarial: ['@', 'a@', 'a@b.', 'a@b.c', 'a.a.a.a@'],
  }),
  patternRule({
    id: 'phone',
    source: 'AEP-0003 §9.4(d) floor (phone numbers)',
    description: 'Phone numbers (grouped digits with an optional +country code and area code)',
    pattern: '(?:\\+\\d{1,3}[\\s.-]?)?(?:\\(\\d{2,4}\\)[\\s.-]?|\\d{2,4}[\\s.-])\\d{3,4}[\\s.-]\\d{3,4}(?![\\w/.-])',
    left: '\\w/.-',
    stage: 'pii',
    rep: PII,
    positive: [
      { input: 'call +1 (555) 123-4567 tomorrow', gone: ['555) 123-4567'], kept: ['call', 'tomorrow'] },
      { input: 'call +1 415-555-1234', gone: ['415-555-1234'] },
    ],
    negative: ['upgraded to node 22.11.0 and pnpm 9.14.2 quickly', 'ran 42 tests, 0 failures, in 3.1s', '2026-11-29', '550e8400-e29b-41d4-a716-446655440000'],
    adversarial: ['1 ', '12 345 ', '+1 ', '(12) '],
  }),
];

/** The email rule finds the '@': its match must start at the local part. */
export function emailStart(text: string, at: number): number {
  let s = at;
  while (s > 0 && at - s < 64 && /[A-Za-z0-9._%+-]/.test(text[s - 1])) s--;
  return s;
}
