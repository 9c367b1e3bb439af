// Where the web inbox's built assets live (written by `hookmap codegen`:
// codegen/inbox-build.ts) and the URL path `hookmap up` serves them under
// (engine/person/inbox/routes.ts).
export const ASSET_DIR = 'engine/person/inbox/assets';
export const ASSET_BASE = '/inbox/assets/';
