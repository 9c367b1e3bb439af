// `hookmap map <agent> [--capture L]`: the pure mapping as a filter. NDJSON
// steps in (`{"hook"?, "input"}`), exactly one NDJSON result line out per
// step; every step of one call shares one engine state. Exit 1 if any step
// errored, 2 on a usage or descriptor error.
import { CAPTURE_ORDER, type CaptureLevel } from '../../core/aep/schemas.ts';
import { loadVendor } from '../../core/descriptor/registry.ts';
import { DescriptorLoadError } from '../../core/descriptor/errors.ts';
import { readLines } from '../../core/io/lines.ts';
import { MapError, Mapper } from '../../core/map/mapper.ts';
import { ArgError, parseArgs, intFlag } from '../args.ts';
import { Redactor } from '../../core/capture/redact.ts';
import type { RuntimeConfig } from '../../core/config/schema.ts';
import { resolveConfig } from '../config.ts';
import { configSets } from '../config-sets.ts';

const DEFAULT_MAX_STEP_BYTES = 8 * 1024 * 1024;

export async function run(argv: string[], config: RuntimeConfig = resolveConfig(process.env)): Promise<number> {
  let agent: string;
  let capture: CaptureLevel | undefined;
  let maxBytes: number;
  let sets: unknown;
  try {
    const { flags, positionals } = parseArgs(argv, {
      capture: { type: 'string' },
      'max-step-bytes': { type: 'string' },
      set: { type: 'string', multiple: true },
    });
    if (positionals.length !== 1) throw new ArgError('usage: hookmap map <agent|descriptor.yaml> [--capture none|metadata|redacted|full] [--set KEY=VALUE]');
    agent = positionals[0];
    if (flags.capture !== undefined) {
      if (!CAPTURE_ORDER.includes(flags.capture as CaptureLevel)) throw new ArgError(`--capture must be one of ${CAPTURE_ORDER.join(', ')}`);
      capture = flags.capture as CaptureLevel;
    }
    maxBytes = intFlag(flags['max-step-bytes'], 'max-step-bytes', DEFAULT_MAX_STEP_BYTES);
    sets = flags.set;
  } catch (err) {
    process.stderr.write(`hookmap map: ${(err as Error).message}\n`);
    return 2;
  }
  let mapper: Mapper;
  try {
    const d = loadVendor(agent);
    const redactor = new Redactor({ ...config.redaction, secretNames: [...d.capture.secretNames, ...config.redaction.secretNames], env: process.env });
    mapper = new Mapper(d, { capture, host: config.hostId, optionVars: config.options, redactor, config: configSets(sets, d) });
  } catch (err) {
    if (err instanceof ArgError) {
      process.stderr.write(`hookmap map: ${err.message}\n`);
      return 2;
    }
    if (err instanceof DescriptorLoadError) process.stderr.write(`${err.message}\n`);
    else process.stderr.write(`hookmap map: ${(err as Error).message}\n`);
    return 2;
  }
  let failed = false;
  const out = (obj: unknown) =>
    new Promise<void>((res) => {
      if (!process.stdout.write(`${JSON.stringify(obj)}\n`)) process.stdout.once('drain', res);
      else res();
    });
  for await (const line of readLines(process.stdin, maxBytes)) {
    if (line.oversize !== undefined) {
      failed = true;
      await out({ error: { code: 'step-too-large', message: `line ${line.lineNo}: ${line.oversize} bytes exceeds the ${maxBytes}-byte step limit` } });
      continue;
    }
    if (line.text.trim() === '') continue;
    const res = await mapStep(mapper, line.text, line.lineNo);
    if ('error' in res) failed = true;
    await out(res);
  }
  return failed ? 1 : 0;
}

export async function mapStep(
  mapper: Mapper,
  text: string,
  lineNo: number,
): Promise<{ events: unknown[]; reply: string } | { error: { code: string; message: string } }> {
  let step: any;
  try {
    step = JSON.parse(text);
  } catch (err) {
    return { error: { code: 'invalid-json', message: `line ${lineNo}: ${(err as Error).message}` } };
  }
  if (!step || typeof step !== 'object' || Array.isArray(step))
    return { error: { code: 'invalid-step', message: `line ${lineNo}: a step is an object {"hook"?: string, "input": object}` } };
  if (step.hook !== undefined && (typeof step.hook !== 'string' || step.hook === ''))
    return { error: { code: 'invalid-step', message: `line ${lineNo}: "hook" must be a non-empty string` } };
  if (!('input' in step)) return { error: { code: 'invalid-step', message: `line ${lineNo}: missing "input"` } };
  try {
    const r = await mapper.map(step.hook, step.input);
    return { events: r.events, reply: r.reply };
  } catch (err) {
    if (err instanceof MapError) return { error: { code: err.code, message: `line ${lineNo}: ${err.message}` } };
    return { error: { code: 'mapping-error', message: `line ${lineNo}: ${(err as Error).message}` } };
  }
}
