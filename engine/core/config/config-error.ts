// The one error a configuration that cannot be used raises: an `up` config
// file (engine/app/up-config.ts, with its coded, located findings) or the
// environment the CLI edge resolves (engine/cli/config.ts).

/** One located, coded problem (the shape of engine/core/descriptor/errors.ts' DescriptorError). */
export interface ConfigProblem {
  code: string;
  file: string;
  line: number;
  col: number;
  path: string;
  message: string;
}

export class ConfigError extends Error {
  constructor(
    message: string,
    /** Every problem of a config file, located and coded; empty for the environment's. */
    readonly findings: readonly ConfigProblem[] = [],
  ) {
    super(message);
  }
}
