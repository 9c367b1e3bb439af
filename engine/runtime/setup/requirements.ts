// The descriptor's `setup.requires`: lines the agent's other config must
// contain for hooks to run at all (a feature flag, say). Checked, never
// written: hookmap edits only the hook config it owns entries in.
import { existsSync, readFileSync } from 'node:fs';
import { expandPath } from './expand.ts';
import type { Target } from '../../core/io/target.ts';
import type { Requirement, SetupSpec } from './spec.ts';

export interface RequirementState {
  req: Requirement;
  path: string;
  met: boolean;
}

export function checkRequirements(spec: SetupSpec, t: Target): RequirementState[] {
  return spec.requires.map((req) => {
    const path = expandPath(req.file, t, t.userHome);
    let met: boolean;
    try {
      met = existsSync(path) && new RegExp(req.match, 'm').test(readFileSync(path, 'utf8'));
    } catch {
      met = false;
    }
    return { req, path, met };
  });
}
