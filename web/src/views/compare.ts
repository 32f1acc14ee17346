// The comparison view: what grew from a baseline to the open (current) dump.
//
// The user picks the baseline: a dump, analyzed in a worker of its own and reduced to its
// report (that worker, and its memory, is gone before the comparison is made), or a saved
// JSON report. The comparison itself is made by the core in the current dump's worker
// (`compare_with_baseline`, what `heapscope compare BASELINE CURRENT` runs), from the two
// reports only; its JSON draws this view and its Markdown/HTML/JSON are the exports, byte
// for byte the CLI's. The baseline is a file on the user's machine, so it is never in the
// URL: the fragment keeps the view and the class table's sort, and after a reload the view
// asks for the baseline again.
//
// The class table is virtualized (only the rows in view exist), like the histogram.
import type { Change, ChangeSide, ClassChange, Comparison } from '../generated/compare';
import type { AnalysisClient } from '../import/worker-client';
import { isJsonReport } from '../import/kind';
import { baseName, shellQuote } from '../lib/cli';
import { download } from '../lib/download';
import { h, replaceChildren, setText, type Child } from '../lib/dom';
import { formatBp, formatBytes, formatCount, formatMiB } from '../lib/format';
import { className } from '../lib/objects';
import { formatFragment, type PageState } from '../lib/state';
import { drawRows, ROW } from '../lib/virtual-rows';
import { announce } from '../lib/announce';
import type { AnalysisError, CompareFormat, CompareSort, OpenOptions, Progress } from '../protocol';
import { internalError, isAnalysisError } from '../protocol';
import { table, type DumpContext } from './common';

/** A class table column: `key` is also the fragment's `sort=` value. */
interface Column {
  key: string;
  label: string;
  num: boolean;
  title: string;
  value(r: ClassChange): number | string;
}

const num = (key: string, label: string, title: string, value: (r: ClassChange) => number): Column => ({ key, label, num: true, title, value });
const COLUMNS: Column[] = [
  { key: 'class_name', label: 'Class name', num: false, title: 'Sort by class name', value: (r) => r.class_name },
  { key: 'loader', label: 'Class loader', num: false, title: 'Sort by class loader (its name stays the same from one dump to the next)', value: (r) => r.loader },
  { key: 'status', label: 'Status', num: false, title: 'new: only in the current dump; gone: only in the baseline', value: (r) => (r.status === 'both' ? '' : r.status) },
  num('delta.instances', 'Δ Objects', 'Change in the number of objects', (r) => r.delta.instances),
  num('delta.shallow_bytes', 'Δ Shallow', 'Change in shallow heap (bytes)', (r) => r.delta.shallow_bytes),
  num('delta.retained_bytes_min', 'Δ Retained (≥)', "Change in MAT's quick retained size (a lower bound), bytes", (r) => r.delta.retained_bytes_min),
  num('current.instances', 'Objects', 'Objects in the current dump', (r) => r.current.instances),
  num('current.shallow_bytes', 'Shallow', 'Shallow heap in the current dump (bytes)', (r) => r.current.shallow_bytes),
  num('current.retained_bytes_min', 'Retained (≥)', "MAT's quick retained size in the current dump (bytes)", (r) => r.current.retained_bytes_min),
];
const DEFAULT_SORT = 'delta.retained_bytes_min';
/** The CLI's `--sort` for the columns it can sort by (their change, largest growth first). */
const CLI_SORT: Record<string, CompareSort> = { 'delta.instances': 'instances', 'delta.shallow_bytes': 'shallow', 'delta.retained_bytes_min': 'retained' };

/** A saved report bigger than this is not one (reports stay small whatever the dump). */
const MAX_REPORT_BYTES = 256 * 2 ** 20;

/** "+1,024", "-512", "0", as the CLI's growth report writes a change. */
export function signed(n: number): string {
  return n > 0 ? `+${formatCount(n)}` : n < 0 ? `-${formatCount(-n)}` : '0';
}

function signedBp(bp: number): string {
  return bp > 0 ? `+${formatBp(bp)}` : bp < 0 ? `-${formatBp(-bp)}` : formatBp(0);
}

/** A leader's or suspect's status in the CLI's words: new, grown by X bytes (+Y%), unchanged… */
export function changeStatus(c: Change): string {
  switch (c.status) {
    case 'new':
      return 'new';
    case 'unchanged':
      return 'unchanged';
    default: {
      // A suspect no more that is still there: its change is what matters.
      const grownGone = c.status === 'gone' && c.current && c.delta_retained_bytes !== 0;
      if (c.status === 'gone' && !grownGone) return 'no longer a suspect';
      const verb = c.delta_retained_bytes > 0 ? 'grown' : 'shrunk';
      const bytes = formatCount(Math.abs(c.delta_retained_bytes));
      const under = grownGone ? '; under 10% of the heap now' : '';
      return c.growth_bp === null || c.growth_bp === undefined ? `${verb} by ${bytes} bytes${under}` : `${verb} by ${bytes} bytes (${signedBp(c.growth_bp)})${under}`;
    }
  }
}

function retained(s: ChangeSide | null | undefined): string {
  return s ? `${formatCount(s.retained_bytes)} (${formatBp(s.retained_bp)})` : '—';
}

/** Where the application holds a leader's or suspect's memory (`com.acme.OrderService.ORDERS`), the
 * current side's name else the baseline's. */
export function heldIn(c: Change): string | null {
  return c.current?.held_in ?? c.baseline?.held_in ?? null;
}

/** The accumulation point (or, with a `held_in`, its entries) and its element count on both sides
 * ("byte[]: 400,000 → 1,000,000", "entries: 50 → 150"). */
export function elements(c: Change): string {
  const point = heldIn(c) !== null ? 'entries' : ((c.current ?? c.baseline)?.accumulation_point ?? null);
  const b = c.baseline?.accumulation_point_elements ?? null;
  const n = c.current?.accumulation_point_elements ?? null;
  // "entries" with no count says nothing.
  if (point === null || (point === 'entries' && b === null && n === null)) return '';
  if (b !== null && n !== null) return `${point}: ${formatCount(b)} → ${formatCount(n)}`;
  if (n !== null) return `${point}: ${formatCount(n)}`;
  if (b !== null) return `${point}: ${formatCount(b)} before`;
  return point;
}

export class CompareView {
  readonly root: HTMLElement;
  private readonly input: HTMLInputElement;
  private readonly intro: HTMLElement;
  private readonly progress: HTMLElement;
  private readonly error: HTMLElement;
  private readonly result: HTMLElement;
  /** "Release this dump's memory while the baseline is analyzed" (only with the dump). */
  private readonly release: HTMLElement | null;
  private released = false;
  /** The baseline report's JSON (kept for the exports) and its file. */
  private baseline: { json: string; name: string } | null = null;
  private comparison: Comparison | null = null;
  private run: { cancel(): void } | null = null;
  /** Bumped by every new baseline: a superseded run's outcome is ignored. */
  private generation = 0;
  /** Report loader label → the comparison's stable name, for the links into the histogram. */
  private loaderNames: Promise<Record<string, string>> | null = null;
  private sortKey = DEFAULT_SORT;
  private descending = true;
  private filter = '';
  private changedOnly = false;
  private rows: ClassChange[] = [];
  private rank = new Map<ClassChange, number>();
  private view: ClassChange[] = [];
  private pool: HTMLElement[] = [];
  private frame = 0;
  private cursor = -1;
  private selected: ClassChange | null = null;
  private table: {
    body: HTMLElement;
    spacer: HTMLElement;
    count: HTMLElement;
    heads: HTMLButtonElement[];
    cells: HTMLElement[];
    details: HTMLElement;
    cli: HTMLElement;
  } | null = null;

  constructor(
    private readonly ctx: DumpContext,
    private readonly client: AnalysisClient,
    /** How a baseline dump is opened (with the current dump's mapping, if one was applied). */
    private readonly options: () => Promise<OpenOptions>,
    /** The ProGuard/R8 mapping applied to the current dump, if any. */
    mappingName: string | null,
    /** Frees the current dump's worker (its graph), keeping its report for the comparison. */
    private readonly releaseDump: () => Promise<void>,
    /** Opens the current dump's histogram on a class (its report row's address). */
    private readonly revealClass: (className: string, classAddress: string) => void,
  ) {
    this.input = h('input', { id: 'compare-input', type: 'file', class: 'visually-hidden', tabindex: -1, 'aria-hidden': 'true', accept: '.hprof,.gz,.hprof.gz,.json,application/gzip,application/json,application/octet-stream' });
    this.input.addEventListener('change', () => {
      const file = this.input.files?.[0];
      this.input.value = '';
      if (file) void this.compareWith(file);
    });
    const choose = h('button', { type: 'button', id: 'compare-choose' }, 'Choose a baseline…');
    choose.addEventListener('click', () => this.choose());
    this.intro = h(
      'div',
      { id: 'compare-intro', class: 'panel note' },
      h('p', null, h('strong', null, 'What grew since an earlier dump? '), `Choose a baseline: a heap dump of the same program taken earlier (.hprof or .hprof.gz, HotSpot or Android), or a JSON report saved from one. It is compared with ${ctx.report.source.file_name ?? ctx.fileName}, as heapscope compare BASELINE CURRENT does.`),
      h('p', { class: 'fine' }, 'A baseline dump is analyzed in a worker of its own and reduced to its report, then that worker and its memory are released; nothing is uploaded. The baseline is a file on this machine, so it is not part of the page\'s address: after a reload the view and the sort are kept, and you choose the baseline again.'),
      mappingName ? h('p', { class: 'fine', id: 'compare-mapping' }, `A baseline dump is deobfuscated with the mapping applied to this one (${mappingName}); a saved report keeps the names it was saved with.`) : null,
      h('div', { class: 'actions' }, choose, this.input),
    );
    this.release = ctx.hasDump
      ? h(
          'label',
          { class: 'fine compare-release' },
          h('input', { type: 'checkbox', id: 'compare-release' }),
          ' Release this dump\'s memory before a baseline dump is analyzed, so the two dumps are never in memory together (for dumps too big for that; the dominator tree, treemap, classes up, inspector and paths then need this dump dropped again).',
        )
      : null;
    this.intro.append(h('p', null, this.release));
    this.progress = h('div', { id: 'compare-progress', class: 'panel', hidden: true, role: 'status' });
    this.error = h('div', { id: 'compare-error', class: 'panel error', hidden: true, role: 'alert' });
    this.result = h('div', { id: 'compare-result', hidden: true });
    this.root = h('div', { class: 'compare', 'data-state': 'idle' }, this.intro, this.progress, this.error, this.result);
  }

  /** Whether the current dump (not only its report) is still there. */
  private get hasDump(): boolean {
    return this.ctx.hasDump && !this.released;
  }

  /** Opens the file picker for the baseline. */
  choose(): void {
    this.input.click();
  }

  /** Stops a baseline still being analyzed (a new current dump was opened). */
  close(): void {
    this.generation++;
    this.run?.cancel();
    this.run = null;
  }

  /** Follows the fragment's sort (the view is shown). */
  show(state: PageState): void {
    const key = state.sort && COLUMNS.some((c) => c.key === state.sort) ? state.sort : DEFAULT_SORT;
    const col = COLUMNS.find((c) => c.key === key)!;
    const descending = state.order ? state.order === 'desc' : col.num;
    if (key !== this.sortKey || descending !== this.descending) {
      this.sortKey = key;
      this.descending = descending;
      if (this.comparison) this.apply();
    }
    this.schedule();
  }

  private setState(state: 'idle' | 'running' | 'done' | 'error'): void {
    this.root.dataset.state = state;
  }

  /** Reads the baseline (a dump in its own worker, or a saved report) and compares. */
  private async compareWith(file: File): Promise<void> {
    this.close();
    const generation = this.generation;
    const current = (): boolean => generation === this.generation;
    this.error.hidden = true;
    this.setState('running');
    try {
      let json: string;
      if (await isJsonReport(file)) {
        this.showProgress(file, 'Reading the saved report', null);
        if (file.size > MAX_REPORT_BYTES) throw { kind: 'format', offset: null, message: 'too big for a heapscope JSON report', text: 'too big for a heapscope JSON report' } satisfies AnalysisError;
        json = await file.text();
        await this.client.request({ kind: 'check-report', text: json }).catch((e: unknown) => {
          throw withInput(file.name, e);
        });
      } else {
        this.showProgress(file, 'Analyzing the baseline', null);
        if (!this.released && this.release?.querySelector('input')?.checked) {
          this.showProgress(file, 'Releasing this dump\'s memory', null);
          await this.releaseDump();
          this.released = true;
          replaceChildren(this.release, 'This dump\'s memory was released: only its report is kept.');
          this.showProgress(file, 'Analyzing the baseline', null);
        }
        const options = await this.options();
        if (!current()) return;
        const run = this.client.analyzeApart(file, options, { onProgress: (p) => current() && this.showProgress(file, 'Analyzing the baseline', p) });
        this.run = run;
        json = await run.report.catch((e: unknown) => {
          throw withInput(file.name, e);
        });
        this.run = null;
      }
      if (!current()) return;
      this.showProgress(file, 'Comparing', null);
      const text = await this.client.request({ kind: 'compare', baseline: json, format: 'json', sort: 'retained' });
      if (!current()) return;
      this.baseline = { json, name: file.name };
      this.comparison = JSON.parse(text ?? 'null') as Comparison;
      this.progress.hidden = true;
      this.render();
      this.setState('done');
      announce(`Compared with ${file.name}: ${formatCount(this.comparison.classes_changed)} of ${formatCount(this.comparison.classes_total)} classes changed, ${this.comparison.leaders.length} growth leaders.`);
    } catch (e) {
      if (!current()) return;
      this.run = null;
      this.progress.hidden = true;
      const error = isAnalysisError(e) ? e : internalError(String(e));
      if (error.kind === 'cancelled') {
        this.setState(this.comparison ? 'done' : 'idle');
        announce(`Cancelled analyzing ${file.name}.`);
        return;
      }
      this.showError(error, file);
      this.setState('error');
    }
  }

  private showProgress(file: File, what: string, p: Progress | null): void {
    const cancel = h('button', { type: 'button', class: 'secondary', id: 'compare-cancel' }, 'Cancel');
    cancel.addEventListener('click', () => this.run?.cancel());
    const total = p?.bytesTotal ?? file.size;
    const done = p ? Math.min(p.bytesDone, total) : 0;
    replaceChildren(
      this.progress,
      h('p', null, h('strong', null, `${what}: `), file.name, p ? ` — ${p.phase}` : ''),
      p ? h('progress', { id: 'compare-progress-bar', max: total || 1, value: String(done), 'aria-label': `${what}: ${file.name}` }) : null,
      p ? h('p', { class: 'fine' }, `${formatBytes(done)} of ${formatBytes(total)} read · ${formatCount(p.objects)} objects · worker memory ${formatMiB(p.memoryBytes)}`) : null,
      this.run ? cancel : null,
    );
    this.progress.dataset.phase = p?.phase ?? what;
    this.progress.hidden = false;
  }

  private showError(error: AnalysisError, file: File): void {
    replaceChildren(
      this.error,
      h('h3', null, `Cannot compare with ${file.name}`),
      h('p', { id: 'compare-error-message', class: 'message' }, error.text || error.message),
      h('p', { class: 'fine' }, 'The current dump is still open; choose another baseline.'),
    );
    this.error.dataset.kind = error.kind;
    this.error.hidden = false;
  }

  /** Draws the comparison: sides, notes, exports, totals, leaders, suspects, classes. */
  private render(): void {
    const c = this.comparison!;
    const side = (s: Comparison['baseline']): string =>
      `${s.file_name ?? 'heap dump'} (${s.format}, ${s.platform}, ${s.id_size}-byte ids${s.complete ? '' : ', incomplete'})`;
    const again = h('button', { type: 'button', class: 'secondary', id: 'compare-again' }, 'Choose another baseline…');
    again.addEventListener('click', () => this.choose());
    this.intro.hidden = true;
    const exports = (['json', 'md', 'html'] as const).map((format) => {
      const label = { json: 'Export comparison JSON', md: 'Export Markdown', html: 'Export HTML' }[format];
      const b = h('button', { type: 'button', class: 'secondary', id: `compare-export-${format}` }, label);
      b.addEventListener('click', () => void this.export(format, b));
      return b;
    });
    const cli = h('code', { id: 'compare-cli' });
    this.rows = c.classes;
    this.rank = new Map(c.classes.map((r, i) => [r, i]));
    this.selected = null;
    replaceChildren(
      this.result,
      h('p', { id: 'compare-sides' }, h('strong', null, 'Baseline: '), side(c.baseline), h('br'), h('strong', null, 'Current: '), side(c.current)),
      ...c.warnings.map((w) => h('div', { class: 'panel warn compare-warning' }, h('p', null, h('strong', null, 'Note. '), w))),
      // What grew, first: the answer before the exports and the tables behind it.
      h('h3', null, 'Growth leaders'),
      c.leaders.length
        ? h('p', { class: 'fine' }, 'The top-level objects and leak suspects that account for most of the growth in retained size.')
        : h('p', { class: 'fine', id: 'compare-no-leaders' }, 'No growth leaders: nothing grew in retained size.'),
      c.leaders.length ? this.changes('compare-leaders', c.leaders, true) : null,
      h('div', { class: 'exports', role: 'group', 'aria-label': 'Export the comparison' }, ...exports, again, this.input),
      this.release ? h('p', null, this.release) : null,
      h('p', { class: 'fine' }, 'The exports are what ', cli, ' writes.'),
      h('h3', null, 'Totals'),
      scroll(this.totals(c)),
      h('h3', null, 'Leak suspects, then and now'),
      c.suspects.length ? this.changes('compare-suspects', c.suspects, false) : h('p', { class: 'fine' }, 'Neither side has leak suspects.'),
      h('h3', null, 'Classes'),
      this.classTable(c, cli),
    );
    this.result.hidden = false;
    this.root.dataset.classes = String(c.classes_total);
    this.apply();
  }

  private totals(c: Comparison): HTMLElement {
    const { baseline: b, current: n, delta: d } = c.totals;
    const rows: [string, string, number, number, number][] = [
      ['objects', 'Objects', b.objects, n.objects, d.objects],
      ['used_heap_bytes', 'Used heap (bytes)', b.used_heap_bytes, n.used_heap_bytes, d.used_heap_bytes],
      ['classes', 'Classes', b.classes, n.classes, d.classes],
      ['class_loaders', 'Class loaders', b.class_loaders, n.class_loaders, d.class_loaders],
      ['gc_roots', 'GC roots', b.gc_roots, n.gc_roots, d.gc_roots],
      ...b.gc_roots_by_type.map((r, i): [string, string, number, number, number] => [`gc_roots.${r.name}`, `GC roots: ${r.name}`, r.objects, n.gc_roots_by_type[i]?.objects ?? 0, d.gc_roots_by_type[i]?.objects ?? 0]),
      ['unreachable_objects', 'Unreachable objects discarded', b.unreachable_objects, n.unreachable_objects, d.unreachable_objects],
      ['unreachable_shallow_bytes', 'Unreachable bytes discarded', b.unreachable_shallow_bytes, n.unreachable_shallow_bytes, d.unreachable_shallow_bytes],
    ];
    return table(
      'compare-totals',
      null,
      [{ label: '' }, { label: 'Baseline', num: true }, { label: 'Current', num: true }, { label: 'Change', num: true }],
      rows.map(([, label, x, y, z]) => [label, formatCount(x), formatCount(y), signed(z)]),
      (i) => ({ 'data-total': rows[i][0], 'data-delta': String(rows[i][4]) }),
    );
  }

  private changes(id: string, list: Change[], share: boolean): HTMLElement {
    const what = (c: Change): Child => {
      const held = heldIn(c);
      // Named where the application holds it (the class beside it when that says more).
      const text = c.kind === 'group_of_objects' ? `${formatCount((c.current ?? c.baseline)?.instances ?? 0)} instances of ${c.class_name}` : held ?? c.class_name;
      const classLine = c.kind !== 'group_of_objects' && held !== null && held !== c.class_name ? c.class_name : null;
      const loader = c.loader ? ` (loader ${c.loader})` : '';
      const address = c.current?.address;
      // A single object of the current dump opens in its inspector (named by where it is
      // held: no value beside it).
      const name: Child = address && this.hasDump
        ? h('a', { href: formatFragment({ view: 'inspector', object: address }), class: 'obj', 'data-address': address, 'data-no-value': '', title: `${text} — ${c.class_name} @ ${address} (open in the inspector)` }, className(text, false))
        : className(text);
      // The path from a GC root that matched the object on both sides, as the command line
      // prints it (when it is more than the object itself).
      const path = (c.reference_path?.length ?? 0) > 1
        ? h('div', { class: 'fine mono ref-path', 'data-reference-path': '' }, c.reference_path!.map((p) => `${p.class_name}${p.via.length ? ` .${p.via.join('/')}` : ''}`).join(' → '))
        : null;
      return h('div', null, name, loader, classLine ? h('div', { class: 'fine' }, classLine) : null, path);
    };
    const columns = [{ label: 'What', name: true }, { label: 'Status' }, { label: 'Baseline retained', num: true }, { label: 'Current retained', num: true }, { label: 'Change', num: true }];
    if (share) columns.push({ label: 'Share of growth', num: true });
    columns.push({ label: 'Accumulation point or entries' });
    const t = table(
      id,
      null,
      columns,
      list.map((c) => [what(c), changeStatus(c), retained(c.baseline), retained(c.current), signed(c.delta_retained_bytes), ...(share ? [c.share_of_growth_bp === null || c.share_of_growth_bp === undefined ? '' : formatBp(c.share_of_growth_bp)] : []), elements(c)]),
      (i) => ({ 'data-class': list[i].class_name, 'data-status': list[i].status, 'data-delta': String(list[i].delta_retained_bytes) }),
    );
    t.classList.add('changes');
    return t;
  }

  private classTable(c: Comparison, cli: HTMLElement): HTMLElement {
    const filter = h('input', { id: 'compare-filter', type: 'search', placeholder: 'name contains…', autocomplete: 'off', spellcheck: 'false', 'aria-label': 'Filter classes by name' });
    filter.value = this.filter;
    let timer = 0;
    filter.addEventListener('input', () => {
      window.clearTimeout(timer);
      timer = window.setTimeout(() => {
        this.filter = filter.value.trim().toLowerCase();
        this.apply();
      }, 80);
    });
    const changed = h('input', { id: 'compare-changed', type: 'checkbox' });
    changed.checked = this.changedOnly;
    changed.addEventListener('change', () => {
      this.changedOnly = changed.checked;
      this.apply();
    });
    const count = h('span', { id: 'compare-count', class: 'fine', 'aria-live': 'polite' });
    const heads = COLUMNS.map((col) => {
      const b = h('button', { type: 'button', class: `sort${col.num ? ' num' : ''}`, 'data-sort': col.key, title: col.title }, col.label);
      b.addEventListener('click', () => this.sortBy(col.key));
      return b;
    });
    const cells = heads.map((b, i) => h('div', { class: `vcell head${COLUMNS[i].num ? ' num' : ''}`, role: 'columnheader' }, b));
    const spacer = h('div', { class: 'vspacer', 'aria-hidden': 'true' });
    const body = h('div', { class: 'vbody', id: 'compare-body', tabindex: 0, role: 'rowgroup', 'aria-label': 'Classes: arrow keys move, the selected class shows its numbers below' }, spacer);
    body.addEventListener('scroll', () => this.schedule(), { passive: true });
    body.addEventListener('click', (e) => {
      const row = (e.target as HTMLElement).closest<HTMLElement>('.vrow');
      if (row?.dataset.index) this.select(Number(row.dataset.index));
    });
    body.addEventListener('keydown', (e) => this.key(e));
    const details = h('div', { id: 'compare-class', class: 'compare-class' });
    this.pool = [];
    this.table = { body, spacer, count, heads, cells, details, cli };
    new ResizeObserver(() => this.schedule()).observe(body);
    return h(
      'div',
      { class: 'compare-classes' },
      h('p', { class: 'fine' }, `${formatCount(c.classes_changed)} of ${formatCount(c.classes_total)} classes changed. A class is its name and its class loader: the same name in two loaders is two rows. Δ is current minus baseline.`),
      h('div', { class: 'toolbar' }, h('label', null, 'Filter ', filter), h('label', null, changed, ' only classes that changed'), count),
      h(
        'div',
        { class: 'vscroll' },
        h('div', { class: 'vtable', id: 'compare-table', role: 'grid', 'aria-label': 'Classes compared' }, h('div', { class: 'vrow vhead', role: 'row', 'aria-rowindex': 1 }, ...cells), body),
      ),
      details,
    );
  }

  private sortBy(key: string): void {
    const col = COLUMNS.find((c) => c.key === key)!;
    const descending = key === this.sortKey ? !this.descending : col.num;
    // The fragment keeps the sort; the store calls `show`, which sorts.
    this.ctx.store.set({ sort: key === DEFAULT_SORT && descending ? undefined : key, order: descending === col.num ? undefined : descending ? 'desc' : 'asc' });
  }

  /** Filters and sorts the class rows, then redraws from the top. */
  private apply(): void {
    const t = this.table;
    if (!t) return;
    const f = this.filter;
    const rows = this.rows.filter(
      (r) => (!f || r.class_name.toLowerCase().includes(f)) && (!this.changedOnly || r.status !== 'both' || r.delta.instances !== 0 || r.delta.shallow_bytes !== 0 || r.delta.retained_bytes_min !== 0),
    );
    const col = COLUMNS.find((c) => c.key === this.sortKey)!;
    const dir = this.descending ? -1 : 1;
    rows.sort((a, b) => {
      const x = col.value(a);
      const y = col.value(b);
      const d = typeof x === 'number' ? x - (y as number) : x < y ? -1 : x > y ? 1 : 0;
      // Ties keep the comparison's order (the CLI's: by retained change, then current retained, name, loader).
      return d !== 0 ? d * dir : (this.rank.get(a) ?? 0) - (this.rank.get(b) ?? 0);
    });
    this.view = rows;
    t.heads.forEach((b, i) => {
      const active = COLUMNS[i].key === this.sortKey;
      t.cells[i].setAttribute('aria-sort', active ? (this.descending ? 'descending' : 'ascending') : 'none');
      b.dataset.arrow = active ? (this.descending ? '▼' : '▲') : '';
    });
    t.body.parentElement?.setAttribute('aria-rowcount', String(rows.length + 1));
    setText(t.count, `${formatCount(rows.length)} of ${formatCount(this.rows.length)} classes`);
    t.count.dataset.rows = String(rows.length);
    t.spacer.style.height = `${rows.length * ROW}px`;
    t.body.scrollTop = 0;
    this.cursor = -1;
    setText(t.cli, this.cliCommand('json'));
    this.draw();
  }

  /** The CLI's `--sort` for the table's sort, when it has one (else the default, retained). */
  private cliSort(): CompareSort {
    return (this.descending && CLI_SORT[this.sortKey]) || 'retained';
  }

  private cliCommand(format: CompareFormat): string {
    const sort = this.cliSort();
    const current = this.ctx.report.source.file_name ?? this.ctx.fileName;
    return `heapscope compare ${shellQuote(this.baseline?.name ?? 'BASELINE')} ${shellQuote(current)}${sort === 'retained' ? '' : ` --sort ${sort}`} --format ${format}`;
  }

  private async export(format: CompareFormat, button: HTMLButtonElement): Promise<void> {
    if (!this.baseline || !this.comparison) return;
    button.disabled = true;
    try {
      const text = await this.client.request({ kind: 'compare', baseline: this.baseline.json, format, sort: this.cliSort() });
      const current = this.ctx.report.source.file_name ?? this.ctx.fileName;
      const type = { json: 'application/json', md: 'text/markdown', html: 'text/html' }[format];
      download(text ?? '', `${baseName(this.baseline.name)}-to-${baseName(current)}.compare.${format}`, type);
    } catch (e) {
      this.showError(isAnalysisError(e) ? e : internalError(String(e)), new File([], this.baseline.name));
    } finally {
      button.disabled = false;
    }
  }

  /** Redraws on the next frame (after a scroll, a resize, or the view becoming visible). */
  schedule(): void {
    if (this.frame || !this.table) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.draw();
    });
  }

  private draw(): void {
    const t = this.table;
    if (!t) return;
    drawRows(t.body, this.pool, this.view.length, COLUMNS.map((c) => c.num), (row, index) => {
      const r = this.view[index];
      row.dataset.class = r.class_name;
      row.dataset.loader = r.loader;
      row.dataset.status = r.status;
      row.setAttribute('aria-selected', String(r === this.selected));
      COLUMNS.forEach((col, j) => {
        const v = col.value(r);
        const cell = row.children[j] as HTMLElement;
        // Names whole, cut from the left when the column is narrow (the whole in the title).
        if (typeof v !== 'number' && j < 2) replaceChildren(cell, className(v, false));
        else setText(cell, typeof v === 'number' ? (col.key.startsWith('delta.') ? signed(v) : formatCount(v)) : v);
        cell.dataset.value = String(v);
        cell.title = j < 2 ? String(v) : '';
      });
    });
    const active = document.activeElement;
    if (this.cursor >= 0 && active instanceof HTMLElement && active !== t.body && t.body.contains(active) && active.dataset.index !== String(this.cursor)) this.focusCursor();
  }

  private key(e: KeyboardEvent): void {
    const t = this.table!;
    const page = Math.max(1, Math.floor(t.body.clientHeight / ROW) - 1);
    const moves: Record<string, number> = { ArrowDown: 1, ArrowUp: -1, PageDown: page, PageUp: -page };
    if (!(e.key in moves || e.key === 'Home' || e.key === 'End')) return;
    e.preventDefault();
    if (!this.view.length) return;
    const current = this.cursor >= 0 ? this.cursor : this.selected ? this.view.indexOf(this.selected) : -1;
    let next = e.key === 'Home' ? 0 : e.key === 'End' ? this.view.length - 1 : current < 0 ? 0 : current + moves[e.key];
    next = Math.max(0, Math.min(this.view.length - 1, next));
    const top = next * ROW;
    if (top < t.body.scrollTop) t.body.scrollTop = top;
    else if (top + ROW > t.body.scrollTop + t.body.clientHeight) t.body.scrollTop = top + ROW - t.body.clientHeight;
    this.select(next);
    this.focusCursor();
  }

  private focusCursor(): void {
    const row = this.pool.find((r) => !r.hidden && r.dataset.index === String(this.cursor));
    row?.focus({ preventScroll: true });
  }

  /** Selects the row at `index` and shows its numbers on both sides, with its links. */
  private select(index: number): void {
    const r = this.view[index];
    if (!r) return;
    this.cursor = index;
    this.selected = r;
    this.draw();
    const t = this.table!;
    const both = (label: string, b: number, n: number, d: number): HTMLElement =>
      h('tr', null, h('th', { scope: 'row' }, label), h('td', { class: 'num' }, formatCount(b)), h('td', { class: 'num' }, formatCount(n)), h('td', { class: 'num' }, signed(d)));
    const links = h('p', { class: 'compare-links' });
    replaceChildren(
      t.details,
      h('h4', null, r.class_name, h('span', { class: 'fine' }, ` · loader ${r.loader}${r.status === 'both' ? '' : ` · ${r.status}`}`)),
      h(
        'table',
        { class: 'data', id: 'compare-class-numbers' },
        h('thead', null, h('tr', null, h('th', { scope: 'col' }, ''), h('th', { scope: 'col', class: 'num' }, 'Baseline'), h('th', { scope: 'col', class: 'num' }, 'Current'), h('th', { scope: 'col', class: 'num' }, 'Change'))),
        h(
          'tbody',
          null,
          both('Objects', r.baseline.instances, r.current.instances, r.delta.instances),
          both('Shallow heap', r.baseline.shallow_bytes, r.current.shallow_bytes, r.delta.shallow_bytes),
          both('Retained heap (≥)', r.baseline.retained_bytes_min, r.current.retained_bytes_min, r.delta.retained_bytes_min),
        ),
      ),
      links,
    );
    if (r.status === 'gone') {
      replaceChildren(links, 'Gone: the current dump has no such class.');
      return;
    }
    void this.currentRow(r).then((row) => {
      if (this.selected !== r) return;
      if (!row) return replaceChildren(links, 'This class is not in the current report\'s histogram.');
      const toHistogram = h('a', { href: formatFragment({ view: 'histogram', object: null }), id: 'compare-to-histogram' }, 'Show in the histogram');
      toHistogram.addEventListener('click', (e) => {
        e.preventDefault();
        this.revealClass(row.class_name, row.class_address);
      });
      replaceChildren(
        links,
        toHistogram,
        this.hasDump ? ' (with its biggest objects) · ' : ' · ',
        this.hasDump ? h('a', { href: formatFragment({ view: 'inspector', object: row.class_address }), class: 'obj', 'data-address': row.class_address, id: 'compare-to-inspector' }, 'Inspect the class object') : 'the class object needs the dump',
      );
    });
  }

  /** The current report's histogram row of a class row (same name, same stable loader name). */
  private async currentRow(r: ClassChange): Promise<{ class_name: string; class_address: string } | null> {
    this.loaderNames ??= this.client.request({ kind: 'loader-names' }).then((json) => JSON.parse(json ?? '{}') as Record<string, string>);
    const names = await this.loaderNames.catch(() => ({}) as Record<string, string>);
    return this.ctx.report.histogram.find((x) => classKey(x.class_name) === r.class_name && (names[x.loader] ?? x.loader) === r.loader) ?? null;
  }
}

/** A class name as the comparison's rows name it (the core's `compare::hidden::class_key`): a hidden
 * class without its address (`Foo$$Lambda$14+0x7f…` → `Foo$$Lambda$14`), a proxy without its
 * counters (`jdk.proxy2.$Proxy12` → `jdk.proxy.$Proxy`). */
export function classKey(name: string): string {
  const base = name.replace(/(\[\])+$/, '');
  const dims = name.slice(base.length);
  let key = base.replace(/[+/.]0x[0-9a-fA-F]+$/, '');
  const proxy = /^(?:(.*)\.)?\$Proxy\d+$/.exec(key);
  if (proxy) {
    const pkg = proxy[1] === undefined ? '' : /^jdk\.proxy\d+$/.test(proxy[1]) ? 'jdk.proxy' : proxy[1];
    key = pkg === '' ? '$Proxy' : `${pkg}.$Proxy`;
  }
  return key + dims;
}

/** A wide table in a box that scrolls sideways (the page itself never does). */
function scroll(el: HTMLElement): HTMLElement {
  return h('div', { class: 'table-scroll' }, el);
}

/** An error reading one side, named as the CLI names it: "FILE: at byte N (0x…): …" for a
 * format error or one at an offset, the bare message otherwise. */
function withInput(name: string, e: unknown): AnalysisError {
  const error = isAnalysisError(e) ? e : internalError(String(e));
  if (error.kind !== 'format' && error.offset === null) return error;
  return { ...error, text: `${name}: ${error.text || error.message}` };
}
