// `hookmap record`: the daemon's replies unchanged, every raw payload saved
// redacted as a `kind: recorded` fixture candidate with the agent's version.
import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { loadVendor } from '../../engine/descriptor/registry.ts';
import { startRecord, versionOf } from '../../engine/record/recorder.ts';

const dir = mkdtempSync(join(tmpdir(), 'hookmap-record-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('hookmap record', () => {
  it('answers like serve and saves each payload, redacted, with the agent version', async () => {
    const out = join(dir, 'cursor');
    const rec = await startRecord({ descriptor: loadVendor('cursor'), port: 0, out, logDir: join(dir, 'logs') });
    try {
      const payload = { hook_event_name: 'beforeSubmitPrompt', conversation_id: 'conv-1', generation_id: 'gen-1', workspace_roots: ['/p'], cursor_version: '2.0.77', prompt: 'deploy with key sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789ABCD' };
      const res = await fetch(`${rec.url}/hooks/cursor`, { method: 'POST', body: JSON.stringify(payload) });
      expect(res.status).toBe(200);
      expect(await res.text()).toBe('{}');
      const res2 = await fetch(`${rec.url}/hooks/cursor/stop`, { method: 'POST', body: 'not json' });
      expect(res2.status).toBe(200);
      expect(rec.files).toHaveLength(2);
      const doc = parse(readFileSync(rec.files[0], 'utf8'));
      expect(doc).toMatchObject({ kind: 'recorded', agent: 'cursor', hook: 'beforeSubmitPrompt', agent_version: '2.0.77' });
      expect(doc.payload.conversation_id).toBe('conv-1');
      expect(doc.payload.prompt).not.toContain('sk-ant-api03');
      const raw = parse(readFileSync(rec.files[1], 'utf8'));
      expect(raw).toMatchObject({ kind: 'recorded', hook: 'stop', payload: 'not json' });
    } finally {
      await rec.close();
    }
  });

  it('finds the version a payload states about its agent', () => {
    expect(versionOf({ kind: 'bus', event: { properties: { info: { version: '1.17.18' } } } })).toBe('1.17.18');
    expect(versionOf({ cursor_version: '2.0.77' })).toBe('2.0.77');
    expect(versionOf({ a: 1 })).toBeUndefined();
  });
});
