// Logging hygiene for the relay's bearer tokens (AEP-0003 §8.1, §11): the
// `access_token` query parameter (browser EventSource) must never reach a
// log. Authentication itself lives in engine/auth.
/** A URL safe to log: the access_token query value is masked. */
export function redactUrl(url: string): string {
  return url.replace(/([?&]access_token=)[^&#]*/gi, '$1[REDACTED]');
}
