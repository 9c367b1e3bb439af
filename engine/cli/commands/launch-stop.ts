// `hookmap cancel <session>` on a session a headless `hookmap run` started:
// its process (and whatever it started) is stopped by `up`'s launcher
// (POST /launch/stop). Undefined when no such run is under way (an agent
// started by hand, an up without the launch API): the ordinary cancel then.
import { authHeaders } from '../../runtime/relay/client-sse.ts';
import type { Endpoint } from './command-common.ts';

export async function stopLaunched(ep: Endpoint, session: string, say: (line: string) => void): Promise<number | undefined> {
  const res = await fetch(`${ep.url.replace(/\/+$/, '')}/launch/stop`, {
    method: 'POST',
    headers: { ...authHeaders(ep.token), 'content-type': 'application/json', 'x-hookmap-surface': 'cli' },
    body: JSON.stringify({ id: session }),
  }).catch(() => undefined);
  if (!res || res.status === 404) return undefined;
  const j = (await res.json().catch(() => ({}))) as { run?: { id: string; agent: string }; error?: string; detail?: string };
  if (!res.ok || !j.run) {
    if (res.status === 401 || res.status === 403) return undefined; // the cancel says why, as ever
    say(`could not stop the run: ${j.error ?? res.status}${j.detail ? `: ${j.detail}` : ''}`);
    return 1;
  }
  say(`stopped ${j.run.agent} (launch ${j.run.id}), session ${session}`);
  return 0;
}
