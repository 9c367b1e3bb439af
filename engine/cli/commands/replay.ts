// `hookmap replay <file>`: re-emit a captured session into a relay as a NEW
// session (engine/person/bridge/replay.ts: fresh ids, one epoch, contiguous seq,
// recorded pacing scaled and capped, causes rewritten, provenance in
// aepreplay* attributes, commands never replayed), for demos, UI tests and
// load. Posts NDJSON batches to the relay's /events.
import { ArgError, parseArgs } from '../args.ts';
import { authHeaders } from '../../runtime/relay/client.ts';
import { formatAjvErrors, validateEnvelope } from '../../core/aep/schemas.ts';
import { readEventFile } from '../../person/bridge/file-source.ts';
import type { AepEvent } from '../../person/bridge/projection/common.ts';
import { planReplay } from '../../person/bridge/replay.ts';
import { ENDPOINT_FLAGS, endpoint } from './command-common.ts';
import { sessionsOf } from './held.ts';
import { AmbiguousId, pickSession } from './id-prefix.ts';

const SPEC = {
  ...ENDPOINT_FLAGS,
  session: { type: 'string', multiple: true },
  speed: { type: 'string' },
  'max-gap': { type: 'string' },
  'dry-run': { type: 'boolean' },
  json: { type: 'boolean' },
} as const;

export async function run(argv: string[]): Promise<number> {
  let flags, positionals, speed: number, maxGap: number;
  try {
    ({ flags, positionals } = parseArgs(argv, SPEC));
    if (positionals.length !== 1) throw new ArgError('one file: hookmap replay <file>');
    speed = flags.speed === undefined ? 1 : Number(flags.speed);
    if (!Number.isFinite(speed) || speed < 0) throw new ArgError('--speed must be a number >= 0');
    maxGap = flags['max-gap'] === undefined ? 2000 : Number(flags['max-gap']);
    if (!Number.isFinite(maxGap) || maxGap < 0) throw new ArgError('--max-gap must be a number >= 0');
  } catch (e) {
    if (e instanceof ArgError) {
      process.stderr.write(`hookmap replay: ${e.message}\n`);
      return 2;
    }
    throw e;
  }
  const file = positionals[0];
  let events: AepEvent[] = [];
  let problems = 0;
  try {
    for await (const ev of readEventFile(file, (p) => (problems++, process.stderr.write(`${file}:${p.line}: ${p.code}: ${p.detail}\n`)))) events.push(ev);
    // --session: any unique prefix of a recorded session's id
    const known = sessionsOf(events);
    const only = new Set(((flags.session as string[] | undefined) ?? []).map((s) => pickSession(s, known)));
    if (only.size) events = events.filter((ev) => ev.session !== undefined && only.has(ev.session));
  } catch (e) {
    process.stderr.write(`hookmap replay: ${(e as Error).message}\n`);
    return e instanceof AmbiguousId ? e.exit : 2;
  }
  const plan = planReplay(events, { speed, maxGapMs: maxGap });
  const say = (l: string) => process.stderr.write(`hookmap replay: ${l}\n`);
  for (const g of plan.groups) say(`${g.from.session} → ${g.session}: ${g.events.length} event(s)`);
  const sk = plan.skipped;
  if (sk.commands || sk.agentScoped || sk.unsequenced)
    say(`skipped: ${sk.commands} command(s), ${sk.agentScoped} agent-scoped, ${sk.unsequenced} unsequenced event(s)`);
  for (const { ev } of plan.schedule) {
    const errs = validateEnvelope(ev);
    if (errs.length) {
      say(`replayed event ${ev.id} (of ${ev.aepreplayof}) would be invalid: ${formatAjvErrors(errs)}`);
      return 1;
    }
  }
  if (flags['dry-run']) {
    for (const { at, ev } of plan.schedule)
      process.stdout.write(
        flags.json ? `${JSON.stringify(ev)}\n` : `+${(at / 1000).toFixed(3)}s ${ev.session}#${ev.seq} ${ev.type}${ev.subject ? ` ${ev.subject}` : ''}\n`,
      );
    return problems ? 1 : 0;
  }
  const ep = endpoint(flags);
  const start = Date.now();
  let sent = 0;
  for (let i = 0; i < plan.schedule.length;) {
    const wait = start + plan.schedule[i].at - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const due: AepEvent[] = [];
    while (i < plan.schedule.length && start + plan.schedule[i].at <= Date.now() && due.length < 500) due.push(plan.schedule[i++].ev);
    for (const ev of due) ev.time = new Date().toISOString(); // restamped when it is actually emitted
    try {
      const res = await fetch(`${ep.url.replace(/\/+$/, '')}/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-ndjson', 'aep-version': '0.1', ...authHeaders(ep.token) },
        body: due.map((e) => JSON.stringify(e)).join('\n'),
      });
      if (!res.ok) {
        say(`relay refused a batch of ${due.length}: ${res.status} ${await res.text()}`);
        return 1;
      }
    } catch (e) {
      say(`relay: ${(e as Error).message}`);
      return 1;
    }
    sent += due.length;
  }
  if (flags.json)
    process.stdout.write(
      `${JSON.stringify({ replay: plan.replayId, sessions: plan.groups.map((g) => ({ from: g.from.session, to: g.session, events: g.events.length })) })}\n`,
    );
  else for (const g of plan.groups) process.stdout.write(`${g.session}\n`);
  say(`${sent} event(s) emitted in ${((Date.now() - start) / 1000).toFixed(1)} s`);
  return problems ? 1 : 0;
}
