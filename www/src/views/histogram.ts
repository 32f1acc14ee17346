// The class histogram: one row per class (report.histogram), sortable by every column,
// filtered by name, and virtualized (only the rows in view exist in the DOM, so tens of
// thousands of classes scroll smoothly). Selecting a row lists the class's biggest
// instances (a query on the dump).
import type { HistogramRow } from '../generated/report';
import type { Instances } from '../generated/session';
import { h, replaceChildren, setText } from '../lib/dom';
import { formatCount, formatMiB } from '../lib/format';
import { objectLink } from '../lib/objects';
import { loading, needsDump, queryFailed, table, type DumpContext } from './common';

type Key = 'class_name' | 'loader' | 'instances' | 'shallow_bytes' | 'retained_bytes_min';

const COLUMNS: { key: Key; label: string; num: boolean; title?: string }[] = [
  { key: 'class_name', label: 'Class name', num: false },
  { key: 'loader', label: 'Class loader', num: false },
  { key: 'instances', label: 'Objects', num: true },
  { key: 'shallow_bytes', label: 'Shallow heap', num: true },
  { key: 'retained_bytes_min', label: 'Retained heap (≥)', num: true, title: "MAT's quick retained size: a lower bound" },
];

/** Height of one row in CSS pixels (the stylesheet's .vrow height). */
const ROW = 28;
const OVERSCAN = 8;
const INSTANCES_PAGE = 50;

export class HistogramView {
  private rows: HistogramRow[];
  /** Each row's position in the report (ties keep the report's order). */
  private rank = new Map<HistogramRow, number>();
  private view: HistogramRow[];
  private sortKey: Key = 'retained_bytes_min';
  private descending = true;
  private filter = '';
  private readonly body: HTMLElement;
  private readonly spacer: HTMLElement;
  private readonly count: HTMLElement;
  private readonly heads: HTMLButtonElement[];
  private readonly instances: HTMLElement;
  private pool: HTMLElement[] = [];
  private frame = 0;
  private selected: string | null = null;
  readonly root: HTMLElement;

  constructor(private readonly ctx: DumpContext) {
    this.rows = ctx.report.histogram;
    this.rows.forEach((r, i) => this.rank.set(r, i));
    this.view = this.rows.slice();
    const filter = h('input', { id: 'histogram-filter', type: 'search', placeholder: 'class name contains…', autocomplete: 'off', spellcheck: 'false', 'aria-label': 'Filter classes by name' });
    let timer = 0;
    filter.addEventListener('input', () => {
      window.clearTimeout(timer);
      timer = window.setTimeout(() => this.setFilter(filter.value), 80);
    });
    this.count = h('span', { id: 'histogram-count', class: 'fine', 'aria-live': 'polite' });
    this.heads = COLUMNS.map((c) => {
      const b = h('button', { type: 'button', class: `vcell head${c.num ? ' num' : ''}`, 'data-sort': c.key, title: c.title ?? `Sort by ${c.label.toLowerCase()}` }, c.label);
      b.addEventListener('click', () => this.sortBy(c.key));
      return b;
    });
    this.spacer = h('div', { class: 'vspacer' });
    this.body = h('div', { class: 'vbody', id: 'histogram-body', tabindex: 0, role: 'rowgroup' }, this.spacer);
    this.body.addEventListener('scroll', () => this.schedule(), { passive: true });
    this.body.addEventListener('click', (e) => {
      const row = (e.target as HTMLElement).closest<HTMLElement>('.vrow');
      if (row?.dataset.classAddress) this.select(row.dataset.classAddress);
    });
    this.body.addEventListener('keydown', (e) => this.key(e));
    this.instances = h('div', { id: 'histogram-instances', class: 'instances' });
    this.root = h(
      'div',
      { class: 'histogram' },
      h('div', { class: 'toolbar' }, h('label', null, 'Filter ', filter), this.count),
      h(
        'div',
        { class: 'vtable', id: 'histogram-table', role: 'grid', 'aria-label': 'Class histogram' },
        h('div', { class: 'vrow vhead', role: 'row' }, ...this.heads),
        this.body,
      ),
      h('p', { class: 'fine' }, 'Select a class to list its biggest objects. Retained heap is the lower bound Eclipse MAT shows before "calculate precise retained size".'),
      this.instances,
    );
    this.apply();
    new ResizeObserver(() => this.schedule()).observe(this.body);
  }

  private setFilter(text: string): void {
    this.filter = text.trim().toLowerCase();
    this.apply();
  }

  private sortBy(key: Key): void {
    if (this.sortKey === key) this.descending = !this.descending;
    else {
      this.sortKey = key;
      this.descending = COLUMNS.find((c) => c.key === key)?.num ?? false;
    }
    this.apply();
  }

  /** Filters and sorts, then redraws from the top. */
  private apply(): void {
    const f = this.filter;
    const rows = f ? this.rows.filter((r) => r.class_name.toLowerCase().includes(f)) : this.rows.slice();
    const key = this.sortKey;
    const dir = this.descending ? -1 : 1;
    const num = COLUMNS.find((c) => c.key === key)?.num;
    rows.sort((a, b) => {
      const c = num ? (a[key] as number) - (b[key] as number) : compareText(a[key] as string, b[key] as string);
      // Ties keep the report's order (by retained, then shallow, then name).
      return c !== 0 ? c * dir : (this.rank.get(a) ?? 0) - (this.rank.get(b) ?? 0);
    });
    this.view = rows;
    for (const b of this.heads) {
      const active = b.dataset.sort === key;
      b.setAttribute('aria-sort', active ? (this.descending ? 'descending' : 'ascending') : 'none');
      b.dataset.arrow = active ? (this.descending ? '▼' : '▲') : '';
    }
    let objects = 0;
    let shallow = 0;
    for (const r of rows) {
      objects += r.instances;
      shallow += r.shallow_bytes;
    }
    setText(
      this.count,
      `${formatCount(rows.length)} of ${formatCount(this.rows.length)} classes · ${formatCount(objects)} objects · ${formatCount(shallow)} bytes shallow (${formatMiB(shallow)})`,
    );
    this.count.dataset.rows = String(rows.length);
    this.spacer.style.height = `${rows.length * ROW}px`;
    this.body.scrollTop = 0;
    this.draw();
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
    const height = this.body.clientHeight || 600;
    const first = Math.max(0, Math.floor(this.body.scrollTop / ROW) - OVERSCAN);
    const last = Math.min(this.view.length, Math.ceil((this.body.scrollTop + height) / ROW) + OVERSCAN);
    const needed = last - first;
    while (this.pool.length < needed) {
      const row = h('div', { class: 'vrow', role: 'row' }, ...COLUMNS.map((c) => h('div', { class: `vcell${c.num ? ' num' : ''}`, role: 'gridcell' })));
      this.pool.push(row);
      this.body.appendChild(row);
    }
    for (let i = 0; i < this.pool.length; i++) {
      const row = this.pool[i];
      const index = first + i;
      if (index >= last) {
        row.hidden = true;
        continue;
      }
      const r = this.view[index];
      row.hidden = false;
      row.style.transform = `translateY(${index * ROW}px)`;
      row.dataset.index = String(index);
      row.dataset.classAddress = r.class_address;
      row.setAttribute('aria-rowindex', String(index + 2));
      row.setAttribute('aria-selected', String(r.class_address === this.selected));
      const cells = row.children;
      setText(cells[0], r.class_name);
      (cells[0] as HTMLElement).title = `${r.class_name} (class object @ ${r.class_address})`;
      setText(cells[1], r.loader);
      (cells[1] as HTMLElement).title = r.loader;
      setText(cells[2], formatCount(r.instances));
      setText(cells[3], formatCount(r.shallow_bytes));
      setText(cells[4], formatCount(r.retained_bytes_min));
    }
  }

  private key(e: KeyboardEvent): void {
    const page = Math.max(1, Math.floor(this.body.clientHeight / ROW) - 1);
    const moves: Record<string, number> = { ArrowDown: 1, ArrowUp: -1, PageDown: page, PageUp: -page };
    if (e.key in moves || e.key === 'Home' || e.key === 'End') {
      e.preventDefault();
      const current = this.selected ? this.view.findIndex((r) => r.class_address === this.selected) : -1;
      let next = e.key === 'Home' ? 0 : e.key === 'End' ? this.view.length - 1 : Math.max(0, current + moves[e.key]);
      next = Math.min(this.view.length - 1, next);
      if (next < 0) return;
      this.select(this.view[next].class_address);
      const top = next * ROW;
      if (top < this.body.scrollTop) this.body.scrollTop = top;
      else if (top + ROW > this.body.scrollTop + this.body.clientHeight) this.body.scrollTop = top + ROW - this.body.clientHeight;
    }
  }

  /** Selects a class and lists its biggest instances. */
  private select(classAddress: string): void {
    this.selected = classAddress;
    this.draw();
    const row = this.rows.find((r) => r.class_address === classAddress);
    if (!row) return;
    const title = h('h3', null, `Objects of ${row.class_name}`);
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
        },
        (e) => replaceChildren(this.instances, title, queryFailed(e)),
      );
    };
    more(0);
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
        [{ label: 'Object' }, { label: 'Shallow heap', num: true }, { label: 'Retained heap', num: true }],
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


/** Code-point order (fast, and the same in every locale). */
function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
