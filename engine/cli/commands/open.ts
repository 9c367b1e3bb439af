// `hookmap open [--url U] [--token-file F] [--no-browser] [--qr]`: the web inbox of a
// running `hookmap up`, signed in. Asks the server for a one-time login code
// (POST /inbox/api/link with the token in the Authorization header), prints
// `<url>/#login=<code>` and, where a desktop browser can be started, opens
// it. The code sits in the URL fragment (browsers never send it to a server,
// so no request log sees it), is single use, expires in two minutes, and the
// page removes it from the address bar before doing anything else: the token
// itself is never in a URL. `--qr` prints the link as a QR code for a
// phone's camera (and the link beside it) instead of opening a browser.
import { spawn } from 'node:child_process';
import { ArgError, parseArgs } from '../args.ts';
import { authHeaders } from '../../runtime/relay/client.ts';
import { TokenFileError } from '../../runtime/auth/tokens.ts';
import { missingTokenHint } from '../../runtime/auth/discover.ts';
import { ENDPOINT_FLAGS, endpoint, type Endpoint } from './command-common.ts';
import { tokenSources } from '../config.ts';

const SPEC = { ...ENDPOINT_FLAGS, 'no-browser': { type: 'boolean' }, qr: { type: 'boolean' } } as const;
const LOOPBACK = /^https?:\/\/(127\.|localhost[:/]|\[::1\])/;

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
  let ep: Endpoint;
  try {
    ep = endpoint(flags, 'hookmap open');
  } catch (e) {
    if (e instanceof TokenFileError) {
      process.stderr.write(`hookmap open: ${e.message}\n`);
      return 2;
    }
    throw e;
  }
  const base = ep.url.replace(/\/+$/, '');
  if (!ep.token) {
    process.stderr.write(
      `hookmap open: ${missingTokenHint(ep.url, tokenSources(process.env))}\nthe inbox itself is at ${base}/ (it signs in with one of the server's tokens)\n`,
    );
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
    process.stderr.write(
      `hookmap open: ${base} refused the token (${body.detail ?? 'unauthorized'})\n  ${missingTokenHint(ep.url, tokenSources(process.env))}\n`,
    );
    return 2;
  }
  if (!res.ok || typeof body.path !== 'string') {
    process.stderr.write(`hookmap open: ${base} answered ${res.status}${body.detail ? `: ${body.detail}` : ''} (is it hookmap up with the inbox?)\n`);
    return 2;
  }
  const link = `${base}${body.path}`;
  if (flags.qr) {
    // for a phone's camera: the code, and the link beside it for a person to compare
    const { renderUnicodeCompact } = await import('uqr');
    process.stdout.write(`${renderUnicodeCompact(link, { border: 2 })}\n${link}\n`);
    process.stderr.write(`one-time sign-in link, valid ${body.expires_in ?? 120} s: scan it with the phone's camera\n`);
    if (LOOPBACK.test(base))
      process.stderr.write(
        `note: ${base} is this machine's loopback address, which a phone cannot reach: pass the ` +
          `address the phone reaches as --url (a Tailscale name, a tunnel, the LAN with --tls-cert; ` +
          `docs/push.md, "Reach from the phone")\n`,
      );
    else if (base.startsWith('http:'))
      process.stderr.write(`note: ${base} is plain http: the inbox works there, but a phone's browser allows notifications only over https\n`);
    return 0;
  }
  process.stdout.write(`${link}\n`);
  process.stderr.write(`one-time sign-in link, valid ${body.expires_in ?? 120} s\n`);
  if (!flags['no-browser']) openInBrowser(link);
  return 0;
}

/** Start the desktop's browser on `link` where there is one; silently nothing otherwise. */
function openInBrowser(link: string): void {
  const cmd =
    process.platform === 'darwin'
      ? ['open', link]
      : process.platform === 'win32'
        ? ['cmd', '/c', 'start', '""', link]
        : process.env.DISPLAY || process.env.WAYLAND_DISPLAY
          ? ['xdg-open', link]
          : undefined;
  if (!cmd) return;
  try {
    const child = spawn(cmd[0], cmd.slice(1), { stdio: 'ignore', detached: true });
    child.on('error', () => {});
    child.unref();
  } catch {
    // no opener: the printed link is enough
  }
}
