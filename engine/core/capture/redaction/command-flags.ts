// Credentials given to well-known commands (curl -u, mysql -p, sshpass,
// redis-cli, openssl pass:), structural secret rules (structural.ts): command
// and separator positions are found once, in order, then each flag's value
// is read in one bounded step, so a rule is linear in its input.
import { charClass, indexIn } from './regex-rule.ts';
import type { Match, Rule } from './types.ts';
import { SECRET } from './types.ts';

const ARG_STOP = charClass('\\s"\'`;|&');
const SEPARATORS = /[\n;|&]/g;

interface CommandFlagDef {
  id: string;
  source: string;
  description: string;
  /** Command names (regex alternatives). */
  commands: string;
  /** Flag alternatives (regex). */
  flags: string;
  /** Value attached to the flag (`-psecret`) and/or spaced (`-p secret`, `--user=x`). */
  attached?: boolean;
  spaced?: boolean;
  /** The value is `user:password`: only the part after the first colon is secret (and the value must have one). */
  afterColon?: boolean;
  /** A literal prefix of the value itself (`pass:` in openssl's -passin pass:X). */
  valuePrefix?: string;
  positive: (string | { input: string; gone?: string[]; kept?: string[] })[];
  negative: string[];
}

function commandFlagRule(d: CommandFlagDef): Rule {
  const cmdRe = new RegExp(`(?<![\\w.-])(?:${d.commands})(?![\\w-])`, 'g');
  const spacer = d.attached && d.spaced ? '(?:=|[ \\t]{1,8})?' : d.attached ? '' : '(?:=|[ \\t]{1,8})';
  const flagRe = new RegExp(`(?<![\\w-])(?:${d.flags})${spacer}(?=["'\\w$%!@#^*(){}\\[\\]:+.,/~-])`, 'g');
  return {
    id: d.id,
    stage: 'secret',
    source: d.source,
    description: d.description,
    anchor: d.commands,
    window: 600,
    positive: d.positive,
    negative: d.negative,
    adversarial: [`${d.commands.split('|')[0]} ${d.flags.split('|')[0]}`, `${d.flags.split('|')[0]}x `, `${d.commands.split('|')[0]} `],
    find(text: string, out: Match[]) {
      // command positions and separator positions, each found once, in order
      const cmds: number[] = [];
      cmdRe.lastIndex = 0;
      let m: RegExpExecArray | null;
      while ((m = cmdRe.exec(text))) cmds.push(m.index);
      if (!cmds.length) return;
      flagRe.lastIndex = 0;
      if (!flagRe.test(text)) return;
      const seps: number[] = [];
      SEPARATORS.lastIndex = 0;
      while ((m = SEPARATORS.exec(text))) seps.push(m.index);
      let ci = -1;
      let si = -1;
      flagRe.lastIndex = 0;
      while ((m = flagRe.exec(text))) {
        const at = m.index;
        while (ci + 1 < cmds.length && cmds[ci + 1] < at) ci++;
        while (si + 1 < seps.length && seps[si + 1] < at) si++;
        const next = at + m[0].length;
        flagRe.lastIndex = next;
        if (ci < 0 || (si >= 0 && seps[si] > cmds[ci]) || at - cmds[ci] > 512) continue;
        // the value: quoted or a bare argument
        let vs = next;
        let ve: number;
        const q = text[vs];
        if (q === '"' || q === "'") {
          const close = indexIn(text, q, vs + 1, vs + 513);
          if (close < 0) continue;
          vs += 1;
          ve = close;
        } else {
          ve = vs;
          while (ve < text.length && !ARG_STOP(text.charCodeAt(ve))) ve++;
        }
        if (d.valuePrefix) {
          if (!text.startsWith(d.valuePrefix, vs)) continue;
          vs += d.valuePrefix.length;
        }
        if (d.afterColon) {
          const c = indexIn(text, ':', vs, ve);
          if (c < 0) continue;
          vs = c + 1;
        }
        if (ve <= vs || text.startsWith('[REDACTED', vs)) continue;
        out.push({
          start: vs,
          end: ve,
          ctx: cmds[ci],
          stage: 'secret',
          rule: d.id,
          rep: SECRET,
          cont: ve === text.length && q !== '"' && q !== "'" ? { kind: 'class', test: (c) => !ARG_STOP(c) } : undefined,
        });
        flagRe.lastIndex = Math.max(ve, next);
      }
    },
  };
}

export const COMMAND_RULES: Rule[] = [
  commandFlagRule({
    id: 'curl-user',
    source: 'gitleaks:curl-auth-user (curl -u/--user user:password)',
    description: '`curl -u user:password` / `--user`: the password part',
    commands: 'curl',
    flags: '-u|--user',
    spaced: true,
    afterColon: true,
    positive: [
      { input: 'curl -u user:pw https://api.test', gone: [':pw '], kept: ['curl -u user:', 'https://api.test'] },
      { input: "curl -s --user 'admin:s3cr3t value' https://x", gone: ['s3cr3t value'] },
      { input: 'curl --user=deploy:Tr0ub4dor https://x', gone: ['Tr0ub4dor'] },
    ],
    negative: ['curl -u user https://x (prompted)', 'docker run -u 1000:1000 image', 'curl https://x; id -u root:x'],
  }),
  commandFlagRule({
    id: 'mysql-password-flag',
    source: 'MySQL 8.4 Reference Manual, 6.2.2.1 Using Options on the Command Line (-p<password> attached); MariaDB client options',
    description: '`mysql -p<password>` (the attached form is the password) in the mysql/mariadb client family',
    commands: 'mysql|mysqldump|mysqladmin|mysqlimport|mysqlshow|mysqlcheck|mysqlpump|mysqlsh|mariadb|mariadb-dump|mariadb-admin',
    flags: '-p',
    attached: true,
    positive: [
      { input: 'mysql -u root -pS3cretPass mydb', gone: ['S3cretPass'], kept: ['mysql -u root -p', 'mydb'] },
      { input: "mysqldump -uroot -p'my pass' db > dump.sql", gone: ['my pass'] },
    ],
    negative: ['mysql -u root -p mydb (prompts)', 'mkdir -pv build', 'ssh -p22 host'],
  }),
  commandFlagRule({
    id: 'sshpass-password',
    source: 'sshpass(1) -p password',
    description: '`sshpass -p <password>`',
    commands: 'sshpass',
    flags: '-p',
    attached: true,
    spaced: true,
    positive: [{ input: 'sshpass -p hunter22 ssh user@host', gone: ['hunter22'], kept: ['ssh'] }],
    negative: ['sshpass -f ~/.pw ssh host', 'ssh -p 22 host'],
  }),
  commandFlagRule({
    id: 'redis-cli-password',
    source: 'redis-cli(1) -a <password> / --pass',
    description: '`redis-cli -a <password>`',
    commands: 'redis-cli|valkey-cli',
    flags: '-a|--pass|--askpass-value',
    spaced: true,
    positive: [{ input: 'redis-cli -h cache -a R3disPass ping', gone: ['R3disPass'], kept: ['ping'] }],
    negative: ['redis-cli -h cache ping', 'ls -a /tmp'],
  }),
  commandFlagRule({
    id: 'openssl-pass-arg',
    source: 'openssl-passphrase-options(1) (-passin/-passout/-pass pass:<password>)',
    description: 'openssl `pass:<password>` arguments',
    commands: 'openssl',
    flags: '-passin|-passout|-pass|-password',
    spaced: true,
    valuePrefix: 'pass:',
    positive: [{ input: 'openssl pkcs12 -export -in c.pem -passout pass:Exp0rtPw -out c.p12', gone: ['Exp0rtPw'], kept: ['-out c.p12'] }],
    negative: ['openssl pkcs12 -passin env:P12_PASS', 'openssl pkcs12 -passin file:pw.txt'],
  }),
];
