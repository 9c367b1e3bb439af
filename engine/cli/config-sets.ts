// `--set KEY=VALUE` (map, serve): one descriptor config option for this run,
// over its default and its HOOKMAP_<AGENT>_<KEY> variable. The value is JSON
// when it reads as JSON (true, 3, ["a"]), else the text as written; a key the
// descriptor does not declare is a usage error naming the ones it does.
import type { Descriptor } from '../core/descriptor/types.ts';
import { ArgError } from './args.ts';

export function configSets(values: unknown, d: Descriptor): Record<string, unknown> | undefined {
  const list = values === undefined ? [] : Array.isArray(values) ? values.map(String) : [String(values)];
  if (!list.length) return undefined;
  const known = d.options.map((o) => o.key);
  const out: Record<string, unknown> = {};
  for (const s of list) {
    const eq = s.indexOf('=');
    if (eq <= 0) throw new ArgError(`--set takes KEY=VALUE, got ${JSON.stringify(s)}`);
    const key = s.slice(0, eq);
    if (!known.includes(key)) throw new ArgError(`--set ${key}: ${d.vendor} has no option '${key}' (its options: ${known.join(', ') || 'none'})`);
    const text = s.slice(eq + 1);
    try {
      out[key] = JSON.parse(text);
    } catch {
      out[key] = text;
    }
  }
  return out;
}
