// Vite builds the page from web/ into www/: the module worker (web/src/worker.ts) is
// bundled with heapscope's wasm (web/pkg, made by scripts/build-wasm.sh). No asset is ever
// inlined as a data: URL and no code is fetched from anywhere but the page's own origin.
// web/public/ is copied as is (the sample dump, the web app manifest and its icons, and
// serve.json, which `npx serve www` reads its headers from); last, the service worker
// (web/sw.js) is written with the list of the built files it keeps for offline use.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vite';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const OUT = path.join(HERE, 'www');

/** Files of the built site the service worker does not keep: itself, and the server's config. */
const NOT_CACHED = new Set(['sw.js', 'serve.json']);

function filesUnder(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? filesUnder(path.join(dir, e.name)) : [path.join(dir, e.name)]));
}

/** Writes www/sw.js from web/sw.js once the site is built: the files to keep (index.html
 * as './', the URL the page is visited at) and a version that changes with their bytes. */
function serviceWorker(): Plugin {
  return {
    name: 'heapscope-service-worker',
    apply: 'build',
    closeBundle() {
      const rel = filesUnder(OUT)
        .map((f) => path.relative(OUT, f).split(path.sep).join('/'))
        .filter((f) => !NOT_CACHED.has(f))
        .sort();
      const hash = createHash('sha256');
      for (const f of rel) hash.update(`${f}\0`).update(fs.readFileSync(path.join(OUT, f)));
      const files = rel.map((f) => (f === 'index.html' ? './' : f)).sort();
      const template = fs.readFileSync(path.join(HERE, 'web/sw.js'), 'utf8');
      const source = template
        .replace('self.__HEAPSCOPE_VERSION__', JSON.stringify(hash.digest('hex').slice(0, 16)))
        .replace('self.__HEAPSCOPE_FILES__', JSON.stringify(files));
      if (source.includes('__HEAPSCOPE_')) throw new Error('web/sw.js: a placeholder was not replaced');
      fs.writeFileSync(path.join(OUT, 'sw.js'), source);
    },
  };
}

export default defineConfig({
  root: 'web',
  base: './', // relative URLs: www/ works from any path (a subfolder, a static host)
  publicDir: 'public',
  plugins: [serviceWorker()],
  build: {
    outDir: '../www',
    emptyOutDir: true,
    target: 'es2022',
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    sourcemap: false,
    reportCompressedSize: false,
  },
  worker: {
    format: 'es',
  },
  // Cross-origin isolation (as web/public/serve.json for `npx serve www`): the worker's
  // read-ahead shares memory with a second worker (web/src/import/read-ahead.ts).
  server: { headers: { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' } },
  preview: { headers: { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' } },
});
