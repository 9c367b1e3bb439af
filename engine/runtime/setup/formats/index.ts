// Config format strategies by name (the descriptor's `setup.shape`, else `setup.format`).
import { agentServersFormat } from './agent-servers.ts';
import { hookGroups } from './hook-groups.ts';
import { hookLists } from './hook-lists.ts';
import { hooksDir } from './hooks-dir.ts';
import { namedHookGroups } from './named-hook-groups.ts';
import { pluginFile } from './plugin-file.ts';
import { tomlHookTables } from './toml-hook-tables.ts';
import { FormatError, type ConfigFormat } from './types.ts';
import { yamlHookList } from './yaml-hook-list.ts';

export const FORMATS: Record<string, ConfigFormat> = {
  'hook-groups': hookGroups,
  'hook-lists': hookLists,
  'named-hook-groups': namedHookGroups,
  'toml-hook-tables': tomlHookTables,
  'yaml-hook-list': yamlHookList,
  'hooks-dir': hooksDir,
  'plugin-file': pluginFile,
  'agent-servers': agentServersFormat,
};

export function configFormat(name: string): ConfigFormat {
  const f = FORMATS[name];
  if (!f) throw new FormatError(`setup shape '${name}' is not implemented (known: ${Object.keys(FORMATS).join(', ')})`);
  return f;
}
