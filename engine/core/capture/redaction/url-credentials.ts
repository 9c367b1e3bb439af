// Credentials in URLs (RFC 3986 §3.2.1 userinfo; secretlint:basicauth,
// secretlint:database-connection-string), a structural secret rule
// (structural.ts): one pass over the `://` occurrences, each bounded.
import { looksRandom } from './entropy.ts';
import { charClass, fake, indexIn, lastIn } from './regex-rule.ts';
import type { Match, Rule } from './types.ts';
import { SECRET } from './types.ts';

const AUTH_STOP = charClass('\\s/?#"\'<>`\\\\');
const SCHEME = charClass('A-Za-z0-9+.-');

export const URL_CREDENTIALS_RULE: Rule = {
  id: 'url-credentials',
  stage: 'secret',
  source:
    'secretlint:@secretlint/secretlint-rule-basicauth (scheme://user:password@host), ' +
    'secretlint:@secretlint/secretlint-rule-database-connection-string (postgres/mysql/mongodb ' +
    'URIs); RFC 3986 §3.2.1 userinfo',
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
      if (s === i) {
        i = from;
        continue;
      }
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
  negative: [
    'https://github.com/org/repo',
    'ssh://git@github.com/org/repo.git',
    'https://example.com/user/path',
    'mailto:someone at host',
    'http://localhost:8787/hooks/x',
  ],
  adversarial: ['://', 'a://', 'a://b:c', 'postgres://a:b', 'x://@@@@', 'a://:'],
};
