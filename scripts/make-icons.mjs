// Draws the page's app icons (web/public/icon*.{svg,png}) for the web app manifest:
// a treemap under a magnifying glass. The SVG is written here; the PNGs (192 and 512 px,
// and a 512 px "maskable" one whose artwork stays inside the central 80% safe zone) are
// rendered from it by headless Chromium. Run after changing the drawing:
//   node scripts/make-icons.mjs
import fs from 'node:fs';
import path from 'node:path';
import { launchChromium } from '../tests/e2e/helpers/browser.mjs';
import { REPO } from '../tests/e2e/helpers/paths.mjs';

const OUT = path.join(REPO, 'web/public');

/** The artwork on a 512 × 512 canvas; `maskable`: square, full-bleed background, artwork at 80%. */
export function iconSvg({ maskable = false } = {}) {
  const scale = maskable ? 0.8 : 1;
  const shift = (512 * (1 - scale)) / 2;
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 512 512" width="512" height="512">
  <rect width="512" height="512" rx="${maskable ? 0 : 104}" fill="#2458b3"/>
  <g transform="translate(${shift} ${shift}) scale(${scale})">
    <rect x="88" y="88" width="196" height="336" rx="14" fill="#ffffff"/>
    <rect x="300" y="88" width="124" height="176" rx="14" fill="#b9cff6"/>
    <rect x="300" y="280" width="56" height="144" rx="12" fill="#dbe6fb"/>
    <rect x="372" y="280" width="52" height="66" rx="10" fill="#dbe6fb"/>
    <rect x="372" y="358" width="52" height="66" rx="10" fill="#dbe6fb"/>
    <circle cx="214" cy="226" r="86" fill="none" stroke="#12305f" stroke-width="30"/>
    <path d="M276 288 L372 384" stroke="#12305f" stroke-width="40" stroke-linecap="round"/>
  </g>
</svg>
`;
}

async function render(svg, size, file) {
  const chromium = await launchChromium();
  try {
    const page = await chromium.browser.newPage({ viewport: { width: size, height: size }, deviceScaleFactor: 1 });
    await page.setContent(`<!doctype html><style>html,body{margin:0;background:transparent}svg{display:block;width:${size}px;height:${size}px}</style>${svg}`);
    await page.screenshot({ path: file, omitBackground: true, clip: { x: 0, y: 0, width: size, height: size } });
  } finally {
    await chromium.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const svg = iconSvg();
  fs.writeFileSync(path.join(OUT, 'icon.svg'), svg);
  await render(svg, 192, path.join(OUT, 'icon-192.png'));
  await render(svg, 512, path.join(OUT, 'icon-512.png'));
  await render(iconSvg({ maskable: true }), 512, path.join(OUT, 'icon-maskable-512.png'));
  for (const f of ['icon.svg', 'icon-192.png', 'icon-512.png', 'icon-maskable-512.png']) console.log(`${f}: ${fs.statSync(path.join(OUT, f)).size} bytes`);
}
