// The machine a command acts on (setup, doctor, the shims, the launcher, an
// MCP entry), resolved once at the CLI edge (engine/cli/config.ts
// resolveTarget) and handed down as these values: no unit below the CLI
// reads an environment, or hookmap's own variables in one, for them.

export interface Target {
  /** The user's home folder: `~` in a descriptor's config paths. */
  userHome: string;
  /**
   * The variables a descriptor's config paths may name (`${XDG_CONFIG_HOME:-~/.config}`, `$APPDATA`): the
   * target's environment without hookmap's own HOOKMAP_* variables, which are resolved into the fields below.
   */
  vars: Readonly<Record<string, string | undefined>>;
  /** hookmap's own folder ($HOOKMAP_HOME, default ~/.hookmap): shims/, logs/, the launcher, the token. */
  home: string;
  /** The daemon address the shims, the launcher and an MCP entry point at ($HOOKMAP_URL or the default). */
  url: string;
  /** HOOKMAP_HOME and HOOKMAP_URL as the user set them (undefined when defaulted): an MCP entry carries only what was named. */
  named: { home?: string; url?: string };
}
