// heapscope's page: wires the file inputs, the worker client and the views together.
//
// A dropped dump is analyzed in a worker (wasm): the report comes back as the core's JSON
// and every view is drawn from it (overview, histogram, suspects, consumers) or from the
// worker's answers about the dump (dominator tree, treemap, inspector, path). A dropped
// JSON report opens without its dump: the views that need the dump say so.
import type { Report } from './generated/report';
import { AnalysisClient, CANCELLED } from './import/worker-client';
import { wireFileInputs } from './import/drop';
import { fetchSample } from './import/sample';
import { isJsonReport } from './import/kind';
import { baseName } from './lib/cli';
import { announce } from './lib/announce';
import { byId, h, replaceChildren, setText } from './lib/dom';
import { download } from './lib/download';
import { formatBytes, formatDuration, formatMiB, formatOffset, formatRate } from './lib/format';
import { registerServiceWorker } from './lib/offline';
import { Queries } from './lib/queries';
import { StateStore, type PageState, type ViewId } from './lib/state';
import { installTrustedTypesPolicy } from './lib/trusted-types';
import { internalError, isAnalysisError, type AnalysisError, type OpenOptions, type Opened } from './protocol';
import type { DumpContext } from './views/common';
import { DominatorTreeView } from './views/dominators';
import { hideError, nothingReadable, showError, showNothingReadable, viewFailed } from './views/error';
import { HistogramView } from './views/histogram';
import { ClassesUpView } from './views/classes-up';
import { CompareView } from './views/compare';
import { InspectorView, PathView } from './views/inspector';
import { MergePathsView } from './views/merge-paths';
import { ValueDecorator } from './lib/values';
import { renderOverview } from './views/overview';
import { confirmReplace } from './views/replace';
import { ProgressView } from './views/progress';
import { onTabClick, renderShell, setMode, setNotice, setVersion, showResultsFrame, showView, viewBody } from './views/shell';
import { renderConsumers, renderSuspects } from './views/suspects';
import { LeaksView } from './views/leaks';
import { ThreadsView } from './views/threads';
import { TreemapView } from './views/treemap';
import { WasteView } from './views/waste';
import { setTreeStatus, treeSwitch, type Tree } from './views/strength';

installTrustedTypesPolicy();
renderShell(byId('app'));
registerServiceWorker();

const store = new StateStore();
const client = new AnalysisClient();
client.onVersion(setVersion);
const progress = new ProgressView(() => client.cancel());

/** The views of the open dump or report (null before the first one). A view that failed
 * to draw is null: its tab shows the error, the others work. */
interface Open {
  ctx: DumpContext;
  histogram: HistogramView | null;
  dominators: DominatorTreeView | null;
  treemap: TreemapView | null;
  inspector: InspectorView | null;
  path: PathView | null;
  merge: MergePathsView | null;
  classes: ClassesUpView | null;
  compare: CompareView | null;
  threads: ThreadsView | null;
  leaks: LeaksView | null;
  waste: WasteView | null;
  values: ValueDecorator | null;
  /** The file and what the worker answered, to redraw after a mapping is applied. */
  file: File;
  opened: Opened;
  mappingName: string | null;
  mapping: File | null;
  /** The dominator tree the report and the views are in. */
  tree: Tree;
}
let open: Open | null = null;

/** Increases with every file, so a superseded run's outcome is ignored. */
let runId = 0;

/** `?fail-view=ID` in the address makes view ID fail as it is drawn, as a bug would: what
 * the page does then (that view shows the error, the others work) can be seen and tested. */
const failView = new URLSearchParams(location.search).get('fail-view');

/** Draws view `id` with `draw`; an error inside it is shown in that view alone (an error
 * boundary per view: one view's bug never takes the others, or the dump, down). */
function guard<T>(id: ViewId, draw: () => T): T | null {
  try {
    if (failView === id) throw new Error(`a failure simulated by fail-view=${id} in the address`);
    return draw();
  } catch (e) {
    replaceChildren(viewBody(id), viewFailed(e));
    return null;
  }
}

/**
 * `?memory-limit=BYTES` simulates a device with less memory (it can only lower the limit);
 * `?sizes=mat` analyzes in Eclipse MAT's sizes (as the CLI's `--sizes mat`) instead of the JVM's.
 */
function openOptions(): OpenOptions {
  const params = new URLSearchParams(location.search);
  const limit = Number(params.get('memory-limit'));
  const options: OpenOptions = Number.isFinite(limit) && limit > 0 ? { memoryLimit: limit } : {};
  if (params.get('sizes') === 'mat') options.sizes = 'mat';
  return options;
}

/**
 * A ProGuard/R8 mapping file: text named *.txt or *.map (any name when it was chosen with
 * Mapping…) whose first line that is not a comment maps a class (`original.Name ->
 * obfuscated:`). Anything else is opened as a dump, so a stray text file gets the dump
 * reader's error naming the byte.
 */
async function isMapping(file: File, anyName = false): Promise<boolean> {
  if (!anyName && !/\.(txt|map)$/i.test(file.name)) return false;
  const head = await file.slice(0, 64 << 10).text().catch(() => '');
  const first = head.split('\n').map((l) => l.trim()).find((l) => l !== '' && !l.startsWith('#'));
  return first !== undefined && /^\S+ -> \S+:$/.test(first);
}

/** Files dropped or chosen together: a dump (or report), a mapping, or both. */
async function openFiles(files: File[]): Promise<void> {
  const kinds = await Promise.all(files.map((f) => isMapping(f)));
  const mapping = files.find((_, i) => kinds[i]) ?? null;
  const dump = files.find((_, i) => !kinds[i]) ?? null;
  if (dump) return openFile(dump, mapping);
  if (mapping) return applyMapping(mapping);
}

/** Deobfuscates the loaded dump's names with `file` and redraws every view. */
async function applyMapping(file: File): Promise<void> {
  hideError();
  if (!open || !open.ctx.hasDump) {
    const text = `${file.name} looks like a ProGuard/R8 mapping file: drop it with its heap dump, or after the dump is analyzed.`;
    showError({ kind: 'io', offset: null, message: text, text }, null);
    return;
  }
  const o = open;
  try {
    const reportJson = await o.ctx.q.applyMapping(await file.text());
    if (open !== o) return;
    // The user's filter stays (the names it finds may change with the mapping).
    const filter = o.histogram?.filterText() ?? '';
    showResults(o.file, { ...o.opened, reportJson }, file.name, file);
    open?.histogram?.keepFilter(filter);
    announce(`Names deobfuscated with ${file.name}.`);
  } catch (e) {
    showError(isAnalysisError(e) ? e : internalError(String(e)), file);
  }
}

/** Files opened since the page loaded: the URL fragment belongs to the first (a reload
 * returns there once the dump is dropped again); every later file starts clean. */
let filesOpened = 0;

async function openFile(file: File, mapping: File | null = null, snapshot: number | null = null): Promise<void> {
  const id = ++runId;
  // A new dump starts from a clean state: its first view, no selection, nothing open or
  // filtered (the views are made anew for it).
  if (filesOpened++ > 0) store.reset();
  hideError();
  setNotice(null);
  open?.compare?.close();
  showResultsFrame(false);
  setMode('running');
  const report = await isJsonReport(file).catch(() => false);
  const mappingText = mapping && !report ? await mapping.text().catch(() => null) : null;
  if (id !== runId) return;
  progress.start(file.name, file.size, report ? 'Opening the report' : 'Analyzing');
  try {
    const options: OpenOptions = mappingText === null ? openOptions() : { ...openOptions(), mapping: mappingText };
    if (snapshot !== null) options.snapshot = snapshot;
    const opened = report
      ? await client.openReport(file)
      : await client.open(file, options, { onProgress: (p) => id === runId && progress.update(p) });
    if (id !== runId) return;
    progress.stop();
    const parsed = JSON.parse(opened.reportJson) as Report;
    if (nothingReadable(parsed)) {
      // Cut before its first heap record: the error and what was read, not empty views.
      showNothingReadable(parsed, file);
      setMode('error');
      return;
    }
    // A dump with leaks opens on them (unless the link named another view).
    if (store.get().view === 'overview' && (parsed.leaks?.leaks.length ?? 0) > 0) store.set({ view: 'leaks' });
    showResults(file, opened, mappingText === null ? null : mapping!.name, mappingText === null ? null : mapping);
    setMode('done');
    announce(`${file.name}: ${opened.hasDump ? 'analysis done' : 'report opened'}. The overview and the other views are below.`);
  } catch (e) {
    if (id !== runId) return;
    progress.stop();
    const error: AnalysisError = isAnalysisError(e) ? e : internalError(String(e));
    if (error.kind === 'cancelled' && error === CANCELLED) {
      setNotice(`Cancelled analyzing ${file.name}. Ready for the next file.`);
      setMode('idle');
    } else {
      showError(error, file);
      setMode('error');
    }
  }
}

/**
 * For a file holding several heap-dump snapshots (the JDK's hprof agent writes one per
 * request): which one is shown, and a choice to analyze another (the file is read again).
 */
function snapshotChooser(file: File, mapping: File | null, count: number, current: number): HTMLElement {
  const options = Array.from({ length: count }, (_, i) => {
    const value = String(i + 1);
    const option = h('option', { value }, `snapshot ${value} of ${count}`);
    option.selected = i + 1 === current;
    return option;
  });
  const select = h('select', { id: 'snapshot-select', 'aria-label': 'Heap-dump snapshot to analyze' }, ...options);
  const button = h('button', { type: 'button', id: 'snapshot-analyze' }, 'Analyze this snapshot');
  button.addEventListener('click', () => confirmReplace(`Analyze snapshot ${select.value}`, () => void openFile(file, mapping, Number(select.value))));
  return h('span', { id: 'snapshots', 'data-count': String(count), 'data-current': String(current) }, `This file holds ${count} heap-dump snapshots; snapshot ${current} is shown. `, select, ' ', button);
}

function showResults(file: File, opened: Opened, mappingName: string | null = null, mapping: File | null = null): void {
  const report = JSON.parse(opened.reportJson) as Report;
  const ctx: DumpContext = {
    report,
    reportJson: opened.reportJson,
    fileName: file.name,
    mappingName,
    hasDump: opened.hasDump,
    q: new Queries(client, report.tree ?? 'mat'),
    store,
  };
  const tree: Tree = report.tree ?? 'mat';
  treeSwitch(byId('tree-choice'), tree, opened.hasDump, (t) => store.set({ tree: t === 'strength' ? 'strength' : undefined }));
  const title = byId('dump-title');
  setText(title, report.source.file_name ?? file.name);
  title.title = report.source.file_name ?? file.name;
  const runFacts = byId('run-facts');
  if (opened.hasDump) {
    setText(runFacts, `Analyzed in ${formatDuration(opened.seconds)} (${formatBytes(report.source.hprof_bytes)} of HPROF data read twice, ${formatRate(report.source.hprof_bytes / Math.max(opened.seconds, 1e-3))}); the worker used ${formatMiB(opened.memoryBytes)} of memory.`);
    runFacts.dataset.seconds = String(opened.seconds);
    runFacts.dataset.memoryBytes = String(opened.memoryBytes);
    if (mappingName) runFacts.append(` Class and field names deobfuscated with ${mappingName}.`);
  } else {
    setText(runFacts, `A saved report (${formatBytes(file.size)} of JSON, written by ${report.tool}).`);
    delete runFacts.dataset.seconds;
    delete runFacts.dataset.memoryBytes;
  }
  const snapshots = opened.hasDump ? report.dump.snapshots ?? 0 : 0;
  const snapshotNote = byId('snapshot-note');
  snapshotNote.hidden = snapshots <= 1;
  replaceChildren(snapshotNote, snapshots > 1 ? snapshotChooser(file, mapping, snapshots, report.dump.snapshot ?? snapshots) : null);
  byId('mapping-button').hidden = !opened.hasDump;
  const reportOnly = byId('report-only');
  reportOnly.hidden = opened.hasDump;
  replaceChildren(
    reportOnly,
    opened.hasDump
      ? null
      : `This is a saved report, opened without its dump: the overview, histogram, leak suspects and top consumers are all here; the dominator tree, treemap, inspector and path need the dump${report.source.file_name ? ` (${report.source.file_name})` : ''}.`,
  );
  const incomplete = byId('incomplete');
  const inc = report.incomplete;
  incomplete.hidden = !inc;
  incomplete.dataset.offset = inc ? String(inc.offset) : '';
  replaceChildren(
    incomplete,
    inc
      ? h(
          'p',
          null,
          h('strong', null, 'Incomplete dump. '),
          'Reading stopped at byte ',
          h('span', { class: 'mono', id: 'incomplete-offset' }, formatOffset(inc.offset)),
          ' of the HPROF data: ',
          h('span', { id: 'incomplete-message' }, inc.message),
          '. Everything below covers the records before that point (the file was probably cut off while it was written or copied).',
        )
      : null,
  );
  byId('dump-lost').hidden = true;

  open?.compare?.close();
  open?.values?.stop();
  const mount = <V extends { root: HTMLElement }>(id: ViewId, make: () => V): V | null =>
    guard(id, () => {
      const v = make();
      replaceChildren(viewBody(id), v.root);
      return v;
    });
  guard('overview', () => replaceChildren(viewBody('overview'), renderOverview(ctx)));
  const histogram = mount('histogram', () => new HistogramView(ctx));
  const leaks = mount('leaks', () => new LeaksView(ctx));
  guard('suspects', () => replaceChildren(viewBody('suspects'), renderSuspects(ctx)));
  guard('consumers', () => replaceChildren(viewBody('consumers'), renderConsumers(ctx)));
  const threads = mount('threads', () => new ThreadsView(ctx));
  const waste = mount('waste', () => new WasteView(ctx));
  const dominators = mount('dominators', () => new DominatorTreeView(ctx));
  const classes = mount('classes', () => new ClassesUpView(ctx));
  const treemap = mount('treemap', () => new TreemapView(ctx));
  const inspector = mount('inspector', () => new InspectorView(ctx));
  const path = mount('path', () => new PathView(ctx));
  const merge = mount('merge', () => new MergePathsView(ctx));
  // A baseline dump of the same program is deobfuscated with the same mapping.
  const baselineOptions = async (): Promise<OpenOptions> => (mapping ? { ...openOptions(), mapping: await mapping.text() } : openOptions());
  const compare = mount(
    'compare',
    () =>
      new CompareView(ctx, client, baselineOptions, mapping?.name ?? null, () => releaseDump(ctx, file), (name, address) => {
        histogram?.reveal(name, address);
        store.set({ view: 'histogram' });
      }),
  );
  const values = opened.hasDump ? new ValueDecorator(ctx.q, byId('results')) : null;
  open = { ctx, histogram, dominators, treemap, inspector, path, merge, classes, compare, threads, leaks, waste, values, file, opened, mappingName, mapping, tree };
  showResultsFrame(true);
  update(store.get());
}

/**
 * Frees the worker holding the dump (its graph) and keeps the report in a fresh worker, for
 * a comparison whose baseline dump should never be in memory beside this one. The views that
 * read the dump then say that it is needed again.
 */
async function releaseDump(ctx: DumpContext, file: File): Promise<void> {
  client.closeDump();
  await client.openReport(new File([ctx.reportJson], `${baseName(file.name)}.json`, { type: 'application/json' }));
  const box = byId('dump-lost');
  replaceChildren(
    box,
    h('p', null, h('strong', null, 'This dump\'s memory was released for the comparison. '), 'Only its report is kept: the overview, histogram, leak suspects, top consumers, the comparison and the exports still work; drop the dump again to explore it.'),
  );
  box.hidden = false;
}

/** Shows the state's view and lets it catch up with the selected object. */
function update(state: PageState): void {
  showView(state);
  if (!open || byId('results').hidden) return;
  const wanted: Tree = state.tree ?? 'mat';
  if (open.ctx.hasDump && wanted !== open.tree) {
    void switchTree(open, wanted);
    return;
  }
  const o = open;
  guard(state.view, () => {
    switch (state.view) {
      case 'histogram':
        o.histogram?.schedule();
        break;
      case 'dominators':
        o.dominators?.show(state.object);
        break;
      case 'treemap':
        o.treemap?.show(state.object);
        break;
      case 'inspector':
        o.inspector?.show(state.object);
        break;
      case 'path':
        o.path?.show(state.object);
        break;
      case 'merge':
        o.merge?.show(state.object);
        break;
      case 'classes':
        o.classes?.show(state.rows ?? []);
        break;
      case 'compare':
        o.compare?.show(state);
        break;
      case 'threads':
        o.threads?.show(state.threads ?? []);
        break;
      case 'leaks':
        o.leaks?.show(state.leak ?? null);
        break;
      case 'waste':
        o.waste?.show(state);
        break;
      default:
        break;
    }
  });
}

/** The tree being switched to, while the worker computes it. */
let switching: Tree | null = null;

/** Makes `tree` the dominator tree of the open dump: the worker switches (computing the
 * strength-aware tree the first time), and every view is drawn again from the report in
 * that reading. */
async function switchTree(o: Open, tree: Tree): Promise<void> {
  if (switching === tree) return;
  switching = tree;
  setTreeStatus(tree === 'strength' ? 'Computing the strength-aware tree…' : "Switching to MAT's tree…");
  try {
    const reportJson = await o.ctx.q.setTree(tree);
    if (open !== o) return;
    const filter = o.histogram?.filterText() ?? '';
    showResults(o.file, { ...o.opened, reportJson }, o.mappingName, o.mapping);
    open?.histogram?.keepFilter(filter);
    announce(tree === 'strength' ? 'The views now show the strength-aware dominator tree.' : "The views now show Eclipse MAT's dominator tree.");
  } catch (e) {
    setTreeStatus('');
    showError(isAnalysisError(e) ? e : internalError(String(e)), null);
    store.set({ tree: o.tree === 'strength' ? 'strength' : undefined });
  } finally {
    switching = null;
  }
}

client.onDumpLost((error) => {
  const box = byId('dump-lost');
  replaceChildren(
    box,
    h('p', null, h('strong', null, 'The worker holding this dump stopped. '), h('span', { id: 'dump-lost-message' }, error.text || error.message)),
    h('p', { class: 'fine' }, 'The overview, histogram, leak suspects, top consumers and the JSON export still work; drop the file again to explore the dump, or drop another file.'),
  );
  box.hidden = false;
});

byId('export-json').addEventListener('click', () => {
  if (!open) return;
  download(open.ctx.reportJson, `${baseName(open.ctx.report.source.file_name ?? open.ctx.fileName)}.json`, 'application/json');
});

/** The Markdown and HTML exports: rendered by the core in the worker, as the CLI does. */
function wireRenderedExport(id: string, render: (q: Queries) => Promise<string>, extension: string, type: string): void {
  const button = byId<HTMLButtonElement>(id);
  button.addEventListener('click', async () => {
    if (!open) return;
    const o = open;
    button.disabled = true;
    try {
      const text = await render(o.ctx.q);
      download(text, `${baseName(o.ctx.report.source.file_name ?? o.ctx.fileName)}.${extension}`, type);
    } catch (e) {
      showError(isAnalysisError(e) ? e : internalError(String(e)), null);
    } finally {
      button.disabled = false;
    }
  });
}
wireRenderedExport('export-markdown', (q) => q.markdown(), 'md', 'text/markdown');
wireRenderedExport('export-html', (q) => q.html(), 'html', 'text/html');
// The Markdown report with its bars, sparklines and trees (heapscope analyze -f md-graphs).
wireRenderedExport('export-md-graphs', (q) => q.markdownGraphs(), 'graphs.md', 'text/markdown');

/** Files dropped on the page: a dump replacing an open analysis asks first, as the buttons
 * do (a mapping alone only renames the open one). */
async function droppedFiles(files: File[]): Promise<void> {
  const kinds = await Promise.all(files.map((f) => isMapping(f)));
  const dump = files.find((_, i) => !kinds[i]);
  if (dump && byId('main').dataset.mode === 'done') confirmReplace(`Analyze ${dump.name}`, () => void openFiles(files));
  else await openFiles(files);
}

wireFileInputs({ picker: byId<HTMLInputElement>('file-input'), zone: byId('main'), onFiles: (f) => void openFiles(f), onDrop: (f) => void droppedFiles(f) });
const chooseFile = (): void => confirmReplace('Open another dump', () => byId<HTMLInputElement>('file-input').click());
byId('choose-button').addEventListener('click', chooseFile);
byId('open-button').addEventListener('click', chooseFile);
byId('compare-button').addEventListener('click', () => {
  if (!open) return;
  store.set({ view: 'compare' });
  open.compare?.choose();
});
const mappingInput = byId<HTMLInputElement>('mapping-input');
byId('mapping-button').addEventListener('click', () => mappingInput.click());
mappingInput.addEventListener('change', () => {
  const file = mappingInput.files?.[0];
  mappingInput.value = '';
  if (file) void chosenAsMapping(file);
});

/** A file chosen with Mapping…: a mapping renames the open dump; anything else (a heap
 * dump, a saved report chosen there by mistake) is opened as the files dropped are. */
async function chosenAsMapping(file: File): Promise<void> {
  if (await isMapping(file, true)) await applyMapping(file);
  else await droppedFiles([file]);
}

const sampleButton = byId<HTMLButtonElement>('sample-button');
sampleButton.addEventListener('click', () => confirmReplace('Analyze the sample', () => void analyzeSample()));
async function analyzeSample(): Promise<void> {
  sampleButton.disabled = true;
  try {
    await openFile(await fetchSample());
  } catch (e) {
    const text = e instanceof Error ? e.message : String(e);
    showError({ kind: 'io', offset: null, message: text, text }, null);
    setMode('error');
  } finally {
    sampleButton.disabled = false;
  }
}

onTabClick((view) => store.set({ view }));
store.subscribe(update);
showView(store.get());
