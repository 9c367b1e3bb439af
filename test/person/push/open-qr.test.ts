// `hookmap open --qr` (issue 23): the QR code printed in the terminal
// decodes (jsqr, reading the printed half-block characters back as pixels)
// to the one-time sign-in link printed beside it, and that link signs in.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import jsQRModule from 'jsqr';
import { upStack, type UpStack } from '../../helpers/up-stack.ts';

// jsqr is CommonJS with a default export: under Node's ESM interop it arrives as the module object
const jsQR = ((jsQRModule as unknown as { default?: typeof jsQRModule }).default ?? jsQRModule) as unknown as (
  d: Uint8ClampedArray,
  w: number,
  h: number,
  o?: { inversionAttempts?: string },
) => { data: string } | null;
import { runCli } from '../../helpers/cli.ts';

let s: UpStack;
beforeAll(async () => {
  s = await upStack({ prefix: 'hookmap-qr-' });
}, 30_000);
afterAll(() => s?.done());

/** Terminal half blocks back to an image: each character is two modules, a lit half is light. */
function decodeTerminalQr(text: string): string | undefined {
  const rows = text.split('\n').filter((l) => /^[█▀▄ ]+$/.test(l) && l.trim());
  const modules: boolean[][] = [];
  for (const r of rows) {
    const chars = [...r];
    modules.push(chars.map((c) => c === '█' || c === '▀'));
    modules.push(chars.map((c) => c === '█' || c === '▄'));
  }
  const scale = 6;
  const quiet = 4;
  const w = (modules[0].length + quiet * 2) * scale;
  const h = (modules.length + quiet * 2) * scale;
  const px = new Uint8ClampedArray(w * h * 4).fill(255);
  for (let y = 0; y < modules.length; y++) {
    for (let x = 0; x < modules[y].length; x++) {
      const light = modules[y][x];
      for (let dy = 0; dy < scale; dy++) {
        for (let dx = 0; dx < scale; dx++) {
          const o = (((y + quiet) * scale + dy) * w + (x + quiet) * scale + dx) * 4;
          px[o] = px[o + 1] = px[o + 2] = light ? 255 : 0;
        }
      }
    }
  }
  return jsQR(px, w, h, { inversionAttempts: 'attemptBoth' })?.data;
}

describe('hookmap open --qr', () => {
  it('prints a QR code that decodes to the sign-in link printed beside it, and the link signs in', async () => {
    const r = await runCli(['open', '--qr', '--url', s.url], { ...process.env, HOOKMAP_HOME: s.home, HOOKMAP_TOKEN: '', HOOKMAP_TOKEN_FILE: '' });
    expect(r.code, r.stderr).toBe(0);
    const link = r.stdout.trim().split('\n').at(-1)!;
    expect(link).toMatch(new RegExp(`^${s.url.replace(/[.]/g, '\\.')}/#login=[A-Za-z0-9_-]+$`));
    expect(decodeTerminalQr(r.stdout)).toBe(link);
    expect(r.stderr).toMatch(/loopback address, which a phone cannot reach/);
    const code = link.split('#login=')[1];
    const res = await fetch(`${s.url}/inbox/api/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ code }) });
    expect(res.status).toBe(200);
    expect(r.stdout).not.toContain(s.token);
  });
});
