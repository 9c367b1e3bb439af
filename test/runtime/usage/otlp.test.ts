// The usage a transcript read publishes leaves through the OTLP bridge as
// OpenTelemetry GenAI attributes (logs signal: gen_ai.* hoisted verbatim),
// at the default metadata ceiling.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { toLogRecord } from '../../../engine/person/bridge/projection/otlp-logs.ts';
import { Daemon } from '../../../engine/runtime/daemon/daemon.ts';
import { loadVendor } from '../../../engine/core/descriptor/registry.ts';
import { readLogs, tempDir } from '../daemon/helpers.ts';

describe('usage over OTLP', () => {
  it('x.hookmap.usage.reported becomes a log record whose attributes are the GenAI usage attributes', async () => {
    const t = tempDir('hookmap-usage-otlp-');
    try {
      const dir = join(t.dir, 'home', '.codex', 'sessions');
      mkdirSync(dir, { recursive: true });
      const file = join(dir, 'rollout.jsonl');
      const last = {
        input_tokens: 300,
        cached_input_tokens: 100,
        cache_write_input_tokens: 0,
        output_tokens: 40,
        reasoning_output_tokens: 8,
        total_tokens: 340,
      };
      writeFileSync(
        file,
        [
          { type: 'turn_context', payload: { model: 'gpt-5' } },
          { type: 'event_msg', payload: { type: 'token_count', info: { total_token_usage: last, last_token_usage: last } } },
        ]
          .map((l) => `${JSON.stringify(l)}\n`)
          .join(''),
      );
      const d = Daemon.open({ descriptor: loadVendor('codex'), logDir: join(t.dir, 'logs'), userHome: join(t.dir, 'home') });
      await d.handle({ hook: 'Stop', payload: { session_id: 's', turn_id: 't', hook_event_name: 'Stop', transcript_path: file } });
      await d.usage!.idle();
      await d.close();
      const ev = readLogs(join(t.dir, 'logs')).find((e) => e.type === 'x.hookmap.usage.reported')!;
      const rec = toLogRecord(ev as never);
      expect(rec.eventName).toMatch(/x\.hookmap\.usage\.reported$/);
      expect(rec.attributes).toMatchObject({
        'gen_ai.response.model': 'gpt-5',
        'gen_ai.usage.input_tokens': 300,
        'gen_ai.usage.output_tokens': 40,
        'gen_ai.usage.cache_read.input_tokens': 100,
        'gen_ai.usage.reasoning.output_tokens': 8,
      });
      expect((rec.body as { cost: { currency: string; total: number } }).cost).toMatchObject({ currency: 'USD' });
    } finally {
      t.done();
    }
  });
});
