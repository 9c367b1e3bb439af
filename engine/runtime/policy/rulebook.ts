// The rules that answer held requests, as `hookmap up` runs them (docs/rules.md): the operator policy's allow/deny/ask
// rules and the learned rules file, read together; what an "Allow always" adds; revocation; how often and when each rule
// answered. Adding, revoking and every automatic answer are audited in `$HOOKMAP_HOME/rules-audit.jsonl` (0600) with
// the authenticated principal, and said to the caller (up puts them on hookmap's operator session).
import { randomBytes } from 'node:crypto';
import { appendFileSync, chmodSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { ensureDir } from '../../core/io/paths.ts';
import { describeMatch, scopeOf, type AnswerRule, type RuleScope } from './answer-rule.ts';
import { decideAnswer, floorOf, type AnswerDecision } from './decide-answer.ts';
import { LearnedRules } from './learned.ts';
import { formatPolicyError, type Policy } from './policy.ts';
import { compileCommandRule, matchPlainCommand, readPlainCommand } from './shell/match.ts';
import { realPlace, type AskSubject } from './subject.ts';
import { proposePrefixes, quoteArgv, sameMatch, slug } from './rule-words.ts';

export { proposePrefixes, quoteArgv } from './rule-words.ts';

export type AlwaysMatch = 'exact' | 'prefix' | 'tool';

/** What an "Allow always" asks for. */
export interface AlwaysSpec {
  match: AlwaysMatch;
  /** match prefix: the words a command must start with (default: proposed from the command). */
  prefix?: string;
  scope: RuleScope;
}

/** Who asks, from which surface, for which request. */
export interface Actor {
  by: string;
  via: string;
  request?: string;
  /** The agent persists the allow itself too (its own settings): what it was told. */
  native?: string;
}

export class RuleError extends Error {
  constructor(
    readonly code: 'not-plain' | 'prefix-mismatch' | 'floor' | 'nothing-to-match' | 'no-project' | 'no-such-rule' | 'not-revocable' | 'learned-broken',
    message: string,
  ) {
    super(message);
  }
}

export interface RuleView {
  id: string;
  verb: string;
  origin: 'learned' | 'policy';
  file: string;
  scope: RuleScope;
  matches: string;
  agents?: string[];
  added?: AnswerRule['added'];
  uses: number;
  last_used?: string;
  revocable: boolean;
}

export interface RuleBookOptions {
  /** $HOOKMAP_HOME: the learned rules, their use counts and the audit live there; absent: no learned rules (an embedding). */
  home?: string;
  policy?: () => Policy | undefined;
  knownAgents?: readonly string[];
  say?: (line: string) => void;
  /** Added, revoked, applied: for the stream (hookmap's operator session). */
  audit?: (type: 'added' | 'revoked' | 'applied', data: Record<string, unknown>) => void;
  now?: () => number;
  /** The user's home folder, for the floor (default: os.homedir()). */
  userHome?: string;
  /** hookmap's own files beside its home (the owner token file, channel secrets): the floor keeps them for a person. */
  own?: () => (string | undefined)[];
}

interface Usage {
  uses: number;
  last: string;
}

export class RuleBook {
  readonly learned: LearnedRules | undefined;
  private readonly usageFile: string | undefined;
  private readonly auditFile: string | undefined;
  private usage: Record<string, Usage> | undefined;
  private reported = '';

  constructor(private readonly o: RuleBookOptions) {
    this.learned = o.home ? new LearnedRules(o.home, o.knownAgents) : undefined;
    this.usageFile = o.home && join(o.home, 'rules-usage.json');
    this.auditFile = o.home && join(o.home, 'rules-audit.jsonl');
  }

  private get userHome(): string {
    return this.o.userHome ?? homedir();
  }

  private ownCache: string[] | undefined;

  /** hookmap's own files by where they really are: its home and the ones `own` adds (the token files, channel secrets). */
  ownFiles(): string[] {
    return (this.ownCache ??= [this.o.home, ...(this.o.own?.() ?? [])]
      .filter((p): p is string => typeof p === 'string' && p !== '')
      .map((p) => realPlace(resolve(p))));
  }

  /** The floor row this request hits, hookmap's own files included. */
  floor(subject: AskSubject) {
    return floorOf(subject, this.userHome, this.ownFiles());
  }

  private now(): string {
    return new Date(this.o.now?.() ?? Date.now()).toISOString();
  }

  /** Every answer rule in force: the policy's, then the learned ones. */
  rules(): AnswerRule[] {
    const st = this.learned?.current() ?? { errors: [] };
    if (st.errors.length) {
      const key = st.errors.map(formatPolicyError).join('\n');
      if (key !== this.reported)
        this.o.say?.(
          `rules: ${this.learned!.file} does not compile, so none of its rules answers anything:\n` +
            `${st.errors.map((e) => `  ${formatPolicyError(e)}`).join('\n')}`,
        );
      this.reported = key;
    } else this.reported = '';
    return [...(this.o.policy?.()?.answers ?? []), ...(st.policy?.answers ?? [])];
  }

  decide(subject: AskSubject, request?: unknown, home?: string): Promise<AnswerDecision> {
    return decideAnswer(this.rules(), subject, { event: request, home: home ?? this.userHome, own: this.ownFiles(), say: this.o.say });
  }

  used(d: AnswerDecision, subject: AskSubject, request: { id?: unknown }): void {
    const r = d.rule;
    if (!r) return;
    const u = this.readUsage();
    const at = this.now();
    u[r.id] = { uses: (u[r.id]?.uses ?? 0) + 1, last: at };
    this.writeUsage(u);
    this.record({
      at,
      action: 'applied',
      rule: r.id,
      verb: d.verb,
      origin: r.origin.learned ? 'learned' : 'policy',
      digest: r.origin.digest,
      agent: subject.agent,
      session: subject.session,
      request: request.id,
    });
  }

  /** A rule from an "Allow always" on this request; throws RuleError when it cannot be one. */
  learn(subject: AskSubject, spec: AlwaysSpec, who: Actor): { rule: AnswerRule; note?: string; existed: boolean } {
    const doc: Record<string, unknown> = { id: '', decide: 'allow', agent: subject.agent };
    let label: string;
    let note: string | undefined;
    if (spec.match === 'tool') {
      if (!subject.tool) throw new RuleError('nothing-to-match', 'the request names no tool, so no rule can match "this tool"');
      doc.tool = subject.tool;
      label = subject.tool;
    } else if (subject.command !== undefined) {
      const plain = readPlainCommand(subject.command);
      if ('refused' in plain)
        throw new RuleError('not-plain', `the command ${plain.refused}: a rule matches one plain command only (allow this tool instead, or answer once)`);
      if (subject.tool) doc.tool = subject.tool;
      if (spec.match === 'exact') {
        const hit = this.floor(subject);
        if (hit) throw new RuleError('floor', `the floor keeps this command for you (${hit.row}): a rule would never answer it`);
        // the words themselves, quoted so they read back as the same argv (issue 40: never joined by spaces)
        const exact = quoteArgv(plain.words);
        const back = compileCommandRule({ exact });
        if ('error' in back || back.words.length !== plain.words.length || back.words.some((w, i) => w !== plain.words[i]))
          throw new RuleError('not-plain', 'the command cannot be written back as the same words: allow this tool instead, or answer once');
        doc.command = { exact };
        label = exact;
      } else {
        const prefix = (spec.prefix ?? proposePrefixes(subject.command)[0] ?? '').trim();
        const c = compileCommandRule({ prefix });
        if ('error' in c) throw new RuleError('prefix-mismatch', `prefix ${JSON.stringify(prefix)}: ${c.error}`);
        const m = matchPlainCommand(c, plain);
        if (!m.match) throw new RuleError('prefix-mismatch', `the command does not start with ${JSON.stringify(prefix)} (${m.why})`);
        doc.command = { prefix: c.text };
        label = c.text;
        if (this.floor(subject)) note = 'this very request hits the floor: it stays with you, the rule answers the others';
      }
    } else if (spec.match === 'exact' && subject.paths.length) {
      if (subject.tool) doc.tool = subject.tool;
      doc.path = subject.paths.length === 1 ? subject.paths[0] : subject.paths;
      label = `${subject.tool ?? 'path'} ${subject.paths[0]}`;
    } else
      throw new RuleError('nothing-to-match', `the request runs no shell command${spec.match === 'exact' ? ' and names no path' : ''}: choose "this tool"`);
    if (spec.scope === 'project') {
      if (!subject.project)
        throw new RuleError('no-project', 'the request says no folder it runs in, so "this project" cannot be told: choose this session or everywhere');
      doc.project = subject.project;
    } else if (spec.scope === 'session') doc.session = subject.session;
    const existing = this.rules().find((r) => r.origin.learned && sameMatch(r, doc));
    if (existing) return { rule: existing, note, existed: true };
    doc.id = `allow-${slug(label)}-${randomBytes(2).toString('hex')}`;
    doc.added = { by: who.by, via: who.via, at: this.now(), ...(who.request ? { request: who.request } : {}), ...(who.native ? { native: who.native } : {}) };
    this.addRule(doc, who);
    const rule = this.rules().find((r) => r.id === doc.id)!;
    return { rule, note, existed: false };
  }

  /** Add a rule written out (a preset's, `rules add`); throws on a broken or clashing rule. */
  addRule(doc: Record<string, unknown>, who: Actor): void {
    if (!this.learned) throw new RuleError('learned-broken', 'this hookmap has no home folder, so it keeps no learned rules');
    if (this.rules().some((r) => r.id === doc.id)) throw new RuleError('learned-broken', `a rule with id ${String(doc.id)} already exists`);
    doc.added ??= { by: who.by, via: who.via, at: this.now() };
    try {
      this.learned.add(doc);
    } catch (e) {
      throw new RuleError('learned-broken', (e as Error).message);
    }
    const data = {
      rule: doc.id,
      by: who.by,
      via: who.via,
      scope: doc.session ? 'session' : doc.project ? 'project' : 'user',
      ...(who.request ? { request: who.request } : {}),
      ...(who.native ? { native: who.native } : {}),
    };
    this.record({ at: this.now(), action: 'added', ...data });
    this.o.audit?.('added', data);
    this.o.say?.(`rules: ${String(doc.id)} added by ${who.by} (${who.via})`);
  }

  revoke(id: string, who: Actor): AnswerRule {
    const r = this.rules().find((x) => x.id === id);
    if (!r) throw new RuleError('no-such-rule', `no rule ${id} (hookmap rules list)`);
    if (!r.origin.learned) throw new RuleError('not-revocable', `rule ${id} is written in the policy file ${r.origin.file}: edit that file to change it`);
    let removed: boolean;
    try {
      removed = this.learned!.remove(id);
    } catch (e) {
      throw new RuleError('learned-broken', (e as Error).message);
    }
    if (!removed) throw new RuleError('no-such-rule', `no rule ${id} in ${this.learned!.file}`);
    const data = { rule: id, by: who.by, via: who.via };
    this.record({ at: this.now(), action: 'revoked', ...data });
    this.o.audit?.('revoked', data);
    this.o.say?.(`rules: ${id} revoked by ${who.by} (${who.via})`);
    return r;
  }

  list(): RuleView[] {
    const u = this.readUsage();
    return this.rules().map((r) => ({
      id: r.id,
      verb: r.verb,
      origin: r.origin.learned ? 'learned' : 'policy',
      file: r.origin.file,
      scope: scopeOf(r),
      matches: describeMatch(r),
      agents: r.agents ? [...r.agents] : undefined,
      added: r.added,
      uses: u[r.id]?.uses ?? 0,
      last_used: u[r.id]?.last,
      revocable: r.origin.learned,
    }));
  }

  private readUsage(): Record<string, Usage> {
    if (this.usage) return this.usage;
    try {
      this.usage = JSON.parse(readFileSync(this.usageFile ?? '', 'utf8')) as Record<string, Usage>;
    } catch {
      this.usage = {};
    }
    return this.usage;
  }

  private writeUsage(u: Record<string, Usage>): void {
    if (!this.usageFile || !this.o.home) return;
    try {
      ensureDir(this.o.home);
      const tmp = `${this.usageFile}.${process.pid}.tmp`;
      writeFileSync(tmp, JSON.stringify(u), { mode: 0o600 });
      renameSync(tmp, this.usageFile);
    } catch (e) {
      this.o.say?.(`rules: could not record a rule's use (${(e as Error).message})`);
    }
  }

  private record(line: Record<string, unknown>): void {
    if (!this.auditFile || !this.o.home) return;
    try {
      ensureDir(this.o.home);
      appendFileSync(this.auditFile, `${JSON.stringify(line)}\n`, { mode: 0o600 });
      chmodSync(this.auditFile, 0o600);
    } catch (e) {
      this.o.say?.(`rules: could not write the audit record (${(e as Error).message})`);
    }
  }
}
