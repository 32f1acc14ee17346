// Number and time formatting for display. Pure functions (unit-tested under Node).

/** Binary units, as the exports and MAT show sizes (one unit system across the page):
 * 1,234,567 → "1.18 MiB". */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 0) return '–';
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let v = bytes / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2)} ${units[i]}`;
}

/** Exact counts with thousands separators: 1234567 → "1,234,567". */
export function formatCount(n: number): string {
  if (!Number.isFinite(n)) return '–';
  return Math.round(n).toLocaleString('en-US');
}

/** Bytes with the exact figure: "1.23 MB (1,234,567 bytes)". */
export function formatBytesExact(bytes: number): string {
  return bytes < 1024 ? `${formatCount(bytes)} bytes` : `${formatBytes(bytes)} (${formatCount(bytes)} bytes)`;
}

/** A transfer rate from bytes per second, in binary units as every size: "178 MiB/s". */
export function formatRate(bytesPerSecond: number): string {
  if (!Number.isFinite(bytesPerSecond) || bytesPerSecond <= 0) return '–';
  const mibs = bytesPerSecond / 2 ** 20;
  return `${mibs >= 100 ? mibs.toFixed(0) : mibs >= 10 ? mibs.toFixed(1) : mibs.toFixed(2)} MiB/s`;
}

/** A duration for humans: "0.4 s", "12 s", "3 min 05 s", "1 h 02 min". */
export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return '–';
  if (seconds < 10) return `${seconds.toFixed(1)} s`;
  if (seconds < 60) return `${Math.round(seconds)} s`;
  const s = Math.round(seconds);
  if (s < 3600) return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;
  return `${Math.floor(s / 3600)} h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')} min`;
}

/** A fraction as a percentage with one decimal below 10%: 0.0734 → "7.3%". */
export function formatPercent(fraction: number): string {
  if (!Number.isFinite(fraction)) return '–';
  const p = Math.max(0, Math.min(1, fraction)) * 100;
  return `${p < 10 ? p.toFixed(1) : p.toFixed(0)}%`;
}

/** A byte offset as decimal and hex: "1,234 (0x4d2)". */
export function formatOffset(offset: number): string {
  return `${formatCount(offset)} (0x${offset.toString(16)})`;
}

/** A timestamp (ms since the epoch) as UTC: "2026-11-29 17:26:29 UTC". */
export function formatTimestamp(ms: number): string {
  const d = new Date(ms);
  if (!Number.isFinite(ms) || Number.isNaN(d.getTime())) return '–';
  return `${d.toISOString().replace('T', ' ').replace(/\.\d+Z$/, '')} UTC`;
}

/** Basis points (100 = 1%) as MAT prints percentages: 9798 → "97.98%". */
export function formatBp(bp: number): string {
  if (!Number.isFinite(bp)) return '–';
  return `${Math.floor(bp / 100)}.${String(Math.round(bp) % 100).padStart(2, '0')}%`;
}

/** Binary units for heap sizes, as MAT and the Markdown report show them: "29.3 MiB". */
export function formatMiB(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 0) return '–';
  if (bytes >= 2 ** 30) return `${(bytes / 2 ** 30).toFixed(1)} GiB`;
  if (bytes >= 2 ** 20) return `${(bytes / 2 ** 20).toFixed(1)} MiB`;
  if (bytes >= 2 ** 10) return `${(bytes / 2 ** 10).toFixed(1)} KiB`;
  return `${bytes} B`;
}
