// `hookmap record codex-otel`: a recording daemon for an OTel channel takes
// OTLP/HTTP exports like the receiver in `up` (the same answers) and saves
// each flattened LogRecord as one candidate, strictly redacted, named by its
// event.name: what `hookmap record promote codex-otel` copies into fixtures.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadVendor } from '../../../engine/core/descriptor/registry.ts';
import { startRecord } from '../../../engine/tools/record/recorder.ts';

const dir = mkdtempSync(join(tmpdir(), 'hookmap-record-otlp-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('hookmap record for an otlp-receiver descriptor', () => {
  it('answers OTLP/HTTP and saves one redacted candidate per LogRecord', async () => {
    const rec = await startRecord({ descriptor: loadVendor('codex-otel'), port: 0, out: join(dir, 'out'), logDir: join(dir, 'logs') });
    try {
      // the real export of Codex 0.169.0 (protobuf, as its exporter sent it)
      const body = readFileSync(join(import.meta.dirname, 'fixtures', 'codex-0.169.0-logs.pb'));
      const res = await fetch(`${rec.url}/otlp/codex-otel/v1/logs`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-protobuf' },
        body: new Uint8Array(body),
      });
      expect(res.status).toBe(200);
      expect(rec.files).toHaveLength(5);
      const docs = rec.files.map((f) => parse(readFileSync(f, 'utf8')));
      expect(docs.map((d) => d.hook)).toEqual([
        'codex.conversation_starts',
        'codex.startup_phase',
        'codex.startup_phase',
        'codex.user_prompt',
        'codex.api_request',
      ]);
      expect(docs[0]).toMatchObject({
        kind: 'recorded',
        agent: 'codex-otel',
        agent_version: '0.169.0',
        payload: { attributes: { 'event.name': 'codex.conversation_starts' } },
      });
      // what is wrong is still OTLP's answer
      const bad = await fetch(`${rec.url}/otlp/codex-otel/v1/logs`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'x' });
      expect(bad.status).toBe(415);
      expect(rec.files).toHaveLength(5);
    } finally {
      await rec.close();
    }
  });
});
