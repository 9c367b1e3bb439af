// The AEP validators are compiled before the first event needs them
// (engine/core/aep/schemas.ts warmValidators): compiling was most of a cold
// daemon's first hook (bench/first-hook). `up` starts the warm-up once
// listening.
import { describe, expect, it } from 'vitest';
import { REGISTRY_BY_TYPE, validateEnvelope, validatePayload, validatorsCompiled, warmValidators } from '../../../engine/core/aep/schemas.ts';
import { upStack } from '../../helpers/up-stack.ts';

describe('warmValidators', () => {
  it('`up` compiles the envelope and every registered type once listening, and validation is unchanged after', async () => {
    expect(validatorsCompiled()).toEqual({ envelope: false, payloadTypes: 0 });
    const s = await upStack({ agents: [{ descriptor: 'codex' }] });
    try {
      await expect.poll(() => validatorsCompiled(), { timeout: 20_000 }).toEqual({ envelope: true, payloadTypes: REGISTRY_BY_TYPE.size });
    } finally {
      await s.done();
    }
    // idempotent, and the compiled validators still judge: a good payload passes, a bad one says why
    await warmValidators();
    expect(validatorsCompiled().payloadTypes).toBe(REGISTRY_BY_TYPE.size);
    expect(validatePayload('session.started', {})).toEqual([]);
    expect(validatePayload('attention.requested', { kind: 42 }).length).toBeGreaterThan(0);
    expect(validateEnvelope({ type: 'session.started' }).length).toBeGreaterThan(0);
  }, 30_000);
});
