// `hookmap rules list|show|revoke|test|preset` (docs/rules.md): the rules that
// answer held requests. list/show read the files `hookmap up` reads (the
// learned rules in $HOOKMAP_HOME, `--policy F`) and the use counts up keeps;
// revoke goes through a running up when there is one (attributed to the
// token's principal, on the stream), else edits the learned file and audits
// it as the local user; test answers what would happen to a request, without
// anyone trusting a rule first.
import { resolve } from 'node:path';
import { userInfo } from 'node:os';
import { ArgError, parseArgs } from '../args.ts';
import { listVendors, loadVendor } from '../../core/descriptor/registry.ts';
import { resolveTarget, tokenSources } from '../config.ts';
import { formatPolicyError, loadPolicyFile, type Policy } from '../../runtime/policy/policy.ts';
import { isPreset, PRESETS, presetRules } from '../../runtime/policy/presets.ts';
import { RuleBook, RuleError, type RuleView } from '../../runtime/policy/rulebook.ts';
import { subjectOf } from '../../runtime/policy/subject.ts';
import { endpoint } from './command-common.ts';

const SPEC = {
  json: { type: 'boolean' },
  policy: { type: 'string' },
  agent: { type: 'string' },
  tool: { type: 'string' },
  command: { type: 'string' },
  path: { type: 'string', multiple: true },
  cwd: { type: 'string' },
  session: { type: 'string' },
  'mcp-server': { type: 'string' },
  'mcp-tool': { type: 'string' },
  enable: { type: 'boolean' },
  dir: { type: 'string' },
  url: { type: 'string' },
  token: { type: 'string' },
  'token-file': { type: 'string' },
  offline: { type: 'boolean' },
} as const;

const USAGE = `usage: hookmap rules list [--json] [--policy F]
       hookmap rules show <id> [--json]
       hookmap rules revoke <id> [--offline]
       hookmap rules test --agent A [--tool T] [--command "..."] [--path P]... [--cwd D] [--session S] [--mcp-server S --mcp-tool T] [--policy F]
       hookmap rules preset [read-only|tests] [--enable] [--agent A] [--dir D]`;

const out = (s: string) => process.stdout.write(`${s}\n`);

export async function run(argv: string[]): Promise<number> {
  let flags: Record<string, unknown>, pos: string[];
  try {
    const p = parseArgs(argv, SPEC);
    flags = p.flags;
    pos = p.positionals;
    if (!['list', 'show', 'revoke', 'test', 'preset'].includes(pos[0])) throw new ArgError(USAGE);
  } catch (e) {
    if (e instanceof ArgError) {
      process.stderr.write(`hookmap rules: ${e.message}\n`);
      return 2;
    }
    throw e;
  }
  const usage = (m: string) => (process.stderr.write(`hookmap rules: ${m}\n`), 2);
  let policy: Policy | undefined;
  if (flags.policy !== undefined) {
    const r = loadPolicyFile(resolve(String(flags.policy)), listVendors());
    if (!r.policy) {
      for (const e of r.errors) process.stderr.write(`${formatPolicyError(e)}\n`);
      return usage(`${String(flags.policy)} is refused: hookmap up would not start with it`);
    }
    policy = r.policy;
  }
  const home = resolveTarget(process.env).home;
  // hookmap's own files the floor keeps, wherever they are: the token file the environment names too
  const book = new RuleBook({ home, policy: () => policy, knownAgents: listVendors(), own: () => [tokenSources(process.env).envTokenFile] });
  switch (pos[0]) {
    case 'list':
      return list(book, Boolean(flags.json));
    case 'show':
      return pos.length === 2 ? show(book, pos[1], Boolean(flags.json)) : usage('show takes one rule id');
    case 'revoke':
      return pos.length === 2 ? revoke(book, pos[1], flags) : usage('revoke takes one rule id');
    case 'test':
      return test(book, flags, usage);
    default:
      return preset(book, pos[1], flags, usage);
  }
}

const scopeWord = (v: RuleView) => (v.scope === 'user' ? 'everywhere' : v.scope);

function list(book: RuleBook, json: boolean): number {
  const views = book.list();
  const broken = book.learned?.current().errors ?? [];
  if (json) {
    out(JSON.stringify({ rules: views, learned_file: book.learned?.file, errors: broken }));
    return 0;
  }
  for (const e of broken) process.stderr.write(`warning: ${formatPolicyError(e)} (none of the learned rules answers anything until this is fixed)\n`);
  if (!views.length) {
    out(`no rules answer held requests (learned rules: ${book.learned?.file}; add one with "Allow always" or hookmap rules preset)`);
    return 0;
  }
  for (const v of views) {
    const used = v.uses ? `used ${v.uses}x, last ${v.last_used}` : 'never used';
    const who = v.added ? `added by ${v.added.by} (${v.added.via}) ${v.added.at}` : `in ${v.file}`;
    out(`${v.id}  ${v.verb}  ${v.matches}  [${scopeWord(v)}]  ${used}; ${who}`);
  }
  return 0;
}

function show(book: RuleBook, id: string, json: boolean): number {
  const v = book.list().find((x) => x.id === id || x.id.startsWith(id));
  if (!v) {
    process.stderr.write(`hookmap rules: no rule ${id} (hookmap rules list)\n`);
    return 1;
  }
  if (json) {
    out(JSON.stringify(v));
    return 0;
  }
  out(`rule ${v.id}`);
  out(`  decides   ${v.verb}`);
  out(`  matches   ${v.matches}`);
  out(`  scope     ${scopeWord(v)}`);
  out(`  from      ${v.origin === 'learned' ? `learned (${v.file})` : `policy file ${v.file}`}`);
  if (v.added) out(`  added     by ${v.added.by} from ${v.added.via} at ${v.added.at}${v.added.request ? ` (answering ${v.added.request})` : ''}`);
  if (v.added?.native) out(`  native    the agent persists it too: ${v.added.native}`);
  out(`  used      ${v.uses ? `${v.uses} times, last ${v.last_used}` : 'never'}`);
  out(`  revoke    ${v.revocable ? `hookmap rules revoke ${v.id}` : 'edit the policy file'}`);
  return 0;
}

async function revoke(book: RuleBook, id: string, flags: Record<string, unknown>): Promise<number> {
  if (!flags.offline) {
    // through a running up: attributed to the token's principal and put on the stream
    const ep = endpoint(flags, 'hookmap rules');
    try {
      const res = await fetch(`${ep.url.replace(/\/$/, '')}/rules/revoke`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-hookmap-surface': 'cli', ...(ep.token ? { authorization: `Bearer ${ep.token}` } : {}) },
        body: JSON.stringify({ id }),
        signal: AbortSignal.timeout(10_000),
      });
      const body = (await res.json().catch(() => ({}))) as Record<string, string>;
      if (res.ok) {
        out(`revoked ${id} (through ${ep.url}): the next request asks again`);
        return 0;
      }
      if (res.status !== 404 || body.error === 'no-such-rule') {
        process.stderr.write(`hookmap rules: ${body.error ?? res.status}: ${body.detail ?? res.statusText}\n`);
        return 1;
      }
    } catch {
      /* no up answering: edit the file */
    }
  }
  try {
    book.revoke(id, { by: `local:${userInfo().username}`, via: 'cli' });
    out(`revoked ${id} (in ${book.learned?.file}): the next request asks again`);
    return 0;
  } catch (e) {
    if (!(e instanceof RuleError)) throw e;
    process.stderr.write(`hookmap rules: ${e.message}\n`);
    return 1;
  }
}

async function test(book: RuleBook, flags: Record<string, unknown>, usage: (m: string) => number): Promise<number> {
  const agent = flags.agent as string | undefined;
  if (!agent) return usage('test needs --agent (the agent that would ask)');
  if (!listVendors().includes(agent)) return usage(`unknown agent '${agent}' (known: ${listVendors().join(', ')})`);
  if (flags.tool === undefined && flags.command === undefined && flags.path === undefined && flags['mcp-server'] === undefined)
    return usage('say what is asked: --tool, --command, --path or --mcp-server');
  const cwd = resolve(String(flags.cwd ?? process.cwd()));
  const s = subjectOf(
    { agent, session: String(flags.session ?? 'rules-test') },
    { tool: flags.tool, command: flags.command, paths: flags.path, cwd, mcpServer: flags['mcp-server'], mcpTool: flags['mcp-tool'] },
  );
  const d = await book.decide(s);
  const word = d.verb === 'none' ? 'ask' : d.verb;
  if (d.floor) out(`ask  floor ${d.floor.row}: rule ${d.rule!.id} would allow this; the floor keeps it for you (${d.floor.why})`);
  else if (d.rule) out(`${word}  rule ${d.rule.id} (${d.rule.origin.learned ? 'learned' : d.rule.origin.file})`);
  else out('ask  no rule matches: a card goes to a human');
  for (const x of d.skipped) out(`  skipped ${x.rule.id}: ${x.why}`);
  return 0;
}

function preset(book: RuleBook, name: string | undefined, flags: Record<string, unknown>, usage: (m: string) => number): number {
  if (name === undefined) {
    for (const [n, what] of Object.entries(PRESETS)) out(`${n}  ${what}`);
    out('show one: hookmap rules preset NAME; turn it on: hookmap rules preset NAME --enable');
    return 0;
  }
  if (!isPreset(name)) return usage(`no preset ${name} (known: ${Object.keys(PRESETS).join(', ')})`);
  const ids = flags.agent ? [String(flags.agent)] : listVendors();
  const agents = ids.map((id) => ({ id, readTools: loadVendor(id).readTools }));
  const { rules, notes } = presetRules(name, { agents, dir: resolve(String(flags.dir ?? process.cwd())) });
  for (const n of notes) process.stderr.write(`note: ${n}\n`);
  if (!flags.enable) {
    out(`# the ${name} preset: these rules, once enabled (hookmap rules preset ${name} --enable), answer without a card; the floor still applies`);
    for (const r of rules) out(`- ${JSON.stringify(r)}`);
    return 0;
  }
  let added = 0;
  for (const r of rules) {
    try {
      book.addRule(r, { by: `local:${userInfo().username}`, via: 'cli preset' });
      added++;
    } catch (e) {
      if (!(e instanceof RuleError)) throw e;
      process.stderr.write(`hookmap rules: ${r.id}: ${e.message}\n`);
    }
  }
  out(`${name}: ${added} rule${added === 1 ? '' : 's'} enabled in ${book.learned?.file} (hookmap rules list; revoke each with hookmap rules revoke ID)`);
  return added || !rules.length ? 0 : 1;
}
