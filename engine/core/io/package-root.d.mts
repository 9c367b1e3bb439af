/** The root above the module at `url` (a file: URL), ending in a separator. */
export function packageRootFrom(url: string): string;
/** The package's (or the clone's) root folder, ending in a separator. */
export const PACKAGE_ROOT: string;
