// The AEP version this engine speaks: apart from engine/core/aep/schemas.ts so a
// client (tail, answer, a relay link) names it without loading every schema
// and the validator.
export const AEP_VERSION = '0.1';
export const SUPPORTED_VERSIONS = [AEP_VERSION];
