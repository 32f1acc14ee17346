// The class histogram: one row per class (report.histogram), sortable by every column,
// filtered by name, and virtualized (only the rows in view exist in the DOM, so tens of
// thousands of classes scroll smoothly). Selecting a row lists the class's biggest
// instances (a query on the dump). Grouped by package or class loader (a query: the
// group's retained size needs the dominator tree), selecting a group lists its classes.
import type { HistogramRow } from '../generated/report';
import type { HistogramGrouping, Instances } from '../generated/query';
import { h, replaceChildren, setText } from '../lib/dom';
import { formatCount, formatMiB } from '../lib/format';
import { className, objectLink } from '../lib/objects';
import { drawRows, ROW } from '../lib/virtual-rows';
import { loading, needsDump, queryFailed, table, type DumpContext } from './common';

/** A class row of the report, or a group of classes (then `classes` is set). `heap`: the
 * heap column's text (Android dumps name their heaps). */
type Row = HistogramRow & { classes?: number; heap?: string };
/** How long a class stays selected under the arrow keys before its objects are asked for. */
const KEY_SETTLE_MS = 150;

type Key = 'class_name' | 'loader' | 'classes' | 'instances' | 'shallow_bytes' | 'retained_bytes_min' | 'heap';
type Grouping = 'class' | HistogramGrouping;
interface Column {
  key: Key;
  label: string;
  num: boolean;
  title?: string;
}

const TAIL: Column[] = [
  { key: 'instances', label: 'Objects', num: true },
  { key: 'shallow_bytes', label: 'Shallow heap', num: true },
  { key: 'retained_bytes_min', label: 'Retained heap (≥)', num: true, title: "MAT's quick retained size: a lower bound" },
];
const CLASSES: Column = { key: 'classes', label: 'Classes', num: true };
const COLUMNS_BY: Record<Grouping, Column[]> = {
  class: [{ key: 'class_name', label: 'Class name', num: false }, { key: 'loader', label: 'Class loader', num: false }, ...TAIL],
  package: [{ key: 'class_name', label: 'Package', num: false }, CLASSES, ...TAIL],
  class_loader: [{ key: 'class_name', label: 'Class loader', num: false }, CLASSES, ...TAIL],
};
/** The last column of dumps that name their heaps (Android). */
const HEAP: Column = { key: 'heap', label: 'Heap', num: false, title: 'The heaps (app, image, zygote) holding the objects' };
const NOUN: Record<Grouping, string> = { class: 'classes', package: 'packages', class_loader: 'class loaders' };

/** Package of a class name, as the core's `package_of`: arrays count as their element class. */
export function packageOf(className: string): string {
  const base = className.replace(/(\[\])+$/, '');
  const dot = base.lastIndexOf('.');
  return dot < 0 ? '<default package>' : base.slice(0, dot);
}

const INSTANCES_PAGE = 50;

export class HistogramView {
  /** The report's class rows. */
  private readonly classRows: HistogramRow[];
  /** The rows of the current grouping (the class rows, or the groups once they came). */
  private rows: Row[];
  /** Each row's position in its list (ties keep that order). */
  private rank = new Map<Row, number>();
  private view: Row[];
  private grouping: Grouping = 'class';
  private columns: Column[] = COLUMNS_BY.class;
  /** Only the classes of one group (after selecting a group). */
  private scope: { by: HistogramGrouping; name: string } | null = null;
  private sortKey: Key = 'retained_bytes_min';
  private descending = true;
  private filter = '';
  /** Only the objects of this heap ('' for all). */
  private heap = '';
  /** Per class row and heap: the row with that heap's objects and bytes (made once). */
  private heapRows = new Map<Row, Map<string, Row>>();
  private readonly hasHeaps: boolean;
  private readonly filterInput: HTMLInputElement;
  private readonly groupSelect: HTMLSelectElement;
  private readonly scopeChip: HTMLButtonElement;
  private readonly body: HTMLElement;
  private readonly spacer: HTMLElement;
  private readonly count: HTMLElement;
  private readonly heads: HTMLButtonElement[];
  /** The column headers around the sort buttons (they carry aria-sort). */
  private readonly headCells: HTMLElement[];
  /** The row with the keyboard focus (index into the view), -1 before the first key. */
  private cursor = -1;
  private readonly instances: HTMLElement;
  private pool: HTMLElement[] = [];
  private frame = 0;
  private selected: string | null = null;
  /** The pending ask for the selected class's instances (see `select`). */
  private settle: number | undefined;
  readonly root: HTMLElement;

  constructor(private readonly ctx: DumpContext) {
    this.classRows = ctx.report.histogram;
    this.hasHeaps = (ctx.report.overview.heaps ?? []).length > 0;
    if (this.hasHeaps) {
      for (const r of this.classRows) (r as Row).heap = (r.heaps ?? []).map((x) => x.name).join(', ');
      this.columns = COLUMNS_BY.class.concat(HEAP);
    }
    this.rows = this.classRows;
    this.rows.forEach((r, i) => this.rank.set(r, i));
    this.view = this.rows.slice();
    const filter = h('input', { id: 'histogram-filter', type: 'search', placeholder: 'name contains…', autocomplete: 'off', spellcheck: 'false', 'aria-label': 'Filter rows by name' });
    this.filterInput = filter;
    let timer = 0;
    filter.addEventListener('input', () => {
      window.clearTimeout(timer);
      timer = window.setTimeout(() => this.setFilter(filter.value), 80);
    });
    const option = (value: Grouping, label: string) =>
      h('option', ctx.hasDump || value === 'class' ? { value } : { value, disabled: true, title: 'Needs the dump: drop it again' }, label);
    this.groupSelect = h('select', { id: 'histogram-group', 'aria-label': 'Group the histogram by' }, option('class', 'class'), option('package', 'package'), option('class_loader', 'class loader'));
    this.groupSelect.addEventListener('change', () => this.setGrouping(this.groupSelect.value as Grouping));
    const heapSelect = this.hasHeaps
      ? h('select', { id: 'histogram-heap', 'aria-label': 'Only the objects of one heap' }, h('option', { value: '' }, 'all heaps'), ...(ctx.report.overview.heaps ?? []).map((x) => h('option', { value: x.name }, x.name)))
      : null;
    heapSelect?.addEventListener('change', () => {
      this.heap = heapSelect.value;
      if (this.heap && this.grouping !== 'class') this.setGrouping('class');
      else this.apply();
    });
    this.scopeChip = h('button', { id: 'histogram-scope', type: 'button', class: 'secondary chip', hidden: true, title: 'Show every class again' });
    this.scopeChip.addEventListener('click', () => this.setScope(null));
    this.count = h('span', { id: 'histogram-count', class: 'fine', 'aria-live': 'polite' });
    this.heads = this.columns.map((c) => {
      const b = h('button', { type: 'button', class: `sort${c.num ? ' num' : ''}`, 'data-sort': c.key }, c.label);
      b.addEventListener('click', () => this.sortBy(b.dataset.sort as Key));
      return b;
    });
    this.headCells = this.heads.map((b) => h('div', { class: 'vcell head', role: 'columnheader' }, b));
    this.labelHeads();
    this.spacer = h('div', { class: 'vspacer', 'aria-hidden': 'true' });
    // The body is one tab stop; the arrow keys then move the focus from row to row (the row
    // elements are recycled as the list scrolls, so the focus follows the row's index).
    this.body = h('div', { class: 'vbody', id: 'histogram-body', tabindex: 0, role: 'rowgroup', 'aria-label': 'Rows: arrow keys move, Enter opens a group' }, this.spacer);
    this.body.addEventListener('scroll', () => this.schedule(), { passive: true });
    this.body.addEventListener('click', (e) => {
      const row = (e.target as HTMLElement).closest<HTMLElement>('.vrow');
      if (row?.dataset.index) this.cursor = Number(row.dataset.index);
      if (row?.dataset.classAddress) this.select(row.dataset.classAddress);
      else if (row?.dataset.group && this.grouping !== 'class') this.setScope({ by: this.grouping, name: row.dataset.group });
    });
    this.body.addEventListener('keydown', (e) => this.key(e));
    this.instances = h('div', { id: 'histogram-instances', class: 'instances' });
    this.root = h(
      'div',
      { class: 'histogram' },
      h('div', { class: 'toolbar' }, h('label', null, 'Filter ', filter), h('label', null, 'Group by ', this.groupSelect), heapSelect ? h('label', null, 'Heap ', heapSelect) : null, this.scopeChip, this.count),
      h(
        'div',
        { class: `vtable${this.hasHeaps ? ' with-heaps' : ''}`, id: 'histogram-table', role: 'grid', 'aria-label': 'Class histogram' },
        h('div', { class: 'vrow vhead', role: 'row', 'aria-rowindex': 1 }, ...this.headCells),
        this.body,
      ),
      h('p', { class: 'fine' }, 'Select a class to list its biggest objects, or a package or class loader to list its classes. Retained heap is the lower bound Eclipse MAT shows before "calculate precise retained size": for a group, the objects of the group that no other object of the group dominates.'),
      this.instances,
    );
    this.apply();
    new ResizeObserver(() => this.schedule()).observe(this.body);
  }

  /** Shows the class rows named `className` (the filter set to it) and selects the one at
   * `classAddress`, listing its objects (the comparison's links land here). */
  reveal(className: string, classAddress: string): void {
    if (this.grouping !== 'class') this.setGrouping('class');
    this.scope = null;
    this.scopeChip.hidden = true;
    this.filterInput.value = className;
    this.setFilter(className);
    this.select(classAddress);
  }

  /** The filter as typed (kept when the views are drawn again: a mapping applied, another tree). */
  filterText(): string {
    return this.filterInput.value;
  }

  /** Puts back a filter the views had before they were drawn again ([`filterText`]). */
  keepFilter(text: string): void {
    if (!text) return;
    this.filterInput.value = text;
    this.setFilter(text);
  }

  private setFilter(text: string): void {
    this.filter = text.trim().toLowerCase();
    this.apply();
  }

  /** Shows the classes, or asks the worker for the groups and shows them. */
  private setGrouping(by: Grouping): void {
    this.grouping = by;
    this.groupSelect.value = by;
    this.scope = null;
    this.scopeChip.hidden = true;
    this.columns = this.hasHeaps ? COLUMNS_BY[by].concat(HEAP) : COLUMNS_BY[by];
    if (!this.columns.some((c) => c.key === this.sortKey)) this.sortKey = 'retained_bytes_min';
    this.labelHeads();
    this.selected = null;
    replaceChildren(this.instances);
    if (by === 'class') {
      this.setRows(this.classRows);
      return;
    }
    this.setRows([]);
    setText(this.count, `Grouping by ${by === 'package' ? 'package' : 'class loader'}…`);
    this.ctx.q.histogramGroups(by).then(
      (groups) => {
        if (this.grouping !== by) return;
        this.setRows(groups.map((g) => ({ class_name: g.name, class_address: '', loader: '', classes: g.classes, instances: g.instances, shallow_bytes: g.shallow_bytes, retained_bytes_min: g.retained_bytes_min })));
      },
      (e) => {
        if (this.grouping === by) replaceChildren(this.instances, queryFailed(e));
      },
    );
  }

  /** Shows only the classes of one package or loader (null: all classes again). */
  private setScope(scope: { by: HistogramGrouping; name: string } | null): void {
    if (scope) {
      this.setGrouping('class');
      this.scope = scope;
      setText(this.scopeChip, `${scope.by === 'package' ? 'Package' : 'Loader'}: ${scope.name} ×`);
      this.scopeChip.hidden = false;
      this.filterInput.value = '';
      this.filter = '';
    } else {
      this.scope = null;
      this.scopeChip.hidden = true;
    }
    this.apply();
  }

  private setRows(rows: Row[]): void {
    this.rows = rows;
    this.rank = new Map(rows.map((r, i) => [r, i]));
    this.heapRows = new Map();
    this.apply();
  }

  /** Puts the current grouping's column names and keys on the header buttons and cells. */
  private labelHeads(): void {
    this.columns.forEach((c, i) => {
      const b = this.heads[i];
      setText(b, c.label);
      b.dataset.sort = c.key;
      b.title = c.title ?? `Sort by ${c.label.toLowerCase()}`;
      b.classList.toggle('num', c.num);
      this.headCells[i].classList.toggle('num', c.num);
      for (const row of this.pool) row.children[i].classList.toggle('num', c.num);
    });
  }

  private sortBy(key: Key): void {
    if (this.sortKey === key) this.descending = !this.descending;
    else {
      this.sortKey = key;
      this.descending = this.columns.find((c) => c.key === key)?.num ?? false;
    }
    this.apply();
  }

  /** Filters and sorts, then redraws from the top. */
  private apply(): void {
    const f = this.filter;
    const scope = this.scope;
    const inScope = (r: Row): boolean => !scope || (scope.by === 'package' ? packageOf(r.class_name) === scope.name : r.loader === scope.name);
    let rows = this.rows.filter((r) => inScope(r) && (!f || r.class_name.toLowerCase().includes(f)));
    if (this.heap && this.grouping === 'class') rows = rows.flatMap((r) => this.inHeap(r, this.heap) ?? []);
    const key = this.sortKey;
    const dir = this.descending ? -1 : 1;
    const num = this.columns.find((c) => c.key === key)?.num;
    rows.sort((a, b) => {
      const c = num ? ((a[key] as number) ?? 0) - ((b[key] as number) ?? 0) : compareText(a[key] as string, b[key] as string);
      // Ties keep the report's order (by retained, then shallow, then name).
      return c !== 0 ? c * dir : (this.rank.get(a) ?? 0) - (this.rank.get(b) ?? 0);
    });
    this.view = rows;
    this.heads.forEach((b, i) => {
      const active = b.dataset.sort === key;
      this.headCells[i].setAttribute('aria-sort', active ? (this.descending ? 'descending' : 'ascending') : 'none');
      b.dataset.arrow = active ? (this.descending ? '▼' : '▲') : '';
    });
    this.cursor = -1;
    this.body.parentElement?.setAttribute('aria-rowcount', String(rows.length + 1));
    let objects = 0;
    let shallow = 0;
    for (const r of rows) {
      objects += r.instances;
      shallow += r.shallow_bytes;
    }
    setText(
      this.count,
      `${formatCount(rows.length)} of ${formatCount(this.rows.length)} ${NOUN[this.grouping]} · ${formatCount(objects)} objects${this.heap ? ` in heap ${this.heap}` : ''} · ${formatCount(shallow)} bytes shallow (${formatMiB(shallow)})`,
    );
    this.count.dataset.rows = String(rows.length);
    // Which filter the rows show: the filter applies after typing settles, so a test (or a
    // script) waits for this rather than for a row that may still be from before.
    this.count.dataset.filter = f;
    this.spacer.style.height = `${rows.length * ROW}px`;
    this.body.scrollTop = 0;
    this.draw();
  }

  /** Row `r` counting only its objects in `heap` (undefined when it has none there). */
  private inHeap(r: Row, heap: string): Row | undefined {
    let byHeap = this.heapRows.get(r);
    if (!byHeap) {
      byHeap = new Map((r.heaps ?? []).map((x) => [x.name, { ...r, instances: x.objects, shallow_bytes: x.shallow_bytes, heap: x.name }]));
      // Ties keep the report's order.
      for (const d of byHeap.values()) this.rank.set(d, this.rank.get(r) ?? 0);
      this.heapRows.set(r, byHeap);
    }
    return byHeap.get(heap);
  }

  /** Redraws on the next frame (after a scroll, a resize, or the tab becoming visible). */
  schedule(): void {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.draw();
    });
  }

  /** Puts the rows in view (and a few around them) into pooled row elements. */
  private draw(): void {
    drawRows(this.body, this.pool, this.view.length, this.columns.map((c) => c.num), (row, index) => {
      const r = this.view[index];
      const group = r.classes !== undefined;
      if (group) {
        delete row.dataset.classAddress;
        row.dataset.group = r.class_name;
      } else {
        delete row.dataset.group;
        row.dataset.classAddress = r.class_address;
      }
      row.setAttribute('aria-selected', String(!group && r.class_address === this.selected));
      const cells = row.children;
      // Names whole, cut from the left when the column is narrow (the whole in the title).
      replaceChildren(cells[0], className(r.class_name, false));
      (cells[0] as HTMLElement).dataset.full = r.class_name;
      (cells[1] as HTMLElement).dataset.full = group ? formatCount(r.classes ?? 0) : r.loader;
      (cells[0] as HTMLElement).title = group ? `${r.class_name}: select to list its classes` : `${r.class_name} (class object @ ${r.class_address})`;
      if (group) setText(cells[1], formatCount(r.classes ?? 0));
      else replaceChildren(cells[1], className(r.loader, false));
      (cells[1] as HTMLElement).title = group ? '' : r.loader;
      setText(cells[2], formatCount(r.instances));
      setText(cells[3], formatCount(r.shallow_bytes));
      setText(cells[4], formatCount(r.retained_bytes_min));
      if (cells[5]) setText(cells[5], r.heap ?? '');
    });
    // A recycled row element may now show another row: the focus stays with the row.
    const active = document.activeElement;
    if (this.cursor >= 0 && active instanceof HTMLElement && active !== this.body && this.body.contains(active) && active.dataset.index !== String(this.cursor)) this.focusCursor();
  }

  /** Arrow keys, Page Up/Down, Home and End move the focus over the rows; a class row is
   * selected as the focus reaches it, a group row opens with Enter or Space. */
  private key(e: KeyboardEvent): void {
    const page = Math.max(1, Math.floor(this.body.clientHeight / ROW) - 1);
    const moves: Record<string, number> = { ArrowDown: 1, ArrowUp: -1, PageDown: page, PageUp: -page };
    if (e.key in moves || e.key === 'Home' || e.key === 'End') {
      e.preventDefault();
      if (!this.view.length) return;
      const selectedIndex = this.selected ? this.view.findIndex((r) => r.class_address === this.selected) : -1;
      const current = this.cursor >= 0 ? this.cursor : selectedIndex;
      let next = e.key === 'Home' ? 0 : e.key === 'End' ? this.view.length - 1 : current < 0 ? 0 : current + moves[e.key];
      next = Math.max(0, Math.min(this.view.length - 1, next));
      this.cursor = next;
      const top = next * ROW;
      if (top < this.body.scrollTop) this.body.scrollTop = top;
      else if (top + ROW > this.body.scrollTop + this.body.clientHeight) this.body.scrollTop = top + ROW - this.body.clientHeight;
      const r = this.view[next];
      // Held keys move through many rows: a row's objects are asked for once it rests there.
      if (r.classes === undefined) this.select(r.class_address, KEY_SETTLE_MS);
      else this.draw();
      this.focusCursor();
    } else if ((e.key === 'Enter' || e.key === ' ') && this.cursor >= 0 && this.cursor < this.view.length) {
      const r = this.view[this.cursor];
      e.preventDefault();
      if (r.classes !== undefined && this.grouping !== 'class') this.setScope({ by: this.grouping, name: r.class_name });
      else this.select(r.class_address);
    }
  }

  /** Moves the keyboard focus onto the pooled element that shows the cursor's row. */
  private focusCursor(): void {
    const row = this.pool.find((r) => !r.hidden && r.dataset.index === String(this.cursor));
    row?.focus({ preventScroll: true });
  }

  /**
   * Selects a class and lists its biggest instances, asking the worker after `settleMs`
   * unless another class was selected meanwhile (each ask scans every object).
   */
  private select(classAddress: string, settleMs = 0): void {
    window.clearTimeout(this.settle);
    this.selected = classAddress;
    this.draw();
    const row = this.classRows.find((r) => r.class_address === classAddress);
    if (!row) return;
    const title = h('h3', null, `Objects of ${row.class_name}`, this.ctx.hasDump ? h('a', { class: 'merge-link small', href: `#view=merge&object=${classAddress}`, 'data-merge': classAddress }, ' · merge paths to GC roots') : null);
    if (!this.ctx.hasDump) {
      replaceChildren(this.instances, title, needsDump(this.ctx, 'list of a class\'s objects'));
      return;
    }
    replaceChildren(this.instances, title, loading());
    const list = h('div', null);
    const more = (offset: number): void => {
      this.ctx.q.instances(classAddress, offset, INSTANCES_PAGE).then(
        (page) => {
          if (this.selected !== classAddress) return;
          if (offset === 0) replaceChildren(this.instances, title, list);
          this.appendInstances(list, page, () => more(offset + INSTANCES_PAGE));
          // A class chosen (not passed over with the arrow keys) brings its objects into view.
          if (offset === 0 && settleMs === 0) revealBelow(title);
        },
        (e) => replaceChildren(this.instances, title, queryFailed(e)),
      );
    };
    this.settle = window.setTimeout(() => {
      if (this.selected === classAddress) more(0);
    }, settleMs);
  }

  private appendInstances(list: HTMLElement, page: Instances, more: () => void): void {
    list.querySelector('.more')?.remove();
    if (page.offset === 0) {
      list.appendChild(h('p', { class: 'fine' }, `${formatCount(page.total)} objects, the biggest retained first.`));
    }
    list.appendChild(
      table(
        null,
        null,
        [{ label: 'Object', name: true }, { label: 'Shallow heap', num: true }, { label: 'Retained heap', num: true }],
        page.objects.map((o) => [objectLink(o), formatCount(o.shallow_bytes), formatCount(o.retained_bytes)]),
      ),
    );
    const shown = page.offset + page.objects.length;
    if (shown < page.total) {
      const b = h('button', { type: 'button', class: 'secondary more' }, `Show ${formatCount(Math.min(INSTANCES_PAGE, page.total - shown))} more (${formatCount(page.total - shown)} left)`);
      b.addEventListener('click', more);
      list.appendChild(b);
    }
  }
}


/** Scrolls `el` up into view when it starts in the lower part of the window (or below it). */
export function revealBelow(el: HTMLElement): void {
  if (el.getBoundingClientRect().top > window.innerHeight * 0.6) el.scrollIntoView({ block: 'start', behavior: 'smooth' });
}

/** Code-point order (fast, and the same in every locale). */
function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
