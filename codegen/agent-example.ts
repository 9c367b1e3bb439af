// The worked example on each agent's page: one fixture case executed when
// the page is generated (so the page shows what the engine does today, and
// `hookmap docs --check` notices when that changes): the agent's payload,
// the AEP events it becomes, and the exact reply bytes the agent gets. A
// decision case is preferred (it shows an answer coming back); else the
// first hand-written event case; else the first pin. Minted ids, times and
// positions are left out or named by the event they belong to.
import type { AgentReport } from '../engine/tools/check/check-agent.ts';
import type { Descriptor } from '../engine/core/descriptor/types.ts';
import { isCommandCase, runDecisionCase, type DecisionCase } from '../engine/tools/cases/run-decisions.ts';
import type { AepEvent } from '../engine/core/map/envelope.ts';
import { Mapper } from '../engine/core/map/mapper.ts';
import type { LoadedFixtureFile } from '../engine/tools/cases/load.ts';

interface Pick {
  file: LoadedFixtureFile;
  c: any;
}

function choose(r: AgentReport): Pick | undefined {
  const passed = (f: LoadedFixtureFile, c: any) => r.cases.some((x) => x.file === f.file && x.name === c.name && x.passed);
  const from = (kind: string, pins: boolean) => {
    for (const f of r.fixtureFiles) {
      if (f.kind !== kind || f.file.endsWith('/pins.yaml') !== pins) continue;
      // a decisions file also holds command, delivery and policy cases: only a held request answered is an example of one
      const shows = (x: any) => (kind === 'events' ? x.steps?.some((s: any) => s.expect?.length) : x.input !== undefined && x.hold !== undefined);
      const c = f.cases.find((x: any) => passed(f, x) && !isCommandCase(x) && shows(x));
      if (c) return { file: f, c };
    }
    return undefined;
  };
  return from('decisions', false) ?? from('events', false) ?? from('events', true);
}

/** One event as a reader needs it: type, subject, data; ids named by their event. */
function render(events: AepEvent[], names = new Map<string, string>()): string {
  for (const e of events) names.set(e.id, `<id of event ${names.size + 1}, ${e.type}>`);
  const lines = events.map((e) => {
    const shown: Record<string, unknown> = { type: e.type };
    if (e.subject !== undefined) shown.subject = e.subject;
    if (e.cause !== undefined) shown.cause = e.cause;
    shown.data = e.data ?? {};
    let text = JSON.stringify(shown);
    for (const [id, name] of names) text = text.split(id).join(name);
    // what is minted, measured or clock-dependent (a command's id, a latency, a deadline) would make the page drift
    return text
      .replace(/run-[0-9A-Z]{26}/g, '<minted run id>')
      .replace(/\b[0-9A-HJKMNP-TV-Z]{26}\b/g, '<id of the answer command>')
      .replace(/"latency_ms":\d+/g, '"latency_ms":"<measured>"')
      .replace(/"expires_at":"[^"]*"/g, '"expires_at":"<now + the hold timeout>"');
  });
  return lines.length ? lines.join('\n') : '(no events)';
}

const fence = (lang: string, text: string) => `\`\`\`${lang}\n${text}\n\`\`\``;
const bytes = (s: string | undefined) => (s === undefined || s === '' ? '(empty: the neutral reply)' : s);

async function decisionExample(d: Descriptor, f: LoadedFixtureFile, c: DecisionCase): Promise<string> {
  const out = await runDecisionCase(d, c);
  // the hook as the engine identifies it (a plugin's event names it inside the payload)
  const hook = c.hook ?? (await new Mapper(d, { config: c.config }).map(undefined, c.input).catch(() => undefined))?.hook ?? 'its hook';
  return [
    `From [${f.file.slice(f.file.lastIndexOf('/') + 1)}#${c.name}](../${f.file}), executed when this page was generated.`,
    `**1. ${d.name} fires \`${hook}\`** with this payload:`,
    fence('json', JSON.stringify(c.input, null, 2)),
    `**2. hookmap holds it (${c.hold}) and emits**, then a human answers \`${JSON.stringify(c.answer)}\` over the relay:`,
    fence('jsonl', render(out.events)),
    `**3. ${d.name} receives** (exit ${c.exit ?? 0}):`,
    fence('json', bytes(out.reply)),
  ].join('\n\n');
}

async function eventsExample(d: Descriptor, f: LoadedFixtureFile, c: any): Promise<string> {
  const m = new Mapper(d, { config: c.config });
  const parts = [`From [${f.file.slice(f.file.lastIndexOf('/') + 1)}#${c.name}](../${f.file}), executed when this page was generated.`];
  const names = new Map<string, string>();
  for (const step of c.steps ?? []) {
    const r = await m.map(step.hook, step.input, step.surface);
    if (!step.expect) {
      render(r.events, names);
      continue;
    }
    parts.push(`**${d.name} fires \`${r.hook}\`** with this payload:`, fence('json', JSON.stringify(step.input, null, 2)));
    parts.push('**hookmap emits:**', fence('jsonl', render(r.events, names)));
    parts.push(`**${d.name} receives** (exit ${r.exitCode}):`, fence('json', bytes(r.reply)));
  }
  return parts.join('\n\n');
}

export async function workedExample(r: AgentReport): Promise<string> {
  const d = r.descriptor!;
  const pick = choose(r);
  if (!pick) return '## Worked example\n\nNo passing fixture case to show.';
  const body = pick.file.kind === 'decisions' ? await decisionExample(d, pick.file, pick.c) : await eventsExample(d, pick.file, pick.c);
  return `## Worked example\n\n${body}`;
}
