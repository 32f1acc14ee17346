// Waste: memory that holds nothing new (report.waste), one tab per kind: duplicate
// strings (and, where the report has them, duplicate arrays, empty collections, boxed
// numbers, allocation sites). Each kind is a table sortable by every column; a duplicate
// string or array group opens into its members, each with what holds it
// (duplicate_string_members / duplicate_array_members queries, which read the dump). The kind, the sort and the open group live in the URL
// fragment (#view=waste&kind=strings&sort=-count&dup=0x…). Values come from the dump:
// text only.
import type { AllocationSite, AllocationSites, ArrayGroup, BoxedNumbers, CollectionWaste, ObjectRef, Report, StringGroup } from '../generated/report';
import type { ArrayGroupMembers, GroupMembers } from '../generated/query';
import { h, replaceChildren, type Child } from '../lib/dom';
import { formatBp, formatBytes, formatCount } from '../lib/format';
import { navigableRows } from '../lib/keyboard';
import { objectLink } from '../lib/objects';
import type { PageState } from '../lib/state';
import { loading, queryFailed, type DumpContext } from './common';

/** Members listed per page of an open group, and holders per member. */
const MEMBERS = 20;
const HOLDERS = 5;

interface Col<R> {
  key: string;
  label: string;
  num?: boolean;
  title?: string;
  value: (r: R) => number | string;
  cell?: (r: R) => Child;
}

interface Kind<R> {
  id: string;
  title: string;
  /** One sentence with the kind's totals. */
  summary: string;
  rows: R[];
  columns: Col<R>[];
  /** The default sort: a column key, "-" first for descending. */
  sort: string;
  /** The key naming an open row in the URL (rows that open). */
  openKey?: (r: R) => string | null;
  details?: (r: R, box: HTMLElement) => void;
  rowData?: (r: R) => Record<string, string>;
  empty: string;
}

/** Everything the report's waste section may hold, new kinds included (optional). */
type WasteSection = NonNullable<Report['waste']>;

function bytesCell(n: number): Child {
  return h('span', { title: `${formatCount(n)} bytes` }, formatCount(n));
}

function compare(a: number | string, b: number | string): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return String(a).localeCompare(String(b));
}

export class WasteView {
  readonly root: HTMLElement;
  private readonly kinds: Kind<any>[];
  private readonly tabs: HTMLButtonElement[];
  private readonly panel: HTMLElement;
  private state: { kind: string; sort: string | null; group: string | null } = { kind: '', sort: null, group: null };
  private drawn = '';

  constructor(private readonly ctx: DumpContext) {
    const w = ctx.report.waste;
    this.kinds = w ? this.kindsOf(w, ctx.report.allocation_sites ?? null) : [];
    this.panel = h('div', { class: 'waste-panel', role: 'tabpanel', id: 'waste-panel' });
    this.tabs = this.kinds.map((k) =>
      h('button', { type: 'button', role: 'tab', id: `waste-tab-${k.id}`, 'data-kind': k.id, 'aria-controls': 'waste-panel', 'aria-selected': 'false', tabindex: -1 }, k.title),
    );
    this.tabs.forEach((t, i) => {
      t.addEventListener('click', () => ctx.store.set({ kind: this.kinds[i].id, sort: undefined, dup: undefined }));
      t.addEventListener('keydown', (e) => {
        const d = e.key === 'ArrowRight' ? 1 : e.key === 'ArrowLeft' ? -1 : 0;
        if (!d) return;
        e.preventDefault();
        const next = (i + d + this.tabs.length) % this.tabs.length;
        ctx.store.set({ kind: this.kinds[next].id, sort: undefined, dup: undefined });
        this.tabs[next].focus();
      });
    });
    this.root = w
      ? h(
          'div',
          { class: 'waste' },
          h(
            'p',
            { id: 'waste-total', 'data-value': w.total_wasted_bytes },
            h('strong', null, `${formatBytes(w.total_wasted_bytes)} wasted`),
            ` (${formatCount(w.total_wasted_bytes)} bytes): what holding each duplicated value once and allocating collections only when used would save, all kinds together.`,
          ),
          h('div', { class: 'subtabs', role: 'tablist', 'aria-label': 'Kinds of waste' }, ...this.tabs),
          this.panel,
        )
      : h('p', null, 'This report has no waste section (it was written by an older heapscope).');
  }

  /** Shows the kind, sort and open group of the URL. */
  show(s: PageState): void {
    if (!this.kinds.length) return;
    const kind = this.kinds.find((k) => k.id === s.kind) ?? this.kinds[0];
    this.state = { kind: kind.id, sort: s.sort ?? null, group: s.dup ?? null };
    this.tabs.forEach((t, i) => {
      const on = this.kinds[i] === kind;
      t.setAttribute('aria-selected', String(on));
      t.tabIndex = on ? 0 : -1;
    });
    this.panel.setAttribute('aria-labelledby', `waste-tab-${kind.id}`);
    const key = `${kind.id}|${this.state.sort}|${this.state.group}`;
    if (key === this.drawn) return;
    this.drawn = key;
    this.draw(kind);
  }

  private draw<R>(kind: Kind<R>): void {
    // The table is redrawn: the focus goes back to the same toggle or sort button.
    const focused = document.activeElement instanceof HTMLElement && this.panel.contains(document.activeElement) ? document.activeElement : null;
    const again = focused?.dataset.open ? `button[data-open="${focused.dataset.open}"]` : focused?.dataset.sort ? `th button[data-sort="${focused.dataset.sort}"]` : null;
    const sort = kind.columns.some((c) => c.key === (this.state.sort ?? '').replace(/^-/, '')) ? (this.state.sort as string) : kind.sort;
    const desc = sort.startsWith('-');
    const col = kind.columns.find((c) => c.key === sort.replace(/^-/, '')) as Col<R>;
    const order = new Map(kind.rows.map((r, i) => [r, i]));
    const rows = [...kind.rows].sort((a, b) => compare(col.value(a), col.value(b)) * (desc ? -1 : 1) || (order.get(a) ?? 0) - (order.get(b) ?? 0));
    const head = h(
      'tr',
      null,
      ...kind.columns.map((c) => {
        const active = c === col;
        const b = h('button', { type: 'button', class: `sort${c.num ? ' num' : ''}`, 'data-sort': c.key, title: c.title ?? `Sort by ${c.label.toLowerCase()}` }, c.label, active ? h('span', { 'aria-hidden': 'true' }, desc ? ' ▼' : ' ▲') : null);
        // A column sorts descending first when it is a number.
        b.addEventListener('click', () => this.ctx.store.set({ sort: active ? (desc ? c.key : `-${c.key}`) : c.num ? `-${c.key}` : c.key, dup: this.state.group ?? undefined }));
        return h('th', { scope: 'col', class: c.num ? 'num' : null, 'aria-sort': active ? (desc ? 'descending' : 'ascending') : 'none' }, b);
      }),
    );
    const body = h('tbody', null);
    for (const r of rows) {
      const open = kind.openKey?.(r) ?? null;
      const isOpen = open !== null && open === this.state.group;
      const cells = kind.columns.map((c, j) => {
        const content = c.cell ? c.cell(r) : String(c.value(r));
        if (j > 0 || open === null) return h('td', { class: c.num ? 'num' : null }, content);
        const toggle = h('button', { type: 'button', class: 'toggle', 'data-open': open, 'aria-expanded': String(isOpen), 'aria-label': isOpen ? 'Close this group' : 'Open this group: its members and what holds them' }, isOpen ? '▾' : '▸');
        toggle.addEventListener('click', () => this.ctx.store.set({ dup: isOpen ? undefined : open }));
        return h('td', { class: 'opens' }, toggle, content);
      });
      body.append(h('tr', kind.rowData ? kind.rowData(r) : null, ...cells));
      if (isOpen && kind.details) {
        const box = h('div', { class: 'group-details' });
        body.append(h('tr', { class: 'detail-row', tabindex: -1 }, h('td', { colspan: kind.columns.length }, box)));
        kind.details(r, box);
      }
    }
    navigableRows(body);
    replaceChildren(
      this.panel,
      h('p', { class: 'fine waste-summary' }, kind.summary),
      rows.length
        ? h('div', { class: 'table-scroll' }, h('table', { class: 'data waste-table', id: `waste-${kind.id}`, 'data-rows': rows.length }, h('thead', null, head), body))
        : h('p', { class: 'placeholder' }, kind.empty),
    );
    if (again) this.panel.querySelector<HTMLElement>(again)?.focus();
  }

  /** The kinds the report has (an older report has duplicate strings only). */
  private kindsOf(w: WasteSection, sites: AllocationSites | null): Kind<any>[] {
    const kinds: Kind<any>[] = [this.strings(w)];
    if (w.duplicate_arrays) kinds.push(this.arrays(w.duplicate_arrays));
    if (w.empty_collections) kinds.push(this.collections(w.empty_collections));
    if (w.boxed) kinds.push(this.boxed(w.boxed));
    if (sites) kinds.push(this.sites(sites));
    return kinds;
  }

  /** An open row that lists the first objects of its kind (the report's sample). */
  private sample(what: string): (r: { sample: ObjectRef[] }, box: HTMLElement) => void {
    return (r, box) =>
      replaceChildren(box, h('p', { class: 'fine' }, `The first ${what} by address (open one in the inspector to see what holds it):`), h('ul', { class: 'plain sample' }, ...r.sample.map((o) => h('li', null, objectLink(o)))));
  }

  private arrays(d: NonNullable<WasteSection['duplicate_arrays']>): Kind<ArrayGroup> {
    return {
      id: 'arrays',
      title: 'Duplicate arrays',
      summary: `${formatCount(d.arrays)} primitive arrays (not backing a string) hold ${formatCount(d.distinct_contents)} distinct contents; ${formatCount(d.duplicated_contents)} contents are held by two or more arrays, wasting ${formatCount(d.wasted_bytes)} bytes (${formatBytes(d.wasted_bytes)}). ${formatCount(d.all_zero_arrays)} arrays (${formatCount(d.all_zero_bytes)} bytes) hold only zeros.`,
      rows: d.groups,
      sort: '-wasted_bytes',
      columns: [
        { key: 'class_name', label: 'Class', value: (g) => g.class_name },
        { key: 'length', label: 'Length', num: true, value: (g) => g.length, cell: (g) => formatCount(g.length) },
        { key: 'count', label: 'Count', num: true, title: 'Arrays with these contents', value: (g) => g.count, cell: (g) => formatCount(g.count) },
        { key: 'wasted_bytes', label: 'Wasted', num: true, title: 'All the arrays but one', value: (g) => g.wasted_bytes, cell: (g) => bytesCell(g.wasted_bytes) },
        { key: 'array_shallow_bytes', label: 'Each', num: true, title: 'Shallow bytes of one array', value: (g) => g.array_shallow_bytes, cell: (g) => bytesCell(g.array_shallow_bytes) },
        { key: 'preview', label: 'Contents', value: (g) => g.preview, cell: (g) => h('span', { class: 'mono preview' }, g.all_zero ? h('strong', null, 'all zero ') : null, g.preview) },
      ],
      openKey: (g) => g.sample[0]?.address ?? null,
      rowData: (g) => ({ 'data-class': g.class_name, 'data-count': String(g.count), 'data-wasted': String(g.wasted_bytes), 'data-first': g.sample[0]?.address ?? '' }),
      details: (g, box) => this.members(g.sample, box, 'arrays', 'arrays of these contents', (at, n) => this.ctx.q.duplicateArrayMembers(g.sample[0].address, at, n, HOLDERS)),
      empty: 'No two primitive arrays hold the same contents.',
    };
  }

  private collections(rows: CollectionWaste[]): Kind<CollectionWaste> {
    const empty = rows.reduce((n, r) => n + r.empty, 0);
    const wasted = rows.reduce((n, r) => n + r.wasted_bytes, 0);
    return {
      id: 'collections',
      title: 'Empty collections',
      summary: `${formatCount(empty)} collections are empty but have allocated their backing array, wasting ${formatCount(wasted)} bytes (${formatBytes(wasted)}). Fill ratio: size over capacity of the non-empty ones, on average, as Eclipse MAT's collection fill ratio.`,
      rows,
      sort: '-wasted_bytes',
      columns: [
        { key: 'class_name', label: 'Class', value: (r) => r.class_name },
        { key: 'kind', label: 'Read as', value: (r) => r.kind },
        { key: 'total', label: 'Instances', num: true, value: (r) => r.total, cell: (r) => formatCount(r.total) },
        { key: 'empty', label: 'Empty', num: true, title: 'Size 0 with a backing array', value: (r) => r.empty, cell: (r) => formatCount(r.empty) },
        { key: 'wasted_bytes', label: 'Wasted', num: true, title: 'The empty ones\u2019 backing arrays', value: (r) => r.wasted_bytes, cell: (r) => bytesCell(r.wasted_bytes) },
        { key: 'fill_ratio_bp', label: 'Fill ratio', num: true, value: (r) => r.fill_ratio_bp, cell: (r) => (r.non_empty ? formatBp(r.fill_ratio_bp) : '–') },
        { key: 'unused_slot_bytes', label: 'Unused slots', num: true, title: 'Bytes of the non-empty ones\u2019 slots beyond their size', value: (r) => r.unused_slot_bytes, cell: (r) => bytesCell(r.unused_slot_bytes) },
      ],
      openKey: (r) => (r.sample.length ? r.sample[0].address : null),
      rowData: (r) => ({ 'data-class': r.class_name, 'data-empty': String(r.empty), 'data-wasted': String(r.wasted_bytes) }),
      details: this.sample('empty ones with a backing array'),
      empty: 'No collection of the classes heapscope reads (ArrayList, HashMap, …) is kept in this dump.',
    };
  }

  private boxed(rows: BoxedNumbers[]): Kind<BoxedNumbers> {
    const wasted = rows.reduce((n, r) => n + r.wasted_bytes, 0);
    return {
      id: 'boxed',
      title: 'Boxed numbers',
      summary: `Boxed primitives (Integer, Long, Double, …) by class; one instance per value would save ${formatCount(wasted)} bytes (${formatBytes(wasted)}).`,
      rows,
      sort: '-wasted_bytes',
      columns: [
        { key: 'class_name', label: 'Class', value: (r) => r.class_name },
        { key: 'count', label: 'Instances', num: true, value: (r) => r.count, cell: (r) => formatCount(r.count) },
        { key: 'shallow_bytes', label: 'Shallow', num: true, value: (r) => r.shallow_bytes, cell: (r) => bytesCell(r.shallow_bytes) },
        { key: 'distinct_values', label: 'Distinct values', num: true, value: (r) => r.distinct_values, cell: (r) => formatCount(r.distinct_values) },
        { key: 'wasted_bytes', label: 'Wasted', num: true, title: 'Instances beyond one per value', value: (r) => r.wasted_bytes, cell: (r) => bytesCell(r.wasted_bytes) },
        { key: 'top', label: 'Most held values', value: (r) => r.top_values[0]?.count ?? 0, cell: (r) => h('span', { class: 'mono' }, r.top_values.map((v) => `${v.value} ×${formatCount(v.count)}`).join(', ')) },
      ],
      rowData: (r) => ({ 'data-class': r.class_name, 'data-count': String(r.count), 'data-wasted': String(r.wasted_bytes) }),
      empty: 'This dump keeps no boxed numbers.',
    };
  }

  private sites(s: AllocationSites): Kind<AllocationSite> {
    return {
      id: 'sites',
      title: 'Allocation sites',
      summary: s.recorded
        ? `${formatCount(s.objects)} objects (${formatCount(s.shallow_bytes)} bytes) carry the stack they were allocated at, in ${formatCount(s.distinct_sites)} distinct sites (by their top frames); ${formatCount(s.objects_without_site)} objects have none.`
        : 'This dump recorded no allocation sites (HotSpot heap dumps never do; Android dumps do with allocation tracking on).',
      rows: s.sites,
      sort: '-shallow_bytes',
      columns: [
        { key: 'frames', label: 'Allocated at (top frames)', value: (r) => r.frames[0] ?? '', cell: (r) => h('div', { class: 'mono site-frames' }, ...r.frames.map((f) => h('div', null, f))) },
        { key: 'objects', label: 'Objects', num: true, value: (r) => r.objects, cell: (r) => formatCount(r.objects) },
        { key: 'shallow_bytes', label: 'Shallow', num: true, value: (r) => r.shallow_bytes, cell: (r) => bytesCell(r.shallow_bytes) },
        { key: 'classes', label: 'Classes allocated', value: (r) => r.classes[0]?.class_name ?? '', cell: (r) => r.classes.map((c) => `${c.class_name} (${formatCount(c.objects)})`).join(', ') },
      ],
      empty: s.recorded ? 'No site.' : 'This dump recorded no allocation sites.',
    };
  }

  private strings(w: WasteSection): Kind<StringGroup> {
    const d = w.duplicate_strings;
    return {
      id: 'strings',
      title: 'Duplicate strings',
      summary: `${formatCount(d.strings)} strings hold ${formatCount(d.distinct_values)} distinct values; ${formatCount(d.duplicated_values)} values are held by two or more strings, wasting ${formatCount(d.wasted_bytes)} bytes (${formatBytes(d.wasted_bytes)}). The ${formatCount(d.groups.length)} groups wasting the most, as Eclipse MAT groups them (values cut at 1,024 characters).`,
      rows: d.groups,
      sort: '-wasted_bytes',
      columns: [
        { key: 'value', label: 'Value', value: (g) => g.value, cell: (g) => (g.value === '' ? h('em', null, '(empty string)') : h('span', { class: 'string-value mono', title: g.value.length > 200 ? `${g.value.slice(0, 200)}…` : g.value }, g.value)) },
        { key: 'count', label: 'Count', num: true, title: 'Strings holding the value', value: (g) => g.count, cell: (g) => formatCount(g.count) },
        { key: 'wasted_bytes', label: 'Wasted', num: true, title: 'All the strings and their distinct value arrays but one', value: (g) => g.wasted_bytes, cell: (g) => bytesCell(g.wasted_bytes) },
        { key: 'strings_shallow_bytes', label: 'Strings\u2019 bytes', num: true, title: 'Shallow bytes of the String objects', value: (g) => g.strings_shallow_bytes, cell: (g) => bytesCell(g.strings_shallow_bytes) },
        { key: 'arrays_shallow_bytes', label: 'Arrays\u2019 bytes', num: true, title: 'Shallow bytes of the distinct value arrays', value: (g) => g.arrays_shallow_bytes, cell: (g) => bytesCell(g.arrays_shallow_bytes) },
        { key: 'distinct_arrays', label: 'Distinct arrays', num: true, value: (g) => g.distinct_arrays, cell: (g) => formatCount(g.distinct_arrays) },
      ],
      openKey: (g) => g.sample[0]?.address ?? null,
      rowData: (g) => ({ 'data-value': g.value, 'data-count': String(g.count), 'data-wasted': String(g.wasted_bytes), 'data-first': g.sample[0]?.address ?? '' }),
      details: (g, box) => this.members(g.sample, box, 'strings', 'strings of this value', (at, n) => this.ctx.q.duplicateStringMembers(g.sample[0].address, at, n, HOLDERS)),
      empty: 'No string value is held by two strings.',
    };
  }

  /** An open duplicate group: its members by address (`sample`, the report's first ones,
   * without the dump), each with what holds it, a page at a time from `fetch`. */
  private members(sample: ObjectRef[], box: HTMLElement, noun: string, of: string, fetch: (offset: number, limit: number) => Promise<GroupMembers | ArrayGroupMembers>): void {
    if (!sample.length) return;
    if (!this.ctx.hasDump) {
      replaceChildren(box, h('p', { class: 'fine' }, `The first ${noun} of the group (the dump is needed to list them all and what holds them):`), h('ul', { class: 'plain' }, ...sample.map((o) => h('li', null, objectLink(o)))));
      return;
    }
    const list = h('ol', { class: 'group-members' });
    const status = h('div', null, loading(`Reading the group's ${noun} back from the dump…`));
    replaceChildren(box, list, status);
    const page = (offset: number): void => {
      fetch(offset, MEMBERS).then(
        (m) => {
          if (offset === 0) list.dataset.total = String(m.total);
          list.append(...m.members.map((x) => this.member(x)));
          list.dataset.shown = String(list.children.length);
          const rest = m.total - (m.offset + m.members.length);
          const more = rest > 0 ? h('button', { type: 'button', class: 'link more' }, `Show ${formatCount(Math.min(MEMBERS, rest))} more (${formatCount(rest)} left)`) : null;
          more?.addEventListener('click', () => {
            replaceChildren(status, loading());
            page(m.offset + m.members.length);
          });
          replaceChildren(status, h('p', { class: 'fine' }, `${formatCount(list.children.length)} of the ${formatCount(m.total)} ${of}, by address (the first is the one not counted as waste), each with the objects referencing it (← holder and field).`), more);
        },
        (e) => replaceChildren(status, queryFailed(e)),
      );
    };
    page(0);
  }

  /** One member of an open group, on one line: what holds it, and by which field. */
  private member(x: GroupMembers['members'][number]): HTMLElement {
    const more = x.holders_total - x.holders.length;
    const holders: Child[] = [];
    x.holders.forEach((hd, i) => {
      if (i > 0) holders.push('; ');
      holders.push(objectLink(hd.object), hd.via.length ? h('span', { class: 'via-field' }, ` ${hd.via.join(', ')}`) : null);
    });
    return h(
      'li',
      { 'data-address': x.object.address, 'data-holders': x.holders_total },
      objectLink(x.object),
      h('span', { class: 'held-by' }, x.holders_total === 0 ? ' — held by a GC root only' : ' ← '),
      ...holders,
      more > 0 ? h('span', { class: 'fine' }, ` and ${formatCount(more)} more`) : null,
    );
  }
}
