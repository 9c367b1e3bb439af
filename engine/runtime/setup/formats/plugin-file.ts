// The `plugin-file` format: the agent loads every module in a plugin
// (extension) directory; hookmap owns one generated file there, its first
// line a stamp naming the agent and the descriptor hash it was generated
// from (doctor compares it). A file of that name without our stamp is
// someone else's: setup refuses rather than overwrite it. Uninstall deletes
// only our file.
import { FormatError, type TextFormat } from './types.ts';

export const PLUGIN_STAMP = '// hookmap-plugin:';

export function pluginStamp(agent: string, hash: string, version: number): string {
  return `${PLUGIN_STAMP} v${version} agent=${agent} descriptor=${hash}`;
}

/** The stamp's fields, when the text is a hookmap plugin. */
export function readPluginStamp(text: string): { agent: string; version: string; descriptor: string } | undefined {
  const m = /^\/\/ hookmap-plugin: v(\d+) agent=(\S+) descriptor=(\S+)/.exec(text);
  return m ? { version: m[1], agent: m[2], descriptor: m[3] } : undefined;
}

export const pluginFile: TextFormat = {
  kind: 'text',
  owned: true,
  install(text, _regs, _ours, opts) {
    if (!opts.artifact) throw new FormatError('no generated plugin to install');
    if (text !== '' && readPluginStamp(text)?.agent !== opts.agent)
      throw new FormatError("a file of that name exists and is not hookmap's; move it aside first");
    return opts.artifact;
  },
  remove(text, _ours, opts) {
    return readPluginStamp(text)?.agent === opts.agent ? '' : text;
  },
  empty(text) {
    return text === '';
  },
  entries(text) {
    const s = readPluginStamp(text);
    return s ? [{ hook: '(plugin)', handler: { plugin: s.agent, descriptor: s.descriptor } }] : [];
  },
};
