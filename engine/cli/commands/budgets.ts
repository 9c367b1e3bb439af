// `hookmap budgets` (docs/usage.md "Budgets"): the caps of the running up,
// what each scope spent in the current window, and what happens next, read
// over up's authenticated HTTP (GET /budgets, read scope).
import { ArgError, parseArgs } from '../args.ts';
import { endpoint, explainRefusal } from './command-common.ts';

const SPEC = { json: { type: 'boolean' }, url: { type: 'string' }, token: { type: 'string' }, 'token-file': { type: 'string' } } as const;
const USAGE = 'usage: hookmap budgets [--json] [--url U] [--token T | --token-file F]';

interface SpendRow {
  name: string;
  spent: number;
  share: number;
  state: string;
  next: string;
  unpriced: number;
}
interface BudgetRow {
  id: string;
  scope: string;
  only?: string;
  window?: string;
  current?: string;
  unit: 'usd' | 'tokens';
  cap: number;
  warn_at: number;
  at_cap: string;
  spends: SpendRow[];
}

const out = (s: string) => process.stdout.write(`${s}\n`);
const fmt = (unit: string, n: number) =>
  unit === 'usd' ? `$${n.toFixed(4).replace(/(\.\d\d\d*?)0+$/, '$1')}` : `${Math.round(n).toLocaleString('en-US')} tokens`;

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
  let body: { budgets?: BudgetRow[]; error?: string; detail?: string };
  try {
    const res = await fetch(`${ep.url.replace(/\/$/, '')}/budgets`, {
      headers: { 'x-hookmap-surface': 'cli', ...(ep.token ? { authorization: `Bearer ${ep.token}` } : {}) },
      signal: AbortSignal.timeout(10_000),
    });
    body = (await res.json().catch(() => ({}))) as typeof body;
    if (!res.ok) throw new Error(`${res.status} ${body.error ?? res.statusText}${body.detail ? `: ${body.detail}` : ''}`);
  } catch (e) {
    process.stderr.write(`hookmap budgets: ${explainRefusal(ep, `${ep.url}: ${(e as Error).message}`)} (is hookmap up running?)\n`);
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
    out(`${b.id}: ${fmt(b.unit, b.cap)} ${scope}; warns at ${Math.round(b.warn_at * 100)}%, at the cap: ${b.at_cap}`);
    if (!b.spends.length) out('  nothing spent yet');
    for (const s of b.spends) {
      const unpriced = s.unpriced && b.unit === 'usd' ? ` (${s.unpriced} usage report(s) without a price, not counted)` : '';
      out(`  ${s.name.padEnd(24)} ${fmt(b.unit, s.spent).padStart(16)}  ${String(Math.round(s.share * 100)).padStart(4)}%  ${s.state}: ${s.next}${unpriced}`);
    }
  }
  return 0;
}
