// The page's frame: header, the import area (drop zone, file picker, sample), progress,
// errors, and the views of an opened dump with their navigation and exports.
import { byId, h, replaceChildren, setText } from '../lib/dom';
import type { PageState, ViewId } from '../lib/state';
import { errorPanel } from './error';
import { progressPanel } from './progress';
import { VIEWS } from './registry';

export type PageMode = 'idle' | 'running' | 'done' | 'error';

export function renderShell(app: HTMLElement): void {
  replaceChildren(
    app,
    h(
      'header',
      { class: 'top' },
      h('h1', null, 'heapscope'),
      h('p', { class: 'tagline' }, 'Java and Android heap dumps, analyzed in your browser. The file never leaves this tab.'),
    ),
    h(
      'main',
      { id: 'main', 'data-mode': 'idle' },
      h('p', { id: 'announcer', class: 'visually-hidden', role: 'status', 'aria-live': 'polite', 'aria-atomic': 'true' }),
      h(
        'section',
        { id: 'import', class: 'panel import', 'aria-label': 'Open a heap dump' },
        h('p', { class: 'drop-hint compact-hint' }, 'or drop a file anywhere on the page'),
        h('p', { class: 'drop-hint full-hint' }, 'Drop an .hprof or .hprof.gz file anywhere on this page (with its ProGuard/R8 mapping.txt, if obfuscated)'),
        h(
          'div',
          { class: 'actions' },
          h('button', { id: 'choose-button', type: 'button' }, 'Choose a heap dump…'),
          h('input', { id: 'file-input', type: 'file', multiple: true, class: 'visually-hidden', tabindex: -1, 'aria-hidden': 'true', accept: '.hprof,.gz,.hprof.gz,.json,.txt,.map,application/gzip,application/json,application/octet-stream,text/plain' }),
          h('button', { id: 'sample-button', type: 'button', class: 'secondary' }, 'Try a sample'),
        ),
        h(
          'p',
          { class: 'fine full-hint' },
          'HotSpot (JAVA PROFILE 1.0.1, 1.0.2) and Android ART (1.0.3) dumps, plain or gzip-compressed, or a heapscope JSON report saved earlier. ',
          'The analysis runs in a worker inside this tab; nothing is uploaded.',
        ),
        h('p', { id: 'notice', class: 'notice', hidden: true, role: 'status' }),
        h('div', { id: 'replace-confirm', class: 'replace-confirm', role: 'alertdialog', 'aria-label': 'Replace the loaded analysis?', hidden: true }),
      ),
      progressPanel(),
      errorPanel(),
      h(
        'section',
        { id: 'results', class: 'results', hidden: true },
        h(
          'div',
          { class: 'results-head' },
          h('h2', { id: 'dump-title', class: 'file-name' }),
          h(
            'div',
            { class: 'exports', role: 'group', 'aria-label': 'Export the report' },
            h('button', { id: 'export-json', type: 'button', class: 'secondary', title: 'The report as JSON (schema/report.schema.json), the same bytes as heapscope analyze --format json' }, 'Export JSON report'),
            h('button', { id: 'export-markdown', type: 'button', class: 'secondary', title: 'The report as Markdown: system overview, leak suspects, top consumers' }, 'Export Markdown'),
            h('button', { id: 'export-html', type: 'button', class: 'secondary', title: 'The same report as one self-contained HTML page (no script, nothing fetched)' }, 'Export HTML'),
          ),
          h(
            'div',
            { class: 'exports', role: 'group', 'aria-label': 'Deobfuscate' },
            h('button', { id: 'mapping-button', type: 'button', class: 'secondary', title: 'A ProGuard/R8 mapping file (mapping.txt): class and field names get their original names' }, 'Apply a mapping file…'),
            h('input', { id: 'mapping-input', type: 'file', class: 'visually-hidden', tabindex: -1, 'aria-hidden': 'true', accept: '.txt,.map,text/plain' }),
          ),
          h(
            'div',
            { class: 'exports', role: 'group', 'aria-label': 'Compare' },
            h('button', { id: 'compare-button', type: 'button', class: 'secondary', title: 'What grew since an earlier dump of the same program (a dump or a saved JSON report), as heapscope compare BASELINE CURRENT' }, 'Compare with a baseline…'),
          ),
        ),
        h('p', { id: 'run-facts', class: 'fine' }),
        h('div', { id: 'tree-choice', class: 'tree-choice' }),
        h('div', { id: 'report-only', class: 'panel note', hidden: true, role: 'status' }),
        h('div', { id: 'incomplete', class: 'panel warn', hidden: true, role: 'status' }),
        h('div', { id: 'dump-lost', class: 'panel warn', hidden: true, role: 'alert' }),
        h(
          'nav',
          { class: 'tabs', role: 'tablist', 'aria-label': 'Views' },
          ...VIEWS.map((v) =>
            h('button', { type: 'button', role: 'tab', id: `tab-${v.id}`, 'data-view': v.id, 'aria-controls': `view-${v.id}` }, v.title),
          ),
        ),
        ...VIEWS.map((v) =>
          h(
            'section',
            { class: 'view', id: `view-${v.id}`, role: 'tabpanel', 'aria-labelledby': `tab-${v.id}`, 'data-view': v.id, hidden: true },
            h('h2', null, v.title),
            v.usesSelection ? h('p', { class: 'selection', 'data-selection': '' }) : null,
            h('div', { class: 'view-body' }),
          ),
        ),
      ),
    ),
    h(
      'footer',
      { class: 'bottom' },
      h('span', null, 'heapscope '),
      h('span', { id: 'version' }, ''),
      h('span', null, ' · runs entirely in this tab: no uploads, no requests to other sites, no cookies.'),
    ),
  );
}

export function setMode(mode: PageMode): void {
  byId('main').dataset.mode = mode;
  // Once a dump is open the import area is one line: the report gets the screen.
  setText(byId('choose-button'), mode === 'done' ? 'Open another dump…' : 'Choose a heap dump…');
}

export function setVersion(version: string): void {
  setText(byId('version'), version);
}

/** Shows a short status line under the import buttons (e.g. "Cancelled."). */
export function setNotice(text: string | null): void {
  const notice = byId('notice');
  setText(notice, text ?? '');
  notice.hidden = !text;
}

/** Shows the selected view and marks its tab; fills in the selected object where used. */
export function showView(state: PageState): void {
  for (const v of VIEWS) {
    const selected = v.id === state.view;
    byId(`view-${v.id}`).hidden = !selected;
    const tab = byId(`tab-${v.id}`);
    tab.setAttribute('aria-selected', String(selected));
    tab.tabIndex = selected ? 0 : -1;
  }
  for (const el of document.querySelectorAll<HTMLElement>('[data-selection]')) {
    setText(el, state.object ? `Selected object: ${state.object}` : 'No object selected.');
  }
}

export function onTabClick(handler: (view: ViewId) => void): void {
  for (const v of VIEWS) byId(`tab-${v.id}`).addEventListener('click', () => handler(v.id));
  // Arrow keys move between tabs, as in any tab list.
  const ids = VIEWS.map((v) => v.id);
  for (const v of VIEWS) {
    byId(`tab-${v.id}`).addEventListener('keydown', (e) => {
      const i = ids.indexOf(v.id);
      const next = e.key === 'ArrowRight' ? ids[(i + 1) % ids.length] : e.key === 'ArrowLeft' ? ids[(i + ids.length - 1) % ids.length] : null;
      if (!next) return;
      e.preventDefault();
      handler(next);
      byId(`tab-${next}`).focus();
    });
  }
}

/** The body of view `id` (where its content goes). */
export function viewBody(id: ViewId): HTMLElement {
  return byId(`view-${id}`).querySelector('.view-body') as HTMLElement;
}
