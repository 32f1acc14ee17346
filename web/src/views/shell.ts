// The page's frame: header, the import area (drop zone, file picker, sample), progress,
// errors, and the views of an opened dump. With a dump open, the header is one toolbar row
// (the file's name, Open, the exports in one menu, Mapping, Compare, the tree switch) and
// the tabs take the width below it, wrapping onto a second row when the window is narrow
// (every tab in sight): the view starts near the top of the window.
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
      // With a dump open, the header is the page's one toolbar: the file and its actions.
      h(
        'div',
        { id: 'toolbar', class: 'toolbar-row', hidden: true },
        h('h2', { id: 'dump-title', class: 'file-name' }),
        h(
          'div',
          { class: 'toolbar-actions', role: 'group', 'aria-label': 'Actions on this dump' },
          h('button', { id: 'open-button', type: 'button', class: 'secondary', title: 'Open another heap dump or saved report (this one is replaced; you are asked first)' }, 'Open…'),
          exportMenu(),
          h('button', { id: 'mapping-button', type: 'button', class: 'secondary', title: 'Apply a ProGuard/R8 mapping file (mapping.txt): class and field names get their original names' }, 'Mapping…'),
          h('input', { id: 'mapping-input', type: 'file', class: 'visually-hidden', tabindex: -1, 'aria-hidden': 'true', accept: '.txt,.map,text/plain' }),
          h('button', { id: 'compare-button', type: 'button', class: 'secondary', title: 'Compare with a baseline: what grew since an earlier dump of the same program (a dump or a saved JSON report), as heapscope compare BASELINE CURRENT' }, 'Compare…'),
        ),
        // Which dominator tree every view is drawn in: a choice about the whole dump, so
        // with its actions (and the tabs get the whole width).
        h('div', { id: 'tree-choice', class: 'tree-choice' }),
      ),
    ),
    h(
      'main',
      { id: 'main', 'data-mode': 'idle' },
      h('p', { id: 'announcer', class: 'visually-hidden', role: 'status', 'aria-live': 'polite', 'aria-atomic': 'true' }),
      h('div', { id: 'replace-confirm', class: 'replace-confirm', role: 'alertdialog', 'aria-label': 'Replace the loaded analysis?', hidden: true }),
      h(
        'section',
        { id: 'import', class: 'panel import', 'aria-label': 'Open a heap dump' },
        h('p', { class: 'drop-hint' }, 'Drop an .hprof or .hprof.gz file anywhere on this page (with its ProGuard/R8 mapping.txt, if obfuscated)'),
        h(
          'div',
          { class: 'actions' },
          h('button', { id: 'choose-button', type: 'button' }, 'Choose a heap dump…'),
          h('input', { id: 'file-input', type: 'file', multiple: true, class: 'visually-hidden', tabindex: -1, 'aria-hidden': 'true', accept: '.hprof,.gz,.hprof.gz,.json,.txt,.map,application/gzip,application/json,application/octet-stream,text/plain' }),
          h('button', { id: 'sample-button', type: 'button', class: 'secondary' }, 'Try a sample'),
        ),
        h(
          'p',
          { class: 'fine' },
          'HotSpot (JAVA PROFILE 1.0.1, 1.0.2) and Android ART (1.0.3) dumps, plain or gzip-compressed, or a heapscope JSON report saved earlier. ',
          'The analysis runs in a worker inside this tab; nothing is uploaded.',
        ),
        h('p', { id: 'notice', class: 'notice', hidden: true, role: 'status' }),
      ),
      progressPanel(),
      errorPanel(),
      h(
        'section',
        { id: 'results', class: 'results', hidden: true, 'aria-labelledby': 'dump-title' },
        h('div', { id: 'snapshot-note', class: 'panel note', hidden: true }),
        h('div', { id: 'report-only', class: 'panel note', hidden: true, role: 'status' }),
        h('div', { id: 'incomplete', class: 'panel warn', hidden: true, role: 'status' }),
        h('div', { id: 'dump-lost', class: 'panel warn', hidden: true, role: 'alert' }),
        // The tabs, all in sight: they wrap onto a second row when the window is narrow.
        h(
          'nav',
          { class: 'tabs', id: 'tabs', role: 'tablist', 'aria-label': 'Views' },
          ...VIEWS.map((v) =>
            h('button', { type: 'button', role: 'tab', id: `tab-${v.id}`, 'data-view': v.id, 'aria-controls': `view-${v.id}` }, v.title),
          ),
        ),
        ...VIEWS.map((v) =>
          h(
            'section',
            { class: 'view', id: `view-${v.id}`, role: 'tabpanel', 'aria-labelledby': `tab-${v.id}`, 'data-view': v.id, hidden: true },
            // The tab names the view: its heading is for screen readers only.
            h('h2', { class: 'visually-hidden' }, v.title),
            v.usesSelection ? h('p', { class: 'selection', 'data-selection': '' }) : null,
            h('div', { class: 'view-body' }),
            // How the analysis went: under the overview, out of the way of the answer.
            v.id === 'overview' ? h('p', { id: 'run-facts', class: 'fine run-facts' }) : null,
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
  wireExportMenu();
}

/** The exports, in one menu (a disclosure: a button that shows a list of buttons). */
function exportMenu(): HTMLElement {
  const item = (id: string, label: string, title: string): HTMLElement => h('li', null, h('button', { id, type: 'button', class: 'menu-item', title }, label));
  return h(
    'div',
    { class: 'menu', id: 'export-menu' },
    h('button', { id: 'export-button', type: 'button', class: 'secondary', 'aria-expanded': 'false', 'aria-controls': 'export-items', title: 'Save the report as a file' }, 'Export ', h('span', { 'aria-hidden': 'true' }, '▾')),
    h(
      'ul',
      { id: 'export-items', class: 'menu-items', hidden: true, 'aria-label': 'Export the report' },
      item('export-json', 'JSON report', 'The report as JSON (schema/report.schema.json), the same bytes as heapscope analyze --format json'),
      item('export-markdown', 'Markdown', 'The report as Markdown: system overview, leak suspects, top consumers'),
      item('export-md-graphs', 'Markdown with graphs', 'The Markdown report with its charts (heapscope analyze --format md-graphs)'),
      item('export-html', 'HTML page', 'The same report as one self-contained HTML page (no script, nothing fetched)'),
    ),
  );
}

function wireExportMenu(): void {
  const button = byId('export-button');
  const items = byId('export-items');
  const menu = byId('export-menu');
  const set = (open: boolean, focusButton = false): void => {
    items.hidden = !open;
    button.setAttribute('aria-expanded', String(open));
    if (open) items.querySelector<HTMLButtonElement>('button:not(:disabled)')?.focus();
    else if (focusButton) button.focus();
  };
  button.addEventListener('click', () => set(items.hidden));
  // Choosing an item closes the menu (the item's own handler runs too).
  items.addEventListener('click', (e) => {
    if ((e.target as HTMLElement).closest('button')) set(false);
  });
  menu.addEventListener('keydown', (e) => {
    if (e.key === 'Escape' && !items.hidden) {
      e.preventDefault();
      set(false, true);
      return;
    }
    if (items.hidden || (e.key !== 'ArrowDown' && e.key !== 'ArrowUp')) return;
    const all = [...items.querySelectorAll<HTMLButtonElement>('button:not(:disabled)')];
    const i = all.indexOf(document.activeElement as HTMLButtonElement);
    all[(i + (e.key === 'ArrowDown' ? 1 : all.length - 1)) % all.length]?.focus();
    e.preventDefault();
  });
  // A click elsewhere, or the focus leaving the menu, closes it.
  document.addEventListener('click', (e) => {
    if (!items.hidden && !menu.contains(e.target as Node)) set(false);
  });
  menu.addEventListener('focusout', (e) => {
    if (!items.hidden && e.relatedTarget instanceof Node && !menu.contains(e.relatedTarget)) set(false);
  });
}

export function setMode(mode: PageMode): void {
  byId('main').dataset.mode = mode;
  // Once a dump is open the import area gives way to the toolbar: the report gets the screen.
  document.body.dataset.mode = mode;
}

/** Shows or hides an opened dump's toolbar and views together. */
export function showResultsFrame(on: boolean): void {
  byId('results').hidden = !on;
  byId('toolbar').hidden = !on;
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
  // The ARIA tabs pattern: the arrows move to the previous or next tab (round the ends),
  // Home and End to the first and the last; the tab reached is shown (automatic activation).
  const ids = VIEWS.map((v) => v.id);
  for (const v of VIEWS) {
    byId(`tab-${v.id}`).addEventListener('keydown', (e) => {
      const i = ids.indexOf(v.id);
      const moves: Record<string, number> = { ArrowRight: i + 1, ArrowLeft: i - 1, Home: 0, End: ids.length - 1 };
      if (!(e.key in moves) || e.altKey || e.ctrlKey || e.metaKey) return;
      const next = ids[(moves[e.key] + ids.length) % ids.length];
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
