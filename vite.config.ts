// Vite builds the page from www/ into dist/: the module worker (www/src/worker.ts) is
// bundled with heapscope's wasm (www/pkg, made by scripts/build-wasm.sh). No asset is ever
// inlined as a data: URL and no code is fetched from anywhere but the page's own origin.
import { defineConfig } from 'vite';

export default defineConfig({
  root: 'www',
  base: './', // relative URLs: dist/ works from any path (a subfolder, a static host)
  publicDir: 'public',
  build: {
    outDir: '../dist',
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
