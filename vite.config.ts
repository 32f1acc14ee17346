// Vite builds the page from web/ into www/: the module worker (web/src/worker.ts) is
// bundled with heapscope's wasm (web/pkg, made by scripts/build-wasm.sh). No asset is ever
// inlined as a data: URL and no code is fetched from anywhere but the page's own origin.
import { defineConfig } from 'vite';

export default defineConfig({
  root: 'web',
  base: './', // relative URLs: www/ works from any path (a subfolder, a static host)
  publicDir: 'public',
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
});
