// Live: an agent that waits out a rate limit by itself (issue 44,
// docs/usage.md "Rate limits"). The real OpenCode and Kilo Code (`run`, one
// shot) against the scripted Chat Completions API, which refuses the first
// main-loop request 429 in OpenAI's documented shape with retry-after 2.
// The agent says session.status {type: retry, message, next} and tries again
// at `next` by itself. hookmap: the descriptor's limit sign makes one
// x.hookmap.limit.reached {agent_retries: true, resets_at: next}; the fold
// holds the session paused until the agent's next event and then lets go;
// `up` (with launch.after_limit on) starts nothing, since nobody needs to
// continue the session; the turn finishes with the model's answer. pi (`-p`)
// retries in a new agent loop once its provider client gave up (two retries
// of its own): the failed loop's agent_end is the sign, and the next loop
// ends the pause.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StoryFold } from '../../engine/core/kernel/fold/fold.ts';
import { pauseOf, pauseText } from '../../engine/core/kernel/limits.ts';
import { resolveAgent } from './agents.ts';
import { run, sleep, until } from './harness.ts';
import { Live } from './live.ts';
import { served } from './serve-session.ts';

const AGENTS = {
  opencode: {
    dir: 'opencode',
    file: 'opencode.json',
    serve: 'opencode',
    quiet: { OPENCODE_DISABLE_MODELS_FETCH: '1', OPENCODE_DISABLE_AUTOUPDATE: '1', OPENCODE_DISABLE_SHARE: '1', OPENCODE_DISABLE_LSP_DOWNLOAD: '1' },
  },
  kilocode: {
    dir: 'kilo',
    file: 'kilo.json',
    serve: 'kilo',
    quiet: {
      KILO_DISABLE_MODELS_FETCH: '1',
      KILO_DISABLE_AUTOUPDATE: '1',
      KILO_DISABLE_SHARE: '1',
      KILO_DISABLE_LSP_DOWNLOAD: '1',
      KILO_TELEMETRY_DISABLED: '1',
    },
  },
} as const;
const RETRY_AFTER_S = 2;

for (const [ID, a] of Object.entries(AGENTS)) {
  const skip = Live.skipReason(ID);
  if (skip) console.log(`[live] limits-retry (${ID}): SKIPPED: ${skip}`);
  const { agent } = resolveAgent(ID);

  describe.skipIf(!!skip)(`a rate limit the agent waits out: ${agent.pkg}@${agent.version} live`, () => {
    const live = new Live(ID, (cmd) => ({ tool: 'bash', args: { command: cmd, description: `run ${cmd.split(' ')[0]}` } }));
    const srv = served(live, a.serve, a.quiet);

    beforeAll(async () => {
      await live.start(30_000);
      live.agentEnv = { ...live.agentEnv, ...a.quiet };
      const dir = join(live.s.home, '.config', a.dir);
      mkdirSync(dir, { recursive: true });
      const provider = {
        npm: '@ai-sdk/openai-compatible',
        name: 'Scripted',
        options: { baseURL: `${live.model.url}/v1`, apiKey: 'sk-live-test-not-a-key' },
        models: { scripted: { name: 'scripted', tool_call: true } },
      };
      const config = { autoupdate: false, share: 'disabled', provider: { scripted: provider }, model: 'scripted/scripted', small_model: 'scripted/scripted' };
      writeFileSync(join(dir, a.file), JSON.stringify(config));
      await live.setup(['--user']);
      // continuing sessions after a limit is on: an agent that retries by itself must not be started again
      const file = join(live.s.root, 'up-limits.yaml');
      writeFileSync(file, 'launch:\n  after_limit: { wait_ms: 500 }\n');
      await live.restartUp(30_000, { args: ['--config', file] });
    }, 120_000);

    afterAll(async () => {
      await live.close();
    }, 30_000);

    it('a 429: the session is paused until the retry the agent makes by itself, then goes on; up continues nothing', async () => {
      live.model.play({ name: 'limited', steps: [{ say: 'Answered after the limit.' }] });
      live.model.rateLimit(1, RETRY_AFTER_S);
      const h0 = live.tap.hooks.length;
      const r0 = live.model.requests.length;
      const run = await srv.oneShot('Say hello.', live.agentEnv, live.s.project, 120_000);
      expect(run.code, run.stderr.slice(-2000)).toBe(0);
      expect(run.stdout).toContain('Answered after the limit.');

      const refused = live.model.requests.slice(r0).find((q) => q.limited);
      expect(refused, 'the model refused a request').toBeDefined();
      const retry = live.tap.hooks.slice(h0).find((h) => h.body?.event?.properties?.status?.type === 'retry')?.body.event.properties;
      expect(retry, 'the agent said it retries').toBeDefined();
      console.log(`[live] limits-retry ${ID}: ${JSON.stringify(retry?.status)}`);
      expect(retry.status.next - refused!.at).toBeGreaterThanOrEqual(RETRY_AFTER_S * 1000 - 100); // the retry-after honoured
      const again = live.model.requests.slice(r0).find((q) => q.at > refused!.at && q.step !== undefined);
      expect(again!.at).toBeGreaterThanOrEqual(retry.status.next - 50); // and kept: it tried again at `next`

      const session = retry.sessionID as string;
      const of = () => live.stream.events.filter((e) => e.session === session);
      const sign = await until('the limit sign', () => of().find((e) => e.type === 'x.hookmap.limit.reached'), 15_000);
      expect(sign.data).toEqual({ kind: 'rate_limit', hook: 'session.status', agent_retries: true, resets_at: new Date(retry.status.next).toISOString() });
      expect(sign.capture).toBe('metadata');
      expect(pauseText(pauseOf(sign)!, () => 'HH:MM')).toBe('rate limit: retrying by itself at HH:MM');

      // the fold: paused right after the sign, and no longer once the agent went on
      const after = await until('the agent went on', () => {
        const all = of();
        const next = all.slice(all.indexOf(sign) + 1).find((e) => !e.type.startsWith('x.hookmap.'));
        return next ? all : undefined;
      });
      const story = (evs: any[]) => [...new StoryFold().addAll(evs).sessions.values()][0];
      expect(story(after.slice(0, after.indexOf(sign) + 1)).paused?.id).toBe(sign.id);
      expect(story(after).paused, after.map((e) => `${e.type} ${e.subject ?? ''}`).join(', ')).toBeUndefined();

      await sleep(1500); // past after_limit's wait: nothing was launched for it
      expect(live.stream.events.filter((e) => e.type === 'x.hookmap.limit.resumed' || e.type === 'x.hookmap.launch.started')).toEqual([]);
      expect(live.model.requests.slice(r0).filter((q) => q.limited)).toHaveLength(1);
    }, 200_000);
  });
}

const PI = 'pi';
const piSkip = Live.skipReason(PI);
if (piSkip) console.log(`[live] limits-retry (${PI}): SKIPPED: ${piSkip}`);

describe.skipIf(!!piSkip)(`a rate limit the agent waits out: ${resolveAgent(PI).agent.pkg}@${resolveAgent(PI).agent.version} live`, () => {
  const live = new Live(PI, (cmd) => ({ tool: 'bash', args: { command: cmd } }));

  beforeAll(async () => {
    await live.start(30_000);
    const dir = join(live.s.home, '.pi', 'agent');
    mkdirSync(dir, { recursive: true });
    const provider = { baseUrl: `${live.model.url}/v1`, api: 'openai-completions', apiKey: 'sk-live-test-not-a-key', models: [{ id: 'scripted' }] };
    const compat = { supportsDeveloperRole: false, supportsReasoningEffort: false };
    writeFileSync(join(dir, 'models.json'), JSON.stringify({ providers: { scripted: { ...provider, compat } } }));
    await live.setup(['--user']);
    const file = join(live.s.root, 'up-limits.yaml');
    writeFileSync(file, 'launch:\n  after_limit: { wait_ms: 500 }\n');
    await live.restartUp(30_000, { args: ['--config', file] });
  }, 120_000);

  afterAll(async () => {
    await live.close();
  }, 30_000);

  it("a 429: the failed loop pauses the session, pi's next loop ends the pause and answers; up continues nothing", async () => {
    live.model.play({ name: 'limited', steps: [{ say: 'Answered after the limit.' }] });
    live.model.rateLimit(3, 1); // pi's provider client retries a 429 twice by itself (retry-after honoured): the third fails the loop
    const r0 = live.model.requests.length;
    const argv = ['-p', '--offline', '--provider', 'scripted', '--model', 'scripted', 'Say hello.'];
    const r = await run(live.bin, argv, { cwd: live.s.project, timeoutMs: 90_000, env: live.agentEnv });
    expect(r.code, r.stderr.slice(-2000)).toBe(0);
    expect(r.stdout).toContain('Answered after the limit.');
    expect(live.model.requests.slice(r0).filter((q) => q.limited)).toHaveLength(3);
    const sign = await until('the limit sign', () => live.stream.events.find((e) => e.type === 'x.hookmap.limit.reached'), 15_000).catch((e) => {
      const ends = live.tap.hooks.filter((h) => h.body?.event?.type === 'agent_end').map((h) => JSON.stringify(h.body.event).slice(0, 600));
      throw new Error(`${e.message}\n${live.stream.events.map((x) => x.type).join(', ')}\n${ends.join('\n')}\n${live.up.stderr().slice(-1500)}`);
    });
    expect(sign.data).toEqual({ kind: 'rate_limit', hook: 'agent_end', agent_retries: true });
    const of = () => live.stream.events.filter((e) => e.session === sign.session);
    const all = await until('the next loop', () => (of().some((e) => e.type === 'run.finished') ? of() : undefined), 30_000);
    const types = all.map((e) => e.type);
    expect(types.indexOf('run.failed')).toBeLessThan(types.indexOf('x.hookmap.limit.reached'));
    expect(types.lastIndexOf('run.started')).toBeGreaterThan(types.indexOf('x.hookmap.limit.reached')); // pi's own retry, a new loop
    const story = (evs: any[]) => [...new StoryFold().addAll(evs).sessions.values()][0];
    expect(story(all.slice(0, all.indexOf(sign) + 1)).paused?.id).toBe(sign.id);
    expect(story(all).paused).toBeUndefined();
    await sleep(1000); // past after_limit's wait
    expect(live.stream.events.filter((e) => e.type === 'x.hookmap.limit.resumed' || e.type === 'x.hookmap.launch.started')).toEqual([]);
  }, 180_000);
});
