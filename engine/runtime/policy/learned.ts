// hookmap's learned rules (docs/rules.md): `$HOOKMAP_HOME/rules.yaml`, mode
// 0600, the rules an "Allow always" wrote, in the policy format with an
// `added:` block each. It lives in hookmap's home, never in a project: a
// rules file that comes with a cloned repository grants nothing. Read again
// whenever it changed on disk (size, mtime, inode), so a rule revoked by any
// process stops answering at the very next request, in every running
// session. A file that does not compile grants nothing and is reported; it
// is never overwritten (adding to it is refused until it is fixed).
import { chmodSync, existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { yaml } from '../../core/text/yaml-lazy.ts';
import { writeAtomic } from '../../core/io/atomic.ts';
import { ensureDir } from '../../core/io/paths.ts';
import { compilePolicy, formatPolicyError, type Policy, type PolicyError } from './policy.ts';

export const LEARNED_FILE = 'rules.yaml';

const BANNER = `# hookmap's learned rules: written by "Allow always" (the inbox, hookmap answer --always)
# and by \`hookmap rules\`. The policy format (docs/rules.md); each rule says who added it.
# Revoke with \`hookmap rules revoke ID\` or from the inbox; an edit here counts at the next request.
`;

export interface LearnedState {
  policy?: Policy;
  errors: PolicyError[];
}

const EMPTY: LearnedState = { errors: [] };

export class LearnedRules {
  readonly file: string;
  private stamp = '';
  private state: LearnedState = EMPTY;

  constructor(
    readonly home: string,
    private readonly knownAgents?: readonly string[],
  ) {
    this.file = join(home, LEARNED_FILE);
  }

  private fileStamp(): string {
    try {
      const st = statSync(this.file);
      return `${st.ino}:${st.size}:${st.mtimeMs}`;
    } catch {
      return 'absent';
    }
  }

  /** The rules in force now (re-read when the file changed). */
  current(): LearnedState {
    const stamp = this.fileStamp();
    if (stamp === this.stamp) return this.state;
    this.stamp = stamp;
    if (stamp === 'absent') return (this.state = EMPTY);
    let text: string;
    try {
      text = readFileSync(this.file, 'utf8');
    } catch (e) {
      return (this.state = { errors: [{ code: 'policy-yaml', file: this.file, line: 1, col: 1, path: '', message: `cannot read: ${(e as Error).message}` }] });
    }
    const r = compilePolicy(this.file, text, { knownAgents: this.knownAgents, learned: true });
    return (this.state = { policy: r.policy, errors: r.errors });
  }

  /** The file's rules as written (documents), for add and remove. Throws when the file does not compile. */
  private document() {
    const text = existsSync(this.file) ? readFileSync(this.file, 'utf8') : `${BANNER}rules: []\n`;
    const st = this.current();
    if (st.errors.length)
      throw new Error(
        `${this.file} does not compile, so nothing is added to it until it is fixed:\n${st.errors.map((e) => `  ${formatPolicyError(e)}`).join('\n')}`,
      );
    const { isMap, isSeq, parseDocument } = yaml();
    const doc = parseDocument(text);
    if (!isMap(doc.contents)) throw new Error(`${this.file} is not a mapping with \`rules\``);
    let rules = doc.get('rules');
    if (!isSeq(rules)) {
      doc.set('rules', doc.createNode([]));
      rules = doc.get('rules');
    }
    if (isSeq(rules)) rules.flow = false;
    return doc;
  }

  /** Append one rule (a plain object in the policy format); the file is checked whole before it replaces the old one. */
  add(rule: Record<string, unknown>): void {
    const doc = this.document();
    (doc.get('rules') as { add(v: unknown): void }).add(doc.createNode(rule));
    this.write(doc.toString({ lineWidth: 0 }));
  }

  /** Remove the rule with this id; false when there is none. */
  remove(id: string): boolean {
    const { isMap, isSeq } = yaml();
    const doc = this.document();
    const rules = doc.get('rules');
    if (!isSeq(rules)) return false;
    const i = rules.items.findIndex((n) => isMap(n) && n.get('id') === id);
    if (i < 0) return false;
    rules.items.splice(i, 1);
    this.write(doc.toString({ lineWidth: 0 }));
    return true;
  }

  private write(text: string): void {
    const check = compilePolicy(this.file, text, { knownAgents: this.knownAgents, learned: true });
    if (!check.policy)
      throw new Error(`the learned rules would not compile (nothing written):\n${check.errors.map((e) => `  ${formatPolicyError(e)}`).join('\n')}`);
    ensureDir(this.home);
    writeAtomic(this.file, text);
    chmodSync(this.file, 0o600);
    this.stamp = ''; // read back at the next use
  }
}
