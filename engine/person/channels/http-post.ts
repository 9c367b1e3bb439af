// One bounded POST of a channel (ntfy, the webhook), as a retry sees it:
// 429 (with Retry-After) and 5xx and network errors are transient.
import type { Retryable } from './retry.ts';

export class PostError extends Error {
  constructor(
    readonly status: number | undefined,
    readonly retryAfterS: number | undefined,
    message: string,
  ) {
    super(message);
  }
}

export async function post(url: string, body: string, headers: Record<string, string>, timeoutMs = 10_000): Promise<void> {
  let res: Response;
  try {
    res = await fetch(url, { method: 'POST', headers, body, signal: AbortSignal.timeout(timeoutMs), redirect: 'error' });
  } catch (e) {
    throw new PostError(
      undefined,
      undefined,
      (e as Error).name === 'TimeoutError' ? `${new URL(url).host} did not answer in ${timeoutMs} ms` : `${new URL(url).host}: ${(e as Error).message}`,
    );
  }
  await res.arrayBuffer().catch(() => undefined);
  if (res.ok) return;
  const ra = Number(res.headers.get('retry-after'));
  throw new PostError(res.status, Number.isFinite(ra) && ra > 0 ? Math.min(ra, 60) : undefined, `${new URL(url).host} answered ${res.status}`);
}

export function classifyPost(e: unknown): Retryable {
  const x = e as PostError;
  if (x.status === 429) return { transient: true, retryAfterS: x.retryAfterS ?? 1 };
  if (x.status === undefined) return { transient: true };
  return { transient: x.status >= 500 };
}
