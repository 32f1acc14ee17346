// The error panel: what went wrong, where (byte offset), with which file, and for a dump
// too big for the tab, the command line that analyzes it. The page stays ready for the
// next file; the message is shown as text (it may quote bytes of the file).
import { byId, h, replaceChildren, setText } from '../lib/dom';
import { cliCommand } from '../lib/cli';
import { formatBytes, formatOffset } from '../lib/format';
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
  const cli = byId('error-cli');
  // Too big for the tab (or the tab ran out): the command line has no such limit.
  const offerCli = error.kind === 'memory' || (error.kind === 'internal' && /memory/i.test(error.message));
  if (offerCli && file) {
    replaceChildren(
      cli,
      h('p', null, 'The command-line tool runs the same analysis natively, without the browser\'s 4 GiB limit:'),
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
