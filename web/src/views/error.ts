// The error panel: what went wrong, where (byte offset), with which file, and for a dump
// too big for the tab, the command line that analyzes it. The page stays ready for the
// next file; the message is shown as text (it may quote bytes of the file).
import { byId, h, replaceChildren, setText } from '../lib/dom';
import { cliCommand } from '../lib/cli';
import { formatBytes, formatBytesExact, formatCount, formatOffset, formatTimestamp } from '../lib/format';
import type { Report } from '../generated/report';
import type { AnalysisError } from '../protocol';

const TITLES: Record<AnalysisError['kind'], string> = {
  format: 'This file could not be read as a heap dump',
  io: 'The file could not be read',
  memory: 'Not enough memory for this dump in a browser tab',
  cancelled: 'Cancelled',
  query: 'That question could not be answered',
  internal: 'Something went wrong inside heapscope',
};

export function errorPanel(): HTMLElement {
  return h(
    'section',
    { id: 'error', class: 'panel error', hidden: true, role: 'alert' },
    h('h2', { id: 'error-title' }),
    h('p', { id: 'error-where', class: 'where' }),
    h('p', { id: 'error-message', class: 'message' }),
    h('div', { id: 'error-read', hidden: true }),
    h('p', { id: 'error-limit', class: 'fine', hidden: true }),
    h('div', { id: 'error-cli', class: 'cli', hidden: true }),
    h('p', { id: 'error-file', class: 'fine' }),
    h('p', { class: 'fine' }, 'You can drop or choose another file.'),
  );
}

export function showError(error: AnalysisError, file: { name: string; size: number } | null): void {
  const root = byId('error');
  root.dataset.kind = error.kind;
  const offset = error.offset ?? null;
  root.dataset.offset = offset === null ? '' : String(offset);
  setText(byId('error-title'), TITLES[error.kind] ?? TITLES.internal);
  const where = byId('error-where');
  if (offset !== null) {
    replaceChildren(where, 'Where: at byte ', h('span', { class: 'mono', id: 'error-offset' }, formatOffset(offset)), ' of the HPROF data (counted after decompression for a compressed file).');
    where.hidden = false;
  } else {
    replaceChildren(where);
    where.hidden = true;
  }
  setText(byId('error-message'), error.text || error.message);
  const read = byId('error-read');
  replaceChildren(read);
  read.hidden = true;
  const limit = byId('error-limit');
  setText(limit, error.kind === 'memory' ? memoryLimitNote() : '');
  limit.hidden = error.kind !== 'memory';
  const cli = byId('error-cli');
  // Too big for the tab (or the tab ran out): the command line has no such limit.
  const offerCli = error.kind === 'memory' || (error.kind === 'internal' && /memory/i.test(error.message));
  if (offerCli && file) {
    replaceChildren(
      cli,
      h('p', null, 'The command-line tool runs the same analysis natively, with the memory of the whole machine:'),
      h('pre', null, h('code', { id: 'error-cli-command' }, cliCommand(file.name))),
      h('p', { class: 'fine' }, 'Build it with cargo build --release (target/release/heapscope); the Markdown report it writes has the same numbers as this page. Save it with --format json to open the report here.'),
    );
    cli.hidden = false;
  } else {
    replaceChildren(cli);
    cli.hidden = true;
  }
  setText(byId('error-file'), file ? `File: ${file.name} (${formatBytes(file.size)})` : '');
  root.hidden = false;
}

export function hideError(): void {
  byId('error').hidden = true;
}

/** Which limit applied, said plainly: a lowered one by name, else the browser's. */
function memoryLimitNote(): string {
  const requested = Number(new URLSearchParams(location.search).get('memory-limit'));
  if (Number.isFinite(requested) && requested > 0) {
    return `This tab's limit was lowered to ${formatBytes(requested)} (${formatCount(requested)} bytes) by memory-limit in its address; without it, the analysis gets what the browser gives a tab (at most 4 GiB, less what the page holds).`;
  }
  return 'A browser tab gives the analysis at most 4 GiB of memory, less what the page already holds.';
}

/** A report with no heap record in it: the dump was cut before its first one. */
export function nothingReadable(r: Report): boolean {
  const c = r.overview.records;
  return !!r.incomplete && c.instances + c.object_arrays + c.primitive_arrays + c.classes === 0;
}

/** The error for a dump cut before its first heap record, with what was read of it. */
export function showNothingReadable(r: Report, file: { name: string; size: number }): void {
  const inc = r.incomplete!;
  const text = `nothing to analyze: reading stopped at byte ${formatCount(inc.offset)} (0x${inc.offset.toString(16)}), before the first heap record: ${inc.message}`;
  showError({ kind: 'format', offset: inc.offset, message: text, text }, file);
  setText(byId('error-title'), 'This dump holds no heap record that could be read');
  const d = r.dump;
  const read = byId('error-read');
  replaceChildren(
    read,
    h('p', null, 'What was read:'),
    h(
      'ul',
      { id: 'error-read-list' },
      h('li', null, `the header: ${d.format} (${d.platform}), ${d.id_size}-byte identifiers, written ${formatTimestamp(d.timestamp_ms)}`),
      h('li', null, `${inc.offset >= r.source.hprof_bytes ? `all ${formatBytesExact(r.source.hprof_bytes)}` : `${formatBytesExact(inc.offset)} of the ${formatBytesExact(r.source.hprof_bytes)}`} of HPROF data${r.source.gzip ? ' (after decompression)' : ''}: names, class loads and stack traces, no heap record`),
      ...r.warnings.map((w) => h('li', null, w)),
    ),
    h('p', { class: 'fine' }, 'The file was probably cut off while it was written or copied: take the dump again, or copy the whole file.'),
  );
  read.hidden = false;
}

/** What a view shows when drawing it failed (a bug in heapscope): the error, and that the
 * rest of the page works. The message may quote the dump: it is set as text. */
export function viewFailed(e: unknown): HTMLElement {
  const message = e instanceof Error ? e.message : String(e);
  return h(
    'div',
    { class: 'panel warn view-error', role: 'alert', 'data-view-error': '' },
    h('p', null, h('strong', null, 'This view could not be drawn: '), h('span', { class: 'mono view-error-message' }, message), '.'),
    h('p', { class: 'fine' }, 'A bug in heapscope, not in the dump. The other views and the exports work.'),
  );
}
