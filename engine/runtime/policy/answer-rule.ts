// Rules that answer a held request (issue 22, docs/rules.md): `decide:
// allow | deny | ask` with match keys beside `agent` and `when`:
//
//   tool:    a name or a list           (the request's tool)
//   command: { exact: "…" } | { prefix: "…", allow_env: true }   (the parsed shell command)
//   path:    a glob or a list of globs  (every path the request touches matches one)
//   mcp:     { server: name, tool: name }
//   project: a folder                   (the request's cwd and every path lie inside it)
//   session: an AEP session id
//
// Every key given must match (and). A rule with no key but `decide` matches
// every held request of its agents. Compiling reports each problem coded and
// located; matching is pure (the subject is normalised first: subject.ts).
import { isAbsolute, posix } from 'node:path';
import { compileCommandRule, matchPlainCommand, readPlainCommand, type CompiledCommandRule, type PlainCommand } from './shell/match.ts';
import { compileGlob, globMatches, type PathGlob } from './globs.ts';
import { inside } from './shell/paths.ts';
import type { AskSubject } from './subject.ts';
import type { Expr } from '../../core/expr/compile.ts';

export const ANSWER_VERBS = ['allow', 'deny', 'ask'] as const;
export type AnswerVerb = (typeof ANSWER_VERBS)[number];
export const isAnswerVerb = (v: unknown): v is AnswerVerb => (ANSWER_VERBS as readonly unknown[]).includes(v);

/** Where a rule came from: the learned rules file, or the operator's policy file. */
export interface RuleOrigin {
  file: string;
  digest: string;
  learned: boolean;
  /** The git work tree the file lies in, if any: a file that came with a repository, whose allows grant nothing. */
  repo?: string;
}

/** Who added a learned rule, from where, when (the `added:` block). */
export interface RuleAdded {
  by: string;
  via: string;
  at: string;
  request?: string;
  native?: string;
}

export interface AnswerRule {
  id: string;
  verb: AnswerVerb;
  agents?: Set<string>;
  tools?: Set<string>;
  command?: Extract<CompiledCommandRule, { kind: string }>;
  paths?: PathGlob[];
  mcp?: { server?: string; tool?: string };
  project?: string;
  session?: string;
  when?: Expr;
  /** deny: the guidance the model reads; ask: why it goes to a human. */
  reason?: string;
  summary?: string;
  added?: RuleAdded;
  origin: RuleOrigin;
}

/** The match keys of an answer rule (beside id, on, agent, when, decide, reason). */
export const ANSWER_KEYS = ['tool', 'command', 'path', 'mcp', 'project', 'session', 'added'] as const;

type Report = (path: (string | number)[], message: string) => void;

const isStrList = (v: unknown): v is string[] => Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === 'string' && x !== '');
const list = (v: unknown): string[] | undefined => (typeof v === 'string' && v !== '' ? [v] : isStrList(v) ? v : undefined);

/** The match keys of one rule; undefined (and reports) when one is broken. */
export function compileAnswerKeys(
  r: Record<string, any>,
  p: (string | number)[],
  report: Report,
): Omit<AnswerRule, 'id' | 'verb' | 'agents' | 'when' | 'origin'> | undefined {
  let ok = true;
  const bad = (k: (string | number)[], m: string) => {
    ok = false;
    report([...p, ...k], m);
  };
  const out: Omit<AnswerRule, 'id' | 'verb' | 'agents' | 'when' | 'origin'> = {};
  if (r.tool !== undefined) {
    const t = list(r.tool);
    if (!t) bad(['tool'], '`tool` is a tool name or a list of them');
    else out.tools = new Set(t);
  }
  if (r.command !== undefined) {
    const c = r.command;
    const keys = c && typeof c === 'object' && !Array.isArray(c) ? Object.keys(c) : [];
    if (!keys.length || keys.some((k) => !['exact', 'prefix', 'allow_env'].includes(k)) || (c.exact === undefined) === (c.prefix === undefined))
      bad(['command'], '`command` is `{ exact: "…" }` or `{ prefix: "…" }` (and optionally `allow_env: true`)');
    else if (c.allow_env !== undefined && typeof c.allow_env !== 'boolean') bad(['command', 'allow_env'], '`allow_env` is true or false');
    else {
      const compiled = compileCommandRule({ exact: c.exact, prefix: c.prefix, allowEnv: c.allow_env === true });
      if ('error' in compiled) bad(['command', c.exact !== undefined ? 'exact' : 'prefix'], compiled.error);
      else out.command = compiled;
    }
  }
  if (r.path !== undefined) {
    const g = list(r.path);
    if (!g) bad(['path'], '`path` is a glob or a list of globs');
    else {
      out.paths = [];
      g.forEach((text, i) => {
        try {
          out.paths!.push(compileGlob(text));
        } catch (e) {
          bad(['path', ...(typeof r.path === 'string' ? [] : [i])], (e as Error).message);
        }
      });
    }
  }
  if (r.mcp !== undefined) {
    const m = r.mcp;
    const keys = m && typeof m === 'object' && !Array.isArray(m) ? Object.keys(m) : [];
    if (!keys.length || keys.some((k) => !['server', 'tool'].includes(k)) || keys.some((k) => typeof m[k] !== 'string' || m[k] === ''))
      bad(['mcp'], '`mcp` is `{ server: name }`, `{ tool: name }` or both');
    else out.mcp = { server: m.server, tool: m.tool };
  }
  if (r.project !== undefined) {
    if (typeof r.project !== 'string' || !isAbsolute(r.project)) bad(['project'], '`project` is an absolute folder path');
    else out.project = posix.normalize(r.project).replace(/(.)\/$/, '$1');
  }
  if (r.session !== undefined) {
    if (typeof r.session !== 'string' || r.session === '') bad(['session'], '`session` is an AEP session id');
    else out.session = r.session;
  }
  if (r.added !== undefined) {
    const a = r.added;
    if (!a || typeof a !== 'object' || Array.isArray(a) || typeof a.by !== 'string' || typeof a.via !== 'string' || typeof a.at !== 'string')
      bad(['added'], '`added` is `{ by, via, at }` (who added the rule, from which surface, when)');
    else
      out.added = {
        by: a.by,
        via: a.via,
        at: a.at,
        request: typeof a.request === 'string' ? a.request : undefined,
        native: typeof a.native === 'string' ? a.native : undefined,
      };
  }
  if (r.reason !== undefined) {
    if (typeof r.reason !== 'string' || r.reason.trim() === '') bad(['reason'], '`reason` is text (deny: what the model reads)');
    else out.reason = r.reason;
  }
  if (typeof r.summary === 'string') out.summary = r.summary;
  return ok ? out : undefined;
}

export interface RuleMatch {
  match: boolean;
  why: string;
}

const no = (why: string): RuleMatch => ({ match: false, why });

/** The request's command read once for every rule of a decision. */
export type ReadSubject = AskSubject & { plain?: PlainCommand };

export function readSubject(s: AskSubject): ReadSubject {
  return s.command === undefined ? s : { ...s, plain: readPlainCommand(s.command) };
}

/** Does the rule match the request? (Its `when` is evaluated by the caller.) */
export function matchAnswerRule(rule: AnswerRule, s: ReadSubject): RuleMatch {
  if (rule.agents && !rule.agents.has(s.agent)) return no(`agent ${s.agent} is not ${[...rule.agents].join(', ')}`);
  if (rule.session !== undefined && rule.session !== s.session) return no('another session');
  if (rule.tools && (s.tool === undefined || !rule.tools.has(s.tool)))
    return no(s.tool === undefined ? 'the request names no tool' : `tool ${s.tool} is not ${[...rule.tools].join(', ')}`);
  if (rule.mcp) {
    if (!s.mcp) return no('not an MCP tool call');
    if (rule.mcp.server !== undefined && rule.mcp.server !== s.mcp.server) return no(`MCP server ${s.mcp.server ?? '(none)'} is not ${rule.mcp.server}`);
    if (rule.mcp.tool !== undefined && rule.mcp.tool !== s.mcp.tool) return no(`MCP tool ${s.mcp.tool ?? '(none)'} is not ${rule.mcp.tool}`);
  }
  if (rule.project !== undefined) {
    if (!s.cwd) return no('the request says no folder it runs in');
    if (!inside(s.cwd, rule.project)) return no(`runs in ${s.cwd}, outside ${rule.project}`);
    const out = s.paths.find((p) => !posix.isAbsolute(p) || !inside(p, rule.project!));
    if (out !== undefined) return no(`touches ${out}, outside ${rule.project}`);
  }
  if (rule.paths) {
    if (!s.paths.length) return no('the request names no path');
    const base = rule.project ?? s.cwd;
    const miss = s.paths.find((p) => !posix.isAbsolute(p) || !rule.paths!.some((g) => globMatches(g, p, base)));
    if (miss !== undefined) return no(`${miss} matches none of ${rule.paths.map((g) => g.text).join(', ')}`);
  }
  if (rule.command) {
    if (s.command === undefined) return no('the request runs no shell command');
    const m = matchPlainCommand(rule.command, s.plain ?? readPlainCommand(s.command));
    if (!m.match) return no(m.why);
  }
  return { match: true, why: 'every key matches' };
}

/** What a rule matches, in a line (lists, `rules show`, the inbox). */
export function describeMatch(r: Pick<AnswerRule, 'agents' | 'tools' | 'command' | 'paths' | 'mcp' | 'project' | 'session'>): string {
  const parts: string[] = [];
  if (r.agents) parts.push(`agent ${[...r.agents].join('|')}`);
  if (r.tools) parts.push(`tool ${[...r.tools].join('|')}`);
  if (r.command) parts.push(`${r.command.kind === 'exact' ? 'command' : 'commands starting with'} \`${r.command.text}\``);
  if (r.paths) parts.push(`paths ${r.paths.map((g) => g.text).join(', ')}`);
  if (r.mcp) parts.push(`MCP ${r.mcp.server ?? '*'}/${r.mcp.tool ?? '*'}`);
  if (r.project) parts.push(`in ${r.project}`);
  if (r.session) parts.push(`session ${r.session}`);
  return parts.length ? parts.join(', ') : 'every held request';
}

export type RuleScope = 'session' | 'project' | 'user';
export const scopeOf = (r: Pick<AnswerRule, 'session' | 'project'>): RuleScope => (r.session ? 'session' : r.project ? 'project' : 'user');
