// One agent, checked end to end: the descriptor loads (every located error at
// once), its fixtures load, every normalized-event case reproduces through the
// mapper, every emitted event passes the envelope and payload schemas, and
// every `supported` capability claim has a passing fixture behind it. The
// report is the single source for `check`, `capabilities` and `docs`.
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { formatAjvErrors, validateEnvelope, validatePayload } from '../../core/aep/schemas.ts';
import { answerShape, judgeCapabilities, type CapabilityRow, type EvidenceCase } from './evidence.ts';
import { loadDescriptorFile } from '../../core/descriptor/compile.ts';
import { sortErrors, type DescriptorError } from '../../core/descriptor/errors.ts';
import type { Descriptor } from '../../core/descriptor/types.ts';
import { parseYamlSource, type YamlSource } from '../../core/descriptor/yaml-source.ts';
import { loadFixtureDir, type LoadedFixtureFile } from '../cases/load.ts';
import { isCommandCase, runCommandCase, runDecisionCase } from '../cases/run-decisions.ts';
import { isDeliveryCase, runDeliveryCase } from '../cases/run-deliveries.ts';
import { runEventCase } from '../cases/run-events.ts';
import { validateStream } from '../../core/validate/index.ts';
import { ShimRun, type ShimCase, type ShimRunEnv } from '../cases/run-shim.ts';
import { placeholders } from '../scaffold/new-agent.ts';
import { checkRecorded } from './recorded.ts';
import { checkReplyShapes } from './shape-cases.ts';
import type { CheckTarget } from './targets.ts';

export { summaryLine } from './summary-line.ts';

export interface CaseResult {
  file: string;
  name: string;
  kind: string;
  passed: boolean;
  /** Why the case did not run (never counted as passing): a documentation pass, or a case this machine cannot run. */
  notRun?: string;
}

export interface CheckOptions {
  /** Run the shim cases (what their processes inherit); without it they are reported as not run. */
  shims?: ShimRunEnv;
}

/** Why a pass without `shims` leaves the shim cases unrun. */
export const SHIMS_RUN_BY_CHECK = 'shim cases run under `hookmap check`';

export interface PinCount {
  file: string;
  passed: number;
  /** Every upstream pin imported, the known-not-reproduced ones included: a pin never silently leaves the count. */
  total: number;
  /** Pins this engine is known not to reproduce, and why (pin-setup.yaml `known_not_reproduced`). */
  known: Record<string, string>;
  /** Upstream blocks that are not pin cases (prose identity notes, second channels), and why. */
  skipped: Record<string, string>;
  /** Cases reproduced except for named fields the engine cannot produce (with the reason). */
  notReproducible: Record<string, { type: string; fields: string[]; why: string }>;
}

export interface AgentReport {
  target: CheckTarget;
  descriptor?: Descriptor;
  /** Sorted, de-duplicated. Empty: everything holds. */
  errors: DescriptorError[];
  fixtureFiles: LoadedFixtureFile[];
  cases: CaseResult[];
  /** The imported upstream pins (a `pins.yaml` events file), if the agent has them. */
  pins?: PinCount;
  capabilities: CapabilityRow[];
  /** The recorded payloads (fixtures/<agent>/recorded/) that mapped cleanly, of those that loaded. */
  recorded?: { passed: number; total: number };
}

/** The pin importer's output file name (codegen/import-pins.ts). */
const PINS_FILE = 'pins.yaml';

export async function checkAgent(target: CheckTarget, opts: CheckOptions = {}): Promise<AgentReport> {
  // every check, every time: a check never trusts a cache
  const loaded = loadDescriptorFile(target.path, { displayPath: target.display, checkAll: true });
  const report: AgentReport = { target, errors: [], fixtureFiles: [], cases: [], capabilities: [] };
  // the fixtures are checked on their own even when the descriptor does not load: every phase reports
  const fx = loadFixtureDir(target.fixturesDir, target.fixturesLabel, target.agent);
  report.fixtureFiles = fx.files;
  if (!loaded.descriptor) {
    report.errors = sortErrors([...loaded.errors, ...fx.errors]);
    return report;
  }
  const d = (report.descriptor = loaded.descriptor);
  // the load's own parse (one per load): errors are located in it
  const src = loaded.src ?? parseYamlSource(target.display, readFileSync(target.path, 'utf8'));
  const text = src.text;
  const errors: DescriptorError[] = [...fx.errors, ...toFillIn(target.display, text)];
  const rec = await checkRecorded(d, target.fixturesDir, target.fixturesLabel, target.agent);
  if (rec.files.length || rec.errors.length) report.recorded = { passed: rec.passed, total: rec.files.length };
  errors.push(...rec.errors);
  for (const f of fx.files) errors.push(...toFillIn(f.file, f.src.text));
  const missing = !fx.errors.length && !fx.files.some((f) => f.kind === 'events');
  if (missing) {
    errors.push({
      code: 'fixtures-missing',
      file: target.display,
      line: 1,
      col: 1,
      path: '',
      message: `no normalized-event fixtures: add ${target.fixturesLabel}/*.yaml with kind: events cases`,
    });
  }

  const evidence: EvidenceCase[] = [];
  const shims = opts.shims && fx.files.some((f) => f.kind === 'shim') ? new ShimRun(d, opts.shims) : undefined;
  const holdKinds = new Set([...d.hooks.values()].flatMap((h) => h.holds.map((x) => x.kind)));
  try {
    for (const f of fx.files) {
      for (const [i, c] of f.cases.entries()) {
        const ref = `${f.file}#${c.name}`;
        const at = f.src.locate(['cases', i]);
        const fail = (code: DescriptorError['code'], message: string) =>
          errors.push({ code, file: f.file, line: at.line, col: at.col, path: `cases[${i}]`, message: `${c.name}: ${message}` });
        let passed = true;
        if (f.kind === 'events') {
          const out = await runEventCase(d, c, f.capture);
          // an upstream pin known not to reproduce still counts, and must still fail (else the mark is stale)
          const known = typeof c.known === 'string';
          const problems: DescriptorError[] = [];
          for (const failure of out.failures) {
            const rejected = /^(.*?): payload-rejected: rule (.+?) produced (.*)$/s.exec(failure);
            if (rejected) {
              const pos = locatePath(src, rejected[2]);
              problems.push({
                code: 'payload-rejected',
                file: d.file,
                line: pos.line,
                col: pos.col,
                path: rejected[2],
                message: `produced ${rejected[3]} (${ref} ${rejected[1]})`,
              });
            } else problems.push(caseError(f, i, c.name, 'fixture-mismatch', failure));
          }
          out.events.forEach((ev, j) => {
            const env = formatAjvErrors(validateEnvelope(ev));
            if (env) problems.push(caseError(f, i, c.name, 'payload-rejected', `event ${j + 1} (${ev.type}) envelope: ${env}`));
            const pay = formatAjvErrors(validatePayload(ev.type, ev.data));
            if (pay) problems.push(caseError(f, i, c.name, 'payload-rejected', `event ${j + 1} (${ev.type}) payload: ${pay}`));
          });
          // what the engine emits must be a stream a conformant consumer accepts (order, lifecycle, identity)
          for (const v of validateStream(out.events)) {
            const ev = out.events[v.line - 1];
            // the validator names events by id (minted, random): name them by their place in the case
            let message = v.message.replace(/ \(line \d+\)/g, '');
            for (const [id, place] of out.places) message = message.split(id).join(place);
            problems.push(caseError(f, i, c.name, 'invalid-stream', `${ev ? out.places.get(ev.id) : `event ${v.line}`} ${v.rule}: ${message}`));
          }
          passed = problems.length === 0;
          if (known && passed)
            errors.push(
              caseError(
                f,
                i,
                c.name,
                'fixture-mismatch',
                `marked known not reproduced (${c.known}) but it passes now: remove \`known\` from its pin-setup entry`,
              ),
            );
          if (!known) errors.push(...problems);
          evidence.push({ ref, kind: f.kind, passed, events: out.checkedEvents });
        } else if (f.kind === 'decisions') {
          // Run through the daemon's real hold machinery: the exact reply bytes
          // are the evidence for the hold kind and answer shape the case names.
          if (c.hold !== undefined && !holdKinds.has(c.hold)) {
            fail('fixture-mismatch', `holds '${c.hold}' but no hook of ${d.file} holds that kind`);
            passed = false;
          }
          const out = isDeliveryCase(c) ? await runDeliveryCase(d, c) : isCommandCase(c) ? await runCommandCase(d, c) : await runDecisionCase(d, c);
          for (const failure of out.failures) fail('fixture-mismatch', failure);
          passed &&= out.failures.length === 0;
          const delivery = out as { delivered?: string; command?: string };
          evidence.push({
            ref,
            kind: f.kind,
            passed,
            events: out.events,
            hold: c.hold,
            answer: answerShape(c.answer),
            delivered: delivery.delivered,
            command: delivery.command ?? (isCommandCase(c) ? c.command.type : undefined),
          });
        } else if (f.kind === 'shim') {
          // an in-process shim case needs the generated plugin it loads; a script case, a command shim
          const plugin = !!d.shim.plugin;
          if ((c.shim === 'tee') !== (d.surface.kind === 'stdio-tee')) {
            fail(
              'fixture-mismatch',
              c.shim === 'tee'
                ? `a tee case, but ${d.file} is not a stdio-tee surface`
                : `a ${c.shim} case, but ${d.file} is a stdio-tee surface (its shim cases are tee cases)`,
            );
            passed = false;
          } else if ((c.shim === 'plugin') !== plugin) {
            fail(
              'fixture-mismatch',
              c.shim === 'plugin'
                ? `a plugin case, but ${d.file} generates no plugin (shim.plugin)`
                : `a ${c.shim} script case, but ${d.file} is wired by its generated plugin`,
            );
            passed = false;
          }
          // run for real (the generated shim against a daemon in the case's mood), or said not to have run: never passing unrun
          let notRun: string | undefined;
          if (passed && !shims) notRun = SHIMS_RUN_BY_CHECK;
          else if (passed && shims) {
            const out = await shims.run(c as ShimCase);
            notRun = out.notRun;
            for (const failure of out.failures) fail('fixture-mismatch', `${c.shim} shim, daemon ${c.daemon}: ${failure}`);
            passed = out.failures.length === 0;
          }
          if (notRun !== undefined) passed = false;
          evidence.push({
            ref,
            kind: f.kind,
            passed,
            unrun: notRun === SHIMS_RUN_BY_CHECK,
            mood: typeof c.daemon === 'string' ? c.daemon : undefined,
            events: [],
          });
          report.cases.push({ file: f.file, name: c.name, kind: f.kind, passed, notRun });
          continue;
        }
        report.cases.push({ file: f.file, name: c.name, kind: f.kind, passed });
      }
    }
  } finally {
    shims?.close();
  }
  // a hook with a reply shape: its shims proven against the daemon up (each shape), down, hung and erroring (its fail-open reply)
  if (opts.shims) await checkReplyShapes(d, opts.shims, (p) => src.locate(p), errors, report.cases);

  const pinsFile = fx.files.find((f) => f.kind === 'events' && basename(f.file) === PINS_FILE);
  if (pinsFile) {
    // upstream pins only: hand-written cases appended by pin-setup.yaml are fixtures, not pins
    const upstream = new Set(pinsFile.cases.filter((c: any) => String(c?.provenance ?? '').startsWith('aep conformance')).map((c: any) => c.name));
    const cs = report.cases.filter((c) => c.file === pinsFile.file && upstream.has(c.name));
    const known = Object.fromEntries(
      pinsFile.cases.filter((c: any) => upstream.has(c.name) && typeof c.known === 'string').map((c: any) => [c.name, c.known as string]),
    );
    report.pins = {
      file: pinsFile.file,
      passed: cs.filter((c) => c.passed).length,
      total: cs.length,
      known,
      skipped: pinsFile.skipped ?? {},
      notReproducible: pinsFile.notReproducible ?? {},
    };
  }

  const refs = new Set(evidence.map((e) => e.ref));
  const resolveRef = (ref: string) => {
    const hash = ref.indexOf('#');
    if (hash < 0) return undefined;
    const file = ref.slice(0, hash);
    const full = file.includes('/') ? ref : `${target.fixturesLabel}/${ref}`;
    return refs.has(full) ? full : undefined;
  };
  const judged = judgeCapabilities(d, evidence, (p) => src.locate(p), resolveRef);
  // no fixtures (or unreadable ones) already says why nothing is proven: one line, not one per claim
  errors.push(
    ...(missing || fx.errors.length
      ? judged.errors.filter((e) => e.code !== 'capability-without-evidence' && !(e.code === 'unknown-reference' && e.path.includes('evidence')))
      : judged.errors),
  );
  report.capabilities = judged.rows;
  report.errors = sortErrors(errors, d.file); // the descriptor's own lines first: the order an author fills things in
  return report;
}

/** The placeholders `hookmap new` wrote and nobody has replaced yet: in line order, what each one asks. */
function toFillIn(file: string, text: string): DescriptorError[] {
  return placeholders(text).map((p) => ({
    code: 'to-fill-in' as const,
    file,
    line: p.line,
    col: p.col,
    path: '',
    message: `${p.what || 'fill this in'} (written by hookmap new: replace it with this agent's own)`,
  }));
}

function caseError(f: LoadedFixtureFile, i: number, name: string, code: DescriptorError['code'], message: string): DescriptorError {
  const at = f.src.locate(['cases', i]);
  return { code, file: f.file, line: at.line, col: at.col, path: `cases[${i}]`, message: `${name}: ${message}` };
}

/** Position of a dotted descriptor path (as the mapper names rules), or of its nearest located ancestor. */
function locatePath(src: YamlSource, path: string): { line: number; col: number } {
  for (let p = path; p; p = p.replace(/(\.[^.[\]]*|\[\d+\])$/, '')) {
    const hit = src.positions.get(p);
    if (hit) return hit;
    if (!/(\.[^.[\]]*|\[\d+\])$/.test(p)) break;
  }
  return { line: 1, col: 1 };
}
