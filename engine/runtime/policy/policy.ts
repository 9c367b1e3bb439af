// The operator's policy file: rules on AEP event fields that decide what a
// hook's reply carries (block a moment, continue instead of stopping, add
// context, cancel the run), evaluated by the engine for every agent whose
// moment can carry the verb (the descriptor's `decide` blocks). A file is
// loaded whole or not at all: every broken rule is reported, located and
// coded, and nothing of a broken file takes effect (docs/policy.md).
//
//   rules:
//     - id: keep-going-while-red
//       on: run.finished               # AEP event type(s) the firing emits
//       agent: <agent id>              # optional: only these agents
//       when: '=data.reason = "..."'   # optional: JSONata over the event, $agent, $hook
//       decide: continue               # context | cancel | block | continue
//       reason: "The build is red: fix it before you stop."   # text for context; `=` marks an expression
//       max_per_run: 1                 # optional (default 1 for continue, else no limit)
//     - id: tests-run-alone
//       decide: allow                  # allow | deny | ask: answers a held request (answer-rule.ts, docs/rules.md)
//       tool: Bash
//       command: { prefix: npm test }
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { projectRoot } from './subject.ts';
import { REGISTRY_BY_TYPE, TYPE_PATTERN } from '../../core/aep/schemas.ts';
import { pathString } from '../../core/descriptor/errors.ts';
import { VERBS, type Verb } from '../../core/descriptor/types.ts';
import { parseYamlSource, type YamlSource } from '../../core/descriptor/yaml-source.ts';
import { compileMarked, isFailure, type Expr } from '../../core/expr/compile.ts';
import { isMarked } from '../../core/expr/marked.ts';
import { checkNames } from '../../core/expr/names.ts';
import { ANSWER_KEYS, compileAnswerKeys, isAnswerVerb, type AnswerRule, type RuleOrigin } from './answer-rule.ts';
import { TYPE } from '../../core/kernel/lifecycle.ts';

export const POLICY_ERROR_CODES = {
  'policy-yaml': 'the policy file is not valid YAML, or not a mapping with `rules`',
  'policy-unknown-key': 'a key the policy format does not know (at the top or in a rule)',
  'policy-invalid-rule': 'a rule is missing a required key or a value has the wrong type',
  'policy-duplicate-id': 'two rules share an id',
  'policy-unknown-type': '`on` names no registered AEP type (nor an x.<vendor>.* extension)',
  'policy-unknown-verb': '`decide` is not one of context, cancel, block, continue (reply verbs) or allow, deny, ask (answers to a held request)',
  'policy-invalid-match': 'a match key of an answer rule (tool, command, path, mcp, project, session) is malformed',
  'policy-unknown-agent': '`agent` names no agent hookmap knows',
  'policy-invalid-expression': 'a `when` or `reason` expression does not compile',
  'policy-missing-reason': 'block, continue and cancel need a `reason` (what the model is told); context needs `text`',
} as const;

export type PolicyErrorCode = keyof typeof POLICY_ERROR_CODES;

export interface PolicyError {
  code: PolicyErrorCode;
  file: string;
  line: number;
  col: number;
  path: string;
  message: string;
}

export const formatPolicyError = (e: PolicyError): string => `${e.file}:${e.line}:${e.col} ${e.code}: ${e.path ? `${e.path}: ` : ''}${e.message}`;

export interface PolicyRule {
  id: string;
  on: Set<string>;
  agents?: Set<string>;
  when?: Expr;
  decide: Verb;
  /** The reason (block/continue/cancel) or text (context): literal, or an expression over the event. */
  say: { literal: string } | { expr: Expr };
  maxPerRun?: number;
}

export interface Policy {
  file: string;
  /** sha256 of the file's bytes, first 16 hex: which policy decided. */
  digest: string;
  rules: PolicyRule[];
  /** Rules that answer held requests (decide: allow | deny | ask), in file order. */
  answers: AnswerRule[];
}

const RULE_KEYS = new Set(['id', 'on', 'agent', 'when', 'decide', 'reason', 'text', 'max_per_run', 'summary', ...ANSWER_KEYS]);

export interface CompileOptions {
  /** `agent` is checked against these. */
  knownAgents?: readonly string[];
  /** The file is hookmap's learned rules file (its allows count in any project). */
  learned?: boolean;
  /** The git work tree the file lies in (loadPolicyFile finds it): its allow rules grant nothing. */
  repo?: string;
}

/** Compile a policy document; `knownAgents` (when given) checks `agent`. */
export function compilePolicy(
  file: string,
  text: string,
  opts: CompileOptions | readonly string[] = {},
): { policy?: Policy; errors: PolicyError[]; digest: string } {
  const o: CompileOptions = Array.isArray(opts) ? { knownAgents: opts as readonly string[] } : (opts as CompileOptions);
  const knownAgents = o.knownAgents;
  const digest = createHash('sha256').update(text).digest('hex').slice(0, 16);
  const src = parseYamlSource(file, text);
  const errors: PolicyError[] = [];
  const err = (code: PolicyErrorCode, path: (string | number)[], message: string, at?: { line: number; col: number }) => {
    const pos = at ?? src.locate(path);
    errors.push({ code, file, line: pos.line, col: pos.col, path: pathString(path), message });
  };
  if (src.errors.length) {
    for (const e of src.errors) errors.push({ code: 'policy-yaml', file, line: e.line, col: e.col, path: '', message: e.message });
    return { errors, digest };
  }
  const doc = src.value as any;
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) {
    err('policy-yaml', [], 'a policy file is a mapping with a `rules` list');
    return { errors, digest };
  }
  for (const k of Object.keys(doc)) if (k !== 'rules') err('policy-unknown-key', [k], `unknown key '${k}' (a policy file has \`rules\`)`);
  if (!Array.isArray(doc.rules)) {
    err('policy-invalid-rule', ['rules'], '`rules` must be a list of rules');
    return { errors, digest };
  }
  const rules: PolicyRule[] = [];
  const answers: AnswerRule[] = [];
  const origin: RuleOrigin = { file, digest, learned: o.learned === true, repo: o.learned ? undefined : o.repo };
  const ids = new Set<string>();
  doc.rules.forEach((r: any, i: number) => {
    // checked on every rule, broken or not: one report names every problem
    if (typeof r?.id === 'string') {
      if (ids.has(r.id)) err('policy-duplicate-id', ['rules', i, 'id'], `rule id '${r.id}' is used twice`);
      ids.add(r.id);
    }
    if (isAnswerVerb(r?.decide)) {
      const a = compileAnswer(r, ['rules', i], src, err, errors, origin, knownAgents);
      if (a) answers.push(a);
      return;
    }
    const rule = compileRule(r, ['rules', i], src, err, errors, knownAgents);
    if (rule) rules.push(rule);
  });
  if (errors.length) return { errors, digest };
  return { policy: { file, digest, rules, answers }, errors, digest };
}

type Err = (code: PolicyErrorCode, path: (string | number)[], message: string, at?: { line: number; col: number }) => void;

/** `agent:` of any rule: an id or a list, each one hookmap knows. */
function agentsOf(r: any, p: (string | number)[], err: Err, knownAgents?: readonly string[]): Set<string> | undefined {
  if (r.agent === undefined) return undefined;
  const list =
    typeof r.agent === 'string'
      ? [r.agent]
      : Array.isArray(r.agent) && r.agent.every((a: unknown) => typeof a === 'string')
        ? (r.agent as string[])
        : undefined;
  if (!list) {
    err('policy-invalid-rule', [...p, 'agent'], '`agent` is an agent id or a list of them');
    return undefined;
  }
  for (const a of list)
    if (knownAgents && !knownAgents.includes(a))
      err('policy-unknown-agent', [...p, 'agent'], `'${a}' is not an agent hookmap knows (${knownAgents.join(', ')})`);
  return new Set(list);
}

/** A rule that answers a held request: `on` (when given) is attention.requested; no reply verb keys. */
function compileAnswer(
  r: any,
  p: (string | number)[],
  src: YamlSource,
  err: Err,
  errors: readonly PolicyError[],
  origin: RuleOrigin,
  knownAgents?: readonly string[],
): AnswerRule | undefined {
  const start = errors.length;
  for (const k of Object.keys(r)) {
    if (!RULE_KEYS.has(k)) err('policy-unknown-key', [...p, k], `unknown rule key '${k}' (known: ${[...RULE_KEYS].join(', ')})`);
    else if (k === 'text' || k === 'max_per_run')
      err('policy-invalid-rule', [...p, k], `decide: ${r.decide} takes no \`${k}\` (it answers a held request: see docs/rules.md)`);
  }
  if (typeof r.id !== 'string' || !/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/.test(r.id))
    err('policy-invalid-rule', [...p, 'id'], 'a rule needs an `id`: letters, digits, `_ . -`, at most 64');
  if (r.on !== undefined && r.on !== TYPE.attentionRequested && !(Array.isArray(r.on) && r.on.length === 1 && r.on[0] === TYPE.attentionRequested))
    err('policy-invalid-rule', [...p, 'on'], `decide: ${r.decide} answers a held request: \`on\` is attention.requested (or left out)`);
  const agents = agentsOf(r, p, err, knownAgents);
  const keys = compileAnswerKeys(r, p, (path, message) => err('policy-invalid-match', path, message));
  let when: Expr | undefined;
  if (r.when !== undefined) {
    if (typeof r.when !== 'string' || !isMarked(r.when)) err('policy-invalid-expression', [...p, 'when'], '`when` is a JSONata expression marked with `=`');
    else when = expr(r.when, [...p, 'when'], src, err);
  }
  if (errors.length > start || !keys) return undefined;
  return { id: r.id, verb: r.decide, agents, when, ...keys, origin };
}

function compileRule(
  r: any,
  p: (string | number)[],
  src: YamlSource,
  err: Err,
  errors: readonly PolicyError[],
  knownAgents?: readonly string[],
): PolicyRule | undefined {
  if (!r || typeof r !== 'object' || Array.isArray(r)) {
    err('policy-invalid-rule', p, 'a rule is a mapping (id, on, decide, reason)');
    return undefined;
  }
  const start = errors.length;
  for (const k of Object.keys(r)) if (!RULE_KEYS.has(k)) err('policy-unknown-key', [...p, k], `unknown rule key '${k}' (known: ${[...RULE_KEYS].join(', ')})`);
  if (typeof r.id !== 'string' || !/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/.test(r.id))
    err('policy-invalid-rule', [...p, 'id'], 'a rule needs an `id`: letters, digits, `_ . -`, at most 64');
  const on =
    typeof r.on === 'string'
      ? [r.on]
      : Array.isArray(r.on) && r.on.length && r.on.every((t: unknown) => typeof t === 'string')
        ? (r.on as string[])
        : undefined;
  if (!on) err('policy-invalid-rule', [...p, 'on'], '`on` is an AEP event type or a list of them');
  else
    on.forEach((t, j) => {
      const at = [...p, 'on', ...(typeof r.on === 'string' ? [] : [j])];
      if (!TYPE_PATTERN.test(t) || (!t.startsWith('x.') && !REGISTRY_BY_TYPE.has(t)))
        err('policy-unknown-type', at, `'${t}' is not a registered AEP event type (nor x.<vendor>.*)`);
    });
  const agents = agentsOf(r, p, err, knownAgents);
  for (const k of ANSWER_KEYS)
    if (r[k] !== undefined) err('policy-invalid-rule', [...p, k], `\`${k}\` is a key of rules that answer a held request (decide: allow | deny | ask)`);
  if (!VERBS.includes(r.decide))
    err(
      'policy-unknown-verb',
      [...p, 'decide'],
      `decide must be one of ${VERBS.join(', ')} (a reply's verb) or allow, deny, ask (an answer), got ${JSON.stringify(r.decide)}`,
    );
  const sayKey = r.decide === 'context' ? 'text' : 'reason';
  const otherKey = sayKey === 'text' ? 'reason' : 'text';
  if (r[otherKey] !== undefined && VERBS.includes(r.decide))
    err('policy-invalid-rule', [...p, otherKey], `decide: ${r.decide} takes \`${sayKey}\`, not \`${otherKey}\``);
  const sayRaw = r[sayKey];
  let say: PolicyRule['say'] | undefined;
  if (VERBS.includes(r.decide)) {
    if (typeof sayRaw !== 'string' || sayRaw.trim() === '' || sayRaw.trim() === '=')
      err('policy-missing-reason', [...p, sayKey], `decide: ${r.decide} needs \`${sayKey}\`: what the model is told`);
    else if (isMarked(sayRaw)) {
      const e = expr(sayRaw, [...p, sayKey], src, err);
      if (e) say = { expr: e };
    } else say = { literal: sayRaw };
  }
  let when: Expr | undefined;
  if (r.when !== undefined) {
    if (typeof r.when !== 'string' || !isMarked(r.when))
      err('policy-invalid-expression', [...p, 'when'], '`when` is a JSONata expression marked with `=` (e.g. `=data.by = "user"`)');
    else when = expr(r.when, [...p, 'when'], src, err);
  }
  if (r.max_per_run !== undefined && (!Number.isSafeInteger(r.max_per_run) || r.max_per_run < 1))
    err('policy-invalid-rule', [...p, 'max_per_run'], '`max_per_run` is a positive integer');
  if (errors.length > start || !on || !say) return undefined;
  return { id: r.id, on: new Set(on), agents, when, decide: r.decide, say, maxPerRun: r.max_per_run ?? (r.decide === 'continue' ? 1 : undefined) };
}

function expr(source: string, path: (string | number)[], src: YamlSource, err: Err): Expr | undefined {
  const c = compileMarked(source, path);
  if (isFailure(c)) {
    const at = src.locateInScalar(path, c.index + (c.lead ?? 0));
    err('policy-invalid-expression', path, `${c.message} (at ${c.index + 1} in the expression)`, at);
    return undefined;
  }
  // names resolved like a descriptor's (engine/core/expr/names.ts): a rule reads the event and $agent, $hook, $session, $run
  const issues = checkNames(c.ast(), { position: 'policy', names: [] });
  for (const i of issues) err('policy-invalid-expression', path, i.message, src.locateInScalar(path, i.index + 1));
  return issues.length ? undefined : c;
}

export function loadPolicyFile(path: string, opts: CompileOptions | readonly string[] = {}): { policy?: Policy; errors: PolicyError[]; digest?: string } {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    return { errors: [{ code: 'policy-yaml', file: path, line: 1, col: 1, path: '', message: `cannot read: ${(e as Error).message}` }] };
  }
  const o: CompileOptions = Array.isArray(opts) ? { knownAgents: opts as readonly string[] } : (opts as CompileOptions);
  return compilePolicy(path, text, { ...o, repo: o.learned ? undefined : repoOf(dirname(resolve(path))) });
}

/** The nearest folder at or above `dir` holding `.git`, if any. */
function repoOf(dir: string): string | undefined {
  const root = projectRoot(dir);
  return existsSync(join(root, '.git')) ? root : undefined;
}
