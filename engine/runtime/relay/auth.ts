// Logging hygiene for secrets in URLs (AEP-0003 §8.1, §11): every URL a
// log line names goes through redactUrl. The `access_token` query parameter
// (browser EventSource) and any other credential-named query value
// (token, key, hook_key, x-hookmap-key, ...) are masked, and so is any run of
// 64 hex digits anywhere (a hook key or a token pasted into a path or a query
// by hand). Authentication itself lives in engine/runtime/auth.
const SECRET_PARAM = /([?&][^=&#]*(?:token|key|secret|password|sig|auth|code)[^=&#]*=)[^&#]*/gi;
const HEX_SECRET = /[0-9a-f]{64,}/gi;
/** `scheme://user:password@`: a sink or webhook URL written with its credentials. */
const USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^/@\s?#]+@/gi;

/** A URL (or a line naming one) safe to log: credential query values, user:password and key-shaped hex runs masked. */
export function redactUrl(url: string): string {
  return url.replace(SECRET_PARAM, '$1[REDACTED]').replace(USERINFO, '$1[REDACTED]@').replace(HEX_SECRET, '[REDACTED]');
}

/** A log sink whose every line goes through redactUrl first. */
export const redacting =
  (say: (line: string) => void) =>
  (line: string): void =>
    say(redactUrl(line));
