// Issue 29, live: what every agent's NEXT TURN test checks once its session
// sits idle after a turn with the carrier's waiter parked. Nothing asks the
// model for 3 s; `hookmap steer` answers delivered by the next-turn carrier;
// the first model request of the new turn carries the text; that turn ends;
// exactly one delivery (carrier next-turn) and two runs in all (one message,
// one turn), and the woken turn's end parks the next waiter.
import { expect } from 'vitest';
import { command, sleep, until } from './harness.ts';
import type { Live } from './live.ts';

/** A main-loop request's messages as text (the Chat Completions and Messages shapes). */
export const requestText = (r: { body: any }) => JSON.stringify(r.body?.messages ?? []);

export interface SteerIdle {
  agent: string;
  session: string;
  text: string;
  /** The session's events on the stream. */
  mine: () => any[];
  /** More to print when the steer fails (the agent's own output). */
  diag?: () => string;
}

/** The daemon's lines about steering and the carrier (printed, and beside a failure). */
export const carrierLog = (live: Live) =>
  live.up
    .stderr()
    .split('\n')
    .filter((l) => /next-turn|instruct|woke/.test(l))
    .slice(-20)
    .join('\n');

export async function steerIdle(live: Live, o: SteerIdle): Promise<{ tSteer: number; tModel: number }> {
  const main = () => live.model.requests.filter((r) => r.step !== undefined);
  const parked = `next-turn waiter of session ${o.session} waiting`;
  await until('the background waiter', () => live.up.stderr().includes(parked), 30_000);
  const afterTurn = main().length;
  await sleep(3_000); // idle: nothing asks the model
  expect(main().length).toBe(afterTurn);
  const t0 = Date.now();
  const steered = await command(live.up.url, ['steer', o.session, o.text, '--wait', '60'], live.s, 90_000);
  const tSteer = Date.now() - t0;
  expect(steered.code, `${steered.stdout}${steered.stderr}\nup: ${carrierLog(live)}\n${o.diag?.() ?? ''}`).toBe(0);
  expect(steered.stdout).toMatch(new RegExp(`outcome: x\\.${o.agent}\\.instruction\\.delivered \\(by next-turn\\)`));
  const woken = await until('the woken turn asks the model', () => main().slice(afterTurn)[0], 60_000);
  const tModel = Date.now() - t0;
  expect(requestText(woken)).toContain(o.text); // the first request of the new turn carries the text
  const at = requestText(woken).indexOf(o.text);
  console.log(
    `[live] ${o.agent} next-turn: steer answered in ${tSteer} ms, the model asked ${tModel} ms after the steer; ` +
      `the woken request carries: ${requestText(woken).slice(Math.max(0, at - 200), at + o.text.length + 20)}\nthe daemon said:\n${carrierLog(live)}`,
  );
  await until('the woken turn ends', () => o.mine().filter((e) => e.type === 'run.finished').length === 2, 60_000);
  const delivered = o.mine().filter((e) => e.type === `x.${o.agent}.instruction.delivered`);
  expect(delivered).toHaveLength(1);
  expect(delivered[0].data).toMatchObject({ carrier: 'next-turn' });
  await sleep(3_000); // one message, one turn; the woken turn's end parked the next waiter
  expect(o.mine().filter((e) => e.type === 'run.started')).toHaveLength(2);
  expect(live.up.stderr().split(parked).length - 1).toBeGreaterThanOrEqual(2);
  return { tSteer, tModel };
}
