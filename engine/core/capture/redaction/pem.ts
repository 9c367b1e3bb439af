// PEM blocks (AEP-0003 §9.4(a) floor: "PEM blocks"; gitleaks:private-key), one
// of the structural secret rules (structural.ts): a literal-anchored search
// that never restarts inside what it already consumed, so it is linear.
import { charClass } from './regex-rule.ts';
import type { Match, Rule } from './types.ts';
import { SECRET } from './types.ts';

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
      if (!text.startsWith('-----', j) || j === i + 11) {
        i += 11;
        continue;
      }
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
    {
      input: 'config follows\n-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7bq\nZzz999\n-----END RSA PRIVATE KEY-----\ndone',
      gone: ['MIIEowIBAAKCAQEA7bq', 'BEGIN RSA'],
      kept: ['config follows', 'done'],
    },
    { input: '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk\n-----END OPENSSH PRIVATE KEY-----', gone: ['b3BlbnNzaC1rZXk'] },
    {
      input: '{"private_key": "-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\\n-----END PRIVATE KEY-----\\n", "client_email": "svc"}',
      gone: ['MIIEvQIBADANBgkqhkiG9w0BAQEFAASC'],
      kept: ['client_email'],
    },
    {
      input: 'cat key.pem\n-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIBkg4LVWM9nuwNSk3yByxZpYRTBnVJk5oAI4\n(truncated)',
      gone: ['MHcCAQEEIBkg4LVWM9nuwNSk3yByxZpYRTBnVJk5oAI4'],
      kept: ['cat key.pem'],
    },
    { input: '-----BEGIN PGP PRIVATE KEY BLOCK-----\nlQOYBF0\n-----END PGP PRIVATE KEY BLOCK-----', gone: ['lQOYBF0'] },
    { input: '-----BEGIN CERTIFICATE-----\nMIIDdzCCAl+gAwIBAgIE\n-----END CERTIFICATE-----', gone: ['MIIDdzCCAl+gAwIBAgIE'] },
  ],
  negative: ['-----BEGIN without a label', 'a line of ----- dashes -----', '-----BEGIN CERTIFICATE----- (no END, public: left as is)'],
  adversarial: ['-----BEGIN ', '-----BEGIN CERTIFICATE-----', '-----BEGIN A-----x-----END '],
};
