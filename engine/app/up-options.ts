// The value sets `hookmap up` takes both as flags and as keys of its config
// file, in a module that loads nothing: `up` without --config never loads the
// config's schema (zod), so its start stays as quick as before.
import type { CaptureLevel } from '../core/aep/schemas.ts';
import type { ProjectLabelMode } from '../core/capture/project.ts';

/** The levels `--capture` / `capture:` may raise every agent's ceiling to (none would lower it: not this option's job). */
export const UP_CAPTURE: readonly CaptureLevel[] = ['metadata', 'redacted', 'full'];
export const PROJECT_LABEL_MODES: readonly ProjectLabelMode[] = ['folder', 'off'];
