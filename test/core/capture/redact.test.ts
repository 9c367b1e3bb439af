// The AEP-0003 §9.4 pipeline, rule by rule, in order.
import { afterEach, describe, expect, it } from 'vitest';
import { Redactor } from '../../../engine/core/capture/redact.ts';
import { resolveConfig } from '../../../engine/cli/config.ts';

const saved = { ...process.env };
afterEach(() => {
  process.env = { ...saved };
});

describe('redaction pipeline', () => {
  const r = new Redactor({ home: '/home/alice' });
  it.each([
    ['PEM block', '-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----', '[REDACTED:secret]'],
    ['AWS key id', 'key AKIAABCDEFGHIJKLMNOP here', 'key [REDACTED:secret] here'],
    ['Bearer token', 'Authorization: Bearer abc.def-ghi', 'Authorization: Bearer [REDACTED:secret]'],
    ['keyed secret', 'password=hunter2 api_key: sk123', 'password=[REDACTED:secret] api_key: [REDACTED:secret]'],
    ['JWT', 'tok eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig_part end', 'tok [REDACTED:secret] end'],
    ['home path', 'cd /home/alice/proj', 'cd ~/proj'],
    ['email', 'mail bob@example.com', 'mail [REDACTED:pii]'],
    ['phone', 'call +1 415-555-1234', 'call [REDACTED:pii]'],
    ['benign text', 'rm -rf build (clean build dir)', 'rm -rf build (clean build dir)'],
  ])('%s', (_name, input, want) => {
    expect(r.text(input)).toBe(want);
  });

  it('scrubs the values of configured names (descriptor and operator), read from the environment it is handed', () => {
    const env = { MY_DB_PASS: 'correct-horse-battery', OTHER_TOKEN_VALUE: 'zz-top-secret-zz' };
    // the operator's HOOKMAP_SECRET_NAMES arrives resolved (engine/cli/config.ts), beside the descriptor's names
    const operator = resolveConfig({ HOOKMAP_SECRET_NAMES: 'OTHER_TOKEN_VALUE' }).redaction;
    const c = new Redactor({ secretNames: ['MY_DB_PASS', ...operator.secretNames], env });
    expect(c.text('connect with correct-horse-battery and zz-top-secret-zz')).toBe('connect with [REDACTED:secret] and [REDACTED:secret]');
    // nothing is read from process.env below the CLI edge
    process.env.STRAY_SECRET = 'stray-value-1234';
    expect(new Redactor({ secretNames: ['STRAY_SECRET'] }).text('stray-value-1234')).toBe('stray-value-1234');
    delete process.env.STRAY_SECRET;
  });

  it('PII redaction is on by default and operator-disableable (HOOKMAP_REDACT_PII=off)', () => {
    expect(new Redactor().text('bob@example.com')).not.toBe('bob@example.com');
    expect(new Redactor({ pii: resolveConfig({ HOOKMAP_REDACT_PII: 'off' }).redaction.pii }).text('bob@example.com')).toBe('bob@example.com');
  });

  it('redacts every string of a structure, keeping keys', () => {
    expect(r.deep({ cmd: 'cat /home/alice/.env', n: 3, list: ['token=abc'] })).toEqual({ cmd: 'cat ~/.env', n: 3, list: ['token=[REDACTED:secret]'] });
  });
});
