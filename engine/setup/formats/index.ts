// Config format strategies by name (the descriptor's `setup.format`).
import { hookGroups } from './hook-groups.ts';
import { FormatError, type ConfigFormat } from './types.ts';

export const FORMATS: Record<string, ConfigFormat> = {
  'hook-groups': hookGroups,
};

export function configFormat(name: string): ConfigFormat {
  const f = FORMATS[name];
  if (!f) throw new FormatError(`setup shape '${name}' is not implemented (known: ${Object.keys(FORMATS).join(', ')})`);
  return f;
}
