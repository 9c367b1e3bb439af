// `hookmap check` over an agent's recorded payloads (fixtures/<agent>/recorded/,
// kind: recorded, copied in by `hookmap record promote`): real payloads are
// regression input, so each file is held to the fixture schema and its payload
// must map through the descriptor without a mapping error, into events whose
// envelope and payload pass the AEP schemas, through the hook's own rule (not
// the fallback) when the descriptor names that hook.
import { join } from 'node:path';
import { formatAjvErrors, validateEnvelope, validatePayload } from '../../core/aep/schemas.ts';
import type { DescriptorError } from '../../core/descriptor/errors.ts';
import type { Descriptor } from '../../core/descriptor/types.ts';
import { loadFixtureDir, type LoadedFixtureFile } from '../cases/load.ts';
import { Mapper } from '../../core/map/mapper.ts';

export const RECORDED_DIR = 'recorded';

export interface RecordedCheck {
  files: LoadedFixtureFile[];
  errors: DescriptorError[];
  /** Payloads that mapped cleanly, of every recorded file that loaded. */
  passed: number;
}

export async function checkRecorded(d: Descriptor, fixturesDir: string, fixturesLabel: string, agent: string): Promise<RecordedCheck> {
  const fx = loadFixtureDir(join(fixturesDir, RECORDED_DIR), `${fixturesLabel}/${RECORDED_DIR}`, agent);
  const errors = [...fx.errors];
  const files = fx.files.filter((f) => f.kind === 'recorded');
  for (const f of fx.files)
    if (f.kind !== 'recorded')
      errors.push({ ...at(f, ['kind']), code: 'fixture-invalid', message: `kind '${f.kind}' in ${RECORDED_DIR}/ (only recorded payloads go there)` });
  let passed = 0;
  for (const f of files) {
    const doc = f.src.value as { hook?: string; payload?: unknown };
    const problems = await mapOne(d, doc.hook, doc.payload);
    for (const p of problems) errors.push({ ...at(f, ['payload']), code: p.code, message: p.message });
    if (!problems.length) passed++;
  }
  return { files, errors, passed };
}

function at(f: LoadedFixtureFile, path: (string | number)[]): Pick<DescriptorError, 'file' | 'line' | 'col' | 'path'> {
  const pos = f.src.locate(path);
  return { file: f.file, line: pos.line, col: pos.col, path: path.join('.') };
}

async function mapOne(d: Descriptor, hook: string | undefined, payload: unknown): Promise<{ code: DescriptorError['code']; message: string }[]> {
  const out: { code: DescriptorError['code']; message: string }[] = [];
  if (payload === undefined) return [{ code: 'fixture-invalid', message: 'a recorded file without a payload' }];
  let events;
  try {
    events = (await new Mapper(d).map(d.hookName ? undefined : hook, payload)).events;
  } catch (e) {
    return [{ code: 'fixture-mismatch', message: `the recorded ${hook ?? ''} payload no longer maps: ${(e as Error).message}` }];
  }
  for (const ev of events) {
    if (/\.error\.mapping_failed$/.test(ev.type))
      out.push({ code: 'fixture-mismatch', message: `the recorded ${hook ?? ''} payload maps with a mapping error (${ev.type}): ${JSON.stringify(ev.data)}` });
    const env = formatAjvErrors(validateEnvelope(ev));
    if (env) out.push({ code: 'payload-rejected', message: `${ev.type} envelope: ${env}` });
    const pay = formatAjvErrors(validatePayload(ev.type, ev.data));
    if (pay) out.push({ code: 'payload-rejected', message: `${ev.type} payload: ${pay}` });
  }
  const rule = hook !== undefined ? d.hooks.get(hook) : undefined;
  if (rule && !rule.emit.some((x) => x.typeText.startsWith('x.')) && events.some((e) => e.type.startsWith(`x.${d.vendor}.session.`)))
    out.push({ code: 'fixture-mismatch', message: `the recorded ${hook} payload fell through to the fallback rule, not ${hook}'s own` });
  return out;
}
