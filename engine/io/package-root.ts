// The package's (or the clone's) root folder, from a module two folders
// below it: what a module deeper down names a shipped file through, so the
// path holds in the package's bundle too (dist/engine/, also two below).
import { fileURLToPath } from 'node:url';

export const PACKAGE_ROOT = fileURLToPath(new URL('../../', import.meta.url));
