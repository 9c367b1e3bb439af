// Telegram's errors as the channel handles them: which a retry waits out
// (grammY's 429 with retry_after, 5xx, the network), and a bot token never
// reaching a log line.
import type { Retryable } from './retry.ts';

/** grammY's errors, as a retry sees them: 429 with retry_after, 5xx and network errors are transient. */
export function classify(e: unknown): Retryable {
  const x = e as { error_code?: number; parameters?: { retry_after?: number }; name?: string };
  if (x?.error_code === 429) return { transient: true, retryAfterS: x.parameters?.retry_after ?? 1 };
  if (typeof x?.error_code === 'number') return { transient: x.error_code >= 500 };
  return { transient: true };
}

/** A bot token never reaches a log line (grammY's errors may carry the request URL). */
export function redactToken(s: string): string {
  return s.replace(/bot\d+:[A-Za-z0-9_-]+/g, 'bot<token>').replace(/\b\d{5,}:[A-Za-z0-9_-]{20,}\b/g, '<token>');
}
