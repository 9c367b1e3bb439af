// The inbox's app icons (the web app manifest, the iOS home screen, the
// notifications), drawn here and encoded as PNG when first asked for, so the repository
// holds no binary files: a ring and a dot (a hook's eye, a waiting prompt) on
// the inbox's blue, inside the maskable safe zone (the middle 80%).
import { deflateSync } from 'node:zlib';

export const ICON_SIZES = [180, 192, 512] as const;

const CRC = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

function crc32(b: Buffer): number {
  let c = 0xffffffff;
  for (const x of b) c = CRC[(c ^ x) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const td = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(td));
  return Buffer.concat([len, td, crc]);
}

/** An RGBA PNG of the icon, `size` pixels square. */
export function iconPng(size: number): Buffer {
  const bg = [0x2f, 0x5b, 0xea];
  const row = size * 4 + 1;
  const raw = Buffer.alloc(row * size);
  const c = size / 2;
  const outer = size * 0.3;
  const inner = size * 0.19;
  const dot = size * 0.075;
  for (let y = 0; y < size; y++) {
    raw[y * row] = 0; // filter: none
    for (let x = 0; x < size; x++) {
      // 4x supersampling: smooth edges
      let white = 0;
      for (let sy = 0; sy < 2; sy++) {
        for (let sx = 0; sx < 2; sx++) {
          const d = Math.hypot(x + 0.25 + sx * 0.5 - c, y + 0.25 + sy * 0.5 - c);
          if ((d <= outer && d >= inner) || d <= dot) white++;
        }
      }
      const a = white / 4;
      const o = y * row + 1 + x * 4;
      for (let i = 0; i < 3; i++) raw[o + i] = Math.round(bg[i] * (1 - a) + 255 * a);
      raw[o + 3] = 255;
    }
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(size, 0);
  ihdr.writeUInt32BE(size, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 6; // RGBA
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** The web app manifest: installable on Android (Chrome's criteria) and iOS (home screen). */
export function manifest(): string {
  return JSON.stringify({
    name: 'hookmap inbox',
    short_name: 'hookmap',
    description: "Your agents' permission prompts and questions, answered from anywhere",
    id: '/',
    start_url: '/',
    scope: '/',
    display: 'standalone',
    background_color: '#ffffff',
    theme_color: '#2f5bea',
    icons: [
      { src: '/inbox/assets/icon-192.png', sizes: '192x192', type: 'image/png', purpose: 'any' },
      { src: '/inbox/assets/icon-512.png', sizes: '512x512', type: 'image/png', purpose: 'any' },
      { src: '/inbox/assets/icon-512.png', sizes: '512x512', type: 'image/png', purpose: 'maskable' },
    ],
  });
}
