// Is a hookmap already answering at an address? `up` asks before it starts (engine/cli/commands/up.ts).
/**
 * Does a hookmap (up or relay) answer /healthz at this base URL? ({ok: true} within a second.) Plain http goes
 * through node:http: `up` asks this before it starts, and fetch would load undici (tens of ms) for one question
 * whose usual answer is a refused connection.
 */
export async function answersHealthz(url: string): Promise<boolean> {
  if (url.startsWith('http://')) {
    const { get } = await import('node:http');
    return new Promise<boolean>((resolve) => {
      const req = get(`${url}/healthz`, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          body += c;
          if (body.length > 64 * 1024) req.destroy(); // not a healthz body
        });
        res.on('end', () => {
          try {
            resolve((JSON.parse(body) as { ok?: unknown })?.ok === true);
          } catch {
            resolve(false);
          }
        });
        res.on('error', () => resolve(false));
      });
      const bound = setTimeout(() => req.destroy(), 1000);
      req.on('close', () => clearTimeout(bound));
      req.on('error', () => resolve(false));
    });
  }
  try {
    const r = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(1000) });
    const body = (await r.json()) as { ok?: unknown };
    return body?.ok === true;
  } catch {
    return false;
  }
}
