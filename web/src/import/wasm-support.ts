// What the page's WebAssembly needs of the browser beyond WebAssembly itself: the SIMD
// instructions (the build enables `simd128`, see .cargo/config.toml). A browser without them
// cannot compile the module at all, and the bare CompileError would not say why; this probe
// tells that case apart from a module that failed to download.

/** The browsers that have WebAssembly SIMD (as the README says). */
export const SIMD_BROWSERS = 'Chrome or Edge 91, Firefox 89, Safari 16.4 or later';

/** A module of one function returning a `v128.const`: valid only where SIMD is. */
const SIMD_PROBE = new Uint8Array([
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, // magic, version 1
  0x01, 0x05, 0x01, 0x60, 0x00, 0x01, 0x7b, // types: () -> v128
  0x03, 0x02, 0x01, 0x00, // functions: one of type 0
  0x0a, 0x16, 0x01, 0x14, 0x00, 0xfd, 0x0c, ...new Array<number>(16).fill(0), 0x0b, // code: v128.const 0
]);

/** Whether this browser's WebAssembly has the SIMD instructions. */
export function hasWasmSimd(): boolean {
  try {
    return WebAssembly.validate(SIMD_PROBE);
  } catch {
    return false;
  }
}

/** The sentence for a module that could not be loaded: what the browser lacks, when that is why. */
export function loadFailure(detail: string): string {
  return hasWasmSimd()
    ? `could not load heapscope's WebAssembly module: ${detail}`
    : `this browser cannot run heapscope's analysis: its WebAssembly lacks the SIMD instructions (${SIMD_BROWSERS} have them)`;
}
