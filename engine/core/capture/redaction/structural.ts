// Structural secret rules: PEM blocks, HTTP auth schemes, URL credentials and
// credentials passed to well-known commands. Each is linear: literal-anchored
// searches that never restart inside what they already consumed. One file
// per rule family; this one gathers them for the pipeline (redact.ts).
export { PEM_RULE } from './pem.ts';
export { BASIC_RULE, BEARER_RULE } from './http-auth.ts';
export { URL_CREDENTIALS_RULE } from './url-credentials.ts';
export { COMMAND_RULES } from './command-flags.ts';
