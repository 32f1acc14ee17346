// What kind of file was dropped or chosen, from its first bytes.

/** A saved report is JSON: its first non-blank byte is "{" (a dump starts "JAVA" or gzip's 1f 8b). */
export async function isJsonReport(file: Blob): Promise<boolean> {
  const head = new Uint8Array(await file.slice(0, 64).arrayBuffer());
  const first = head.find((b) => b !== 0x20 && b !== 0x0a && b !== 0x0d && b !== 0x09 && b !== 0xef && b !== 0xbb && b !== 0xbf);
  return first === 0x7b;
}
