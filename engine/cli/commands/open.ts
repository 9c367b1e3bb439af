// `hookmap open [--url U] [--token T] [--no-browser]`: the web inbox of a
// running `hookmap up`, signed in. Asks the server for a one-time login code
// (POST /inbox/api/link with the token in the Authorization header), prints
// `<url>/#login=<code>` and, where a desktop browser can be started, opens
// it. The code sits in the URL fragment (browsers never send it to a server,
// so no request log sees it), is single use, expires in two minutes, and the
// page removes it from the address bar before doing anything else: the token
// itself is never in a URL.
import { spawn } from 'node:child_process';
import { ArgError, parseArgs } from '../args.ts';
import { authHeaders } from '../../relay/client.ts';
import { ENDPOINT_FLAGS, endpoint } from './command-common.ts';

const SPEC = { ...ENDPOINT_FLAGS, 'no-browser': { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } as const;

const HELP = `hookmap open [--url U] [--token T] [--no-browser]
  Prints a one-time sign-in link to the web inbox of a running \`hookmap up\`
  (single use, valid 2 minutes) and opens it in a browser where one can be started.
  --url U        where hookmap up listens (default $HOOKMAP_URL or http://127.0.0.1:8787)
  --token T      the relay token (default $HOOKMAP_TOKEN)
  --no-browser   only print the link
`;

export async function run(argv: string[]): Promise<number> {
  let flags;
  try {
    ({ flags } = parseArgs(argv, SPEC));
  } catch (e) {
    if (e instanceof ArgError) {
      process.stderr.write(`hookmap open: ${e.message}\n`);
      return 2;
    }
    throw e;
  }
  if (flags.help) {
    process.stdout.write(HELP);
    return 0;
  }
  const ep = endpoint(flags);
  const base = ep.url.replace(/\/+$/, '');
  if (!ep.token) {
    process.stderr.write(`hookmap open: no token (set HOOKMAP_TOKEN or pass --token): the inbox signs in with the relay's token\nthe inbox itself is at ${base}/\n`);
    return 2;
  }
  let res: Response;
  try {
    res = await fetch(`${base}/inbox/api/link`, { method: 'POST', headers: { ...authHeaders(ep.token), 'content-type': 'application/json' }, body: '{}' });
  } catch (e) {
    process.stderr.write(`hookmap open: nothing answers at ${base} (is \`hookmap up\` running?): ${(e as Error).message}\n`);
    return 2;
  }
  const body = (await res.json().catch(() => ({}))) as { code?: string; path?: string; expires_in?: number; detail?: string };
  if (res.status === 401) {
    process.stderr.write(`hookmap open: ${base} refused the token (${body.detail ?? 'unauthorized'})\n`);
    return 2;
  }
  if (!res.ok || typeof body.path !== 'string') {
    process.stderr.write(`hookmap open: ${base} answered ${res.status}${body.detail ? `: ${body.detail}` : ''} (is it hookmap up with the inbox?)\n`);
    return 2;
  }
  const link = `${base}${body.path}`;
  process.stdout.write(`${link}\n`);
  process.stderr.write(`one-time sign-in link, valid ${body.expires_in ?? 120} s\n`);
  if (!flags['no-browser']) openInBrowser(link);
  return 0;
}

/** Start the desktop's browser on `link` where there is one; silently nothing otherwise. */
function openInBrowser(link: string): void {
  const cmd = process.platform === 'darwin' ? ['open', link] : process.platform === 'win32' ? ['cmd', '/c', 'start', '""', link] : process.env.DISPLAY || process.env.WAYLAND_DISPLAY ? ['xdg-open', link] : undefined;
  if (!cmd) return;
  try {
    const child = spawn(cmd[0], cmd.slice(1), { stdio: 'ignore', detached: true });
    child.on('error', () => {});
    child.unref();
  } catch {
    // no opener: the printed link is enough
  }
}
