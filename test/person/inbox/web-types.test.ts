// The web inbox's sources (web/, DOM + Preact JSX) typecheck on their own
// tsconfig: the Vite build strips types without checking them, and the root
// tsconfig is Node-only.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../../../engine/core/descriptor/registry.ts';

describe('web/ typechecks', () => {
  it('tsc -p web/tsconfig.json reports nothing', () => {
    let out = '';
    try {
      execFileSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(ROOT, 'web/tsconfig.json')], {
        encoding: 'utf8',
        stdio: 'pipe',
      });
    } catch (e) {
      out = `${(e as { stdout?: string }).stdout ?? ''}${(e as { stderr?: string }).stderr ?? ''}`;
    }
    expect(out).toBe('');
  }, 60_000);
});
