// The scripted model on its own, for an author wiring a new agent by hand
// (docs/authoring.md "A model to run against"): the live suite's model server
// (model-server.ts) with a command line.
//
//   npm run model -- [--family anthropic|responses|chat|gemini]... [--port N] [--scenario FILE]
//
// FILE (YAML or JSON) is a scenario: `steps`, each `{ tool: NAME, args: {...} }`
// (the model calls that tool) or `{ say: TEXT }` (it answers), and `aside`,
// the text for side requests that offer no tools (titles, summaries). The
// step answered is the number of tool results already in the conversation.
// Without --scenario the model says "ok". The first line on stdout is the
// base URL (an agent's base URL is it, or it plus /v1); every request the
// model answers is a line on stderr. Usage errors exit 2.
import { readFileSync, realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { parse } from 'yaml';
import { FAMILIES, startModelServer, type Family, type Scenario, type Step } from './model-server.ts';

export class UsageError extends Error {}

export interface ModelArgs {
  families?: Family[];
  port?: number;
  scenario?: Scenario;
}

/** A scenario file's text (YAML or JSON) as a Scenario, or a UsageError saying what is wrong where. */
export function readScenario(text: string, file: string): Scenario {
  let doc: any;
  try {
    doc = parse(text);
  } catch (e) {
    throw new UsageError(`${file}: not YAML or JSON (${(e as Error).message.split('\n')[0]})`);
  }
  if (!doc || typeof doc !== 'object' || !Array.isArray(doc.steps) || doc.steps.length === 0)
    throw new UsageError(`${file}: a scenario is a mapping with a non-empty \`steps\` list`);
  const steps: Step[] = doc.steps.map((s: any, i: number): Step => {
    const at = `${file}: steps[${i}]`;
    if (s && typeof s.say === 'string' && s.tool === undefined) return { say: s.say };
    if (s && typeof s.tool === 'string' && s.tool && (s.args === undefined || (typeof s.args === 'object' && !Array.isArray(s.args))))
      return { tool: s.tool, args: s.args ?? {}, ...(typeof s.namespace === 'string' ? { namespace: s.namespace } : {}) };
    throw new UsageError(`${at}: each step is { tool: NAME, args: {...} } or { say: TEXT }`);
  });
  if (doc.aside !== undefined && typeof doc.aside !== 'string') throw new UsageError(`${file}: \`aside\` is text`);
  return { name: typeof doc.name === 'string' ? doc.name : file, steps, ...(doc.aside !== undefined ? { aside: doc.aside } : {}) };
}

export function parseModelArgs(argv: string[], read: (file: string) => string = (f) => readFileSync(f, 'utf8')): ModelArgs {
  const out: ModelArgs = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const value = () => {
      const v = argv[++i];
      if (v === undefined) throw new UsageError(`${a} needs a value`);
      return v;
    };
    if (a === '--family') {
      const f = value();
      if (!(FAMILIES as readonly string[]).includes(f)) throw new UsageError(`--family ${f}: one of ${FAMILIES.join(', ')}`);
      (out.families ??= []).push(f as Family);
    } else if (a === '--port') {
      const p = value();
      if (!/^\d+$/.test(p) || Number(p) > 65535) throw new UsageError(`--port ${p}: a port number (0-65535)`);
      out.port = Number(p);
    } else if (a === '--scenario') {
      const f = value();
      let text: string;
      try {
        text = read(f);
      } catch (e) {
        throw new UsageError(`--scenario ${f}: cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
      }
      out.scenario = readScenario(text, f);
    } else throw new UsageError(`unknown argument ${a} (--family F, --port N, --scenario FILE)`);
  }
  return out;
}

async function main(): Promise<void> {
  let args: ModelArgs;
  try {
    args = parseModelArgs(process.argv.slice(2));
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    process.stderr.write(`scripted-model: ${e.message}\n`);
    process.exit(2);
  }
  const server = await startModelServer({ families: args.families, port: args.port, log: (l) => process.stderr.write(`${l}\n`) });
  if (args.scenario) server.play(args.scenario);
  process.stdout.write(`${server.url}\n`);
  const stop = () => void server.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

if (process.argv[1] && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href) void main();
