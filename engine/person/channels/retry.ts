// A chat API call that may be rate-limited (Telegram's 429 with
// `parameters.retry_after`, Slack's 429 with Retry-After): retried after the
// wait it names, with backoff for other transient failures, until the
// moment's deadline; bounded per attempt by the client's own timeout.
export interface Retryable {
  /** Seconds the service asked to wait (a 429), if it said. */
  retryAfterS?: number;
  /** Worth retrying at all (429, 5xx, a network error); false: a refusal (400, 401, 403). */
  transient: boolean;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms).unref?.());

export async function withRetry<T>(fn: () => Promise<T>, classify: (e: unknown) => Retryable, deadline: number, maxAttempts = 6): Promise<T> {
  let wait = 500;
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (e) {
      const c = classify(e);
      const pause = c.retryAfterS !== undefined ? c.retryAfterS * 1000 : wait;
      if (!c.transient || attempt >= maxAttempts || Date.now() + pause >= deadline) throw e;
      await sleep(pause);
      wait = Math.min(wait * 2, 30_000);
    }
  }
}
