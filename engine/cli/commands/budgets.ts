// `hookmap budgets` (docs/usage.md "Budgets"): the caps of the running up,
// what each scope spent in the current window, and what happens next, read
// over up's authenticated HTTP (GET /budgets, read scope).
import { ArgError, parseArgs } from '../args.ts';
import { endpoint, explainRefusal } from './command-common.ts';
import { amount, type BudgetView } from '../../runtime/usage/budgets.ts';

const SPEC = { json: { type: 'boolean' }, url: { type: 'string' }, token: { type: 'string' }, 'token-file': { type: 'string' } } as const;
const USAGE = 'usage: hookmap budgets [--json] [--url U] [--token T | --token-file F]';

const out = (s: string) => process.stdout.write(`${s}\n`);

export async function run(argv: string[]): Promise<number> {
  let flags: Record<string, unknown>;
  try {
    const p = parseArgs(argv, SPEC);
    flags = p.flags;
    if (p.positionals.length) throw new ArgError(USAGE);
  } catch (e) {
    if (e instanceof ArgError) {
      process.stderr.write(`hookmap budgets: ${e.message}\n`);
      return 2;
    }
    throw e;
  }
  const ep = endpoint(flags, 'hookmap budgets');
  let res: Response;
  try {
    res = await fetch(`${ep.url.replace(/\/$/, '')}/budgets`, {
      headers: { 'x-hookmap-surface': 'cli', ...(ep.token ? { authorization: `Bearer ${ep.token}` } : {}) },
      signal: AbortSignal.timeout(10_000),
    });
  } catch (e) {
    process.stderr.write(`hookmap budgets: ${ep.url}: ${(e as Error).message} (is hookmap up running?)\n`);
    return 1;
  }
  const body = (await res.json().catch(() => ({}))) as { budgets?: BudgetView[]; error?: string; detail?: string };
  if (!res.ok) {
    const why = `${ep.url}: ${res.status} ${body.error ?? res.statusText}${body.detail ? `: ${body.detail}` : ''}`;
    process.stderr.write(`hookmap budgets: ${explainRefusal(ep, why)}\n`);
    return 1;
  }
  if (flags.json) {
    out(JSON.stringify(body));
    return 0;
  }
  const list = body.budgets ?? [];
  if (!list.length) out('no budgets: add a budgets: list to the up config (hookmap up --config FILE; docs/usage.md, Budgets)');
  for (const b of list) {
    const scope = `${b.scope}${b.only ? ` ${b.only}` : ''}${b.window ? ` per ${b.window} (${b.current} UTC)` : ''}`;
    const more = b.raise_by ? ` (allow more: ${amount(b.unit, b.raise_by)})` : '';
    out(`${b.id}: ${amount(b.unit, b.cap)} ${scope}; warns at ${Math.round(b.warn_at * 100)}%, at the cap: ${b.at_cap}${more}`);
    if (!b.spends.length) out('  nothing spent yet');
    for (const s of b.spends) {
      const unpriced = s.unpriced && b.unit === 'usd' ? ` (${s.unpriced} usage report(s) without a price, not counted)` : '';
      const raised = s.raised ? ` (cap raised to ${amount(b.unit, s.raised)})` : '';
      const share = `${String(Math.round(s.share * 100)).padStart(4)}%`;
      out(`  ${s.name.padEnd(24)} ${amount(b.unit, s.spent).padStart(16)}  ${share}  ${s.state}: ${s.next}${raised}${unpriced}`);
    }
    if (b.scopes > b.spends.length) out(`  and ${b.scopes - b.spends.length} more, less spent`);
  }
  return 0;
}
