// The command-line equivalent of what the page does, for dumps too big for a tab.

/** `heapscope analyze NAME -o BASE.md`, quoted for a POSIX shell. */
export function cliCommand(fileName: string): string {
  const name = fileName || 'DUMP.hprof';
  return `heapscope analyze ${shellQuote(name)} -o ${shellQuote(`${baseName(name)}.md`)}`;
}

/** The file name without .hprof / .gz / .json: "app.hprof.gz" → "app". */
export function baseName(fileName: string): string {
  return fileName.replace(/(\.hprof)?(\.gz)?$/i, '').replace(/\.json$/i, '') || 'report';
}

export function shellQuote(s: string): string {
  return /^[A-Za-z0-9_./+=:,@%-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}
