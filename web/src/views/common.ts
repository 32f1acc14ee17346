// Pieces shared by the views: the context of an opened dump or report, tables, notices.
import type { Report } from '../generated/report';
import { h, type Child } from '../lib/dom';
import { navigableRows } from '../lib/keyboard';
import type { Queries } from '../lib/queries';
import type { StateStore } from '../lib/state';
import type { AnalysisError } from '../protocol';
import { isAnalysisError } from '../protocol';

/** What an object without an immediate dominator is called, in the inspector, the path
 * view and the command line's `paths`: one phrase everywhere. */
export const TOP_LEVEL_DOMINATOR = 'none: it is a top-level dominator (no single object is on every path from the GC roots to it)';

export interface DumpContext {
  report: Report;
  /** The report exactly as the core wrote it (exported byte for byte). */
  reportJson: string;
  fileName: string;
  /** The mapping file the names were deobfuscated with (null: none). */
  mappingName?: string | null;
  /** False for a report opened from its JSON: the views that read the dump cannot work. */
  hasDump: boolean;
  q: Queries;
  store: StateStore;
}

export interface Column {
  label: string;
  num?: boolean;
  title?: string;
  /** A column of class names or objects: it takes the room left, its names cut from the
   * left where that is too little (styles.css `td.name`). */
  name?: boolean;
}

/** A plain table; `rows` cells are text or nodes (never markup). Its rows take the arrow keys. */
export function table(id: string | null, caption: string | null, columns: Column[], rows: Child[][], rowAttributes?: (i: number) => Record<string, string>): HTMLTableElement {
  const body = h(
    'tbody',
    null,
    ...rows.map((cells, i) => h('tr', rowAttributes ? rowAttributes(i) : null, ...cells.map((cell, j) => h('td', { class: columns[j]?.num ? 'num' : columns[j]?.name ? 'name' : null }, cell)))),
  );
  navigableRows(body);
  return h(
    'table',
    { class: 'data', id },
    caption ? h('caption', null, caption) : null,
    h('thead', null, h('tr', null, ...columns.map((c) => h('th', { scope: 'col', class: c.num ? 'num' : null, title: c.title ?? null }, c.label)))),
    body,
  );
}

/** What a view that reads the dump says when only the JSON report is open. */
export function needsDump(ctx: DumpContext, what: string): HTMLElement {
  const name = ctx.report.source.file_name;
  return h(
    'div',
    { class: 'placeholder', 'data-needs-dump': '' },
    h('strong', null, 'This view needs the heap dump. '),
    `The ${what} is read from the dump itself, and this is a saved JSON report. `,
    name ? `Drop ${name} on the page to explore it.` : 'Drop the dump on the page to explore it.',
  );
}

/** A query's failure, as text. */
export function queryFailed(e: unknown): HTMLElement {
  const error: AnalysisError | null = isAnalysisError(e) ? e : null;
  return h('p', { class: 'query-error', role: 'alert' }, error ? error.text || error.message : String(e));
}

export function loading(what = 'Loading…'): HTMLElement {
  return h('p', { class: 'loading fine' }, what);
}

/** A definition list of facts, each with `data-fact` and (for numbers) the exact `data-value`. */
export function facts(id: string, rows: [key: string, label: string, value: Child, exact?: number | string | boolean][]): HTMLElement {
  return h(
    'dl',
    { class: 'facts', id },
    ...rows.map(([key, label, value, exact]) =>
      h('div', { class: 'fact', 'data-fact': key, 'data-value': exact === undefined ? null : String(exact) }, h('dt', null, label), h('dd', null, value)),
    ),
  );
}
