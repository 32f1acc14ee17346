// The report's sections beyond MAT's pages (heapscope analyze writes them too): the OOM
// triage that opens the overview, what the heap is made of, the dump's system properties,
// MAT's top components, and under a single suspect its path to a GC root and its dominator
// subtree. Everything from the dump (names, property texts) goes in as text.
import type { DominatorSubtree, KindCount, CompositionKind, Report, RootPath } from '../generated/report';
import { h } from '../lib/dom';
import { formatBp, formatCount } from '../lib/format';
import { className, objectLink } from '../lib/objects';
import { table } from './common';
import { foldRows } from './fold';

/** The OOM triage: the heap's shape, one leak or many, and the numbers behind them. */
export function triagePanel(r: Report): HTMLElement | null {
  const t = r.oom_triage;
  if (!t) return null;
  const row = (label: string, value: string): [string, string] => [label, value];
  return h(
    'section',
    { class: 'triage panel', id: 'oom-triage', 'data-shape': t.shape, 'data-verdict': t.verdict },
    h('h3', null, 'OOM triage'),
    h('p', null, h('strong', null, 'Shape: '), t.shape_text),
    h('p', null, h('strong', null, 'Where memory accumulates: '), t.verdict_text),
    // A leak suspect is where memory accumulates (Eclipse MAT's reading); what leaked is
    // LeakCanary's reading, in the Leaks view: the two are told apart, never mixed.
    (r.leaks?.leaks.length ?? 0) > 0
      ? h('p', { class: 'fine', id: 'triage-leaks' }, `Leak suspects are where memory accumulates, whether or not it leaked; what leaked (LeakCanary's reading: ${r.leaks!.leaks.length === 1 ? '1 leak' : `${r.leaks!.leaks.length} leaks`}) is in the Leaks view.`)
      : null,
    table('oom-triage-numbers', null, [{ label: '' }, { label: '', num: true }], [
      row('Largest top-level dominator', formatBp(t.largest_bp)),
      row('Five largest top-level dominators', formatBp(t.top5_bp)),
      row('Top-level dominators holding half the used heap', `${formatCount(t.dominators_for_half)} of ${formatCount(t.top_level_dominators)}`),
      row('Leak suspects (places they accumulate in)', `${formatCount(t.suspects)} (${formatCount(t.accumulation_points)})`),
      row('Retained by the suspects', formatBp(t.suspects_bp)),
    ]),
  );
}

const KIND_NAMES: Record<CompositionKind, string> = {
  instances: 'Instances',
  object_arrays: 'Object arrays',
  primitive_arrays: 'Primitive arrays',
  class_objects: 'Class objects',
};

/** What the used heap is made of: object kinds, packages, class loaders. */
export function compositionPanel(r: Report): HTMLElement | null {
  const c = r.heap_composition;
  if (!c) return null;
  const groups = (id: string, caption: string, what: string, rows: typeof c.packages) =>
    foldRows(table(
      id,
      caption,
      [{ label: what, name: true }, { label: 'Classes', num: true }, { label: 'Objects', num: true }, { label: 'Shallow heap', num: true }, { label: '% of heap', num: true }],
      rows.map((g) => [className(g.name), formatCount(g.classes), formatCount(g.objects), formatCount(g.shallow_bytes), formatBp(g.shallow_bp)]),
    ));
  return h(
    'section',
    { id: 'heap-composition' },
    h('h3', null, 'Heap composition'),
    table(
      'composition-kinds',
      null,
      [{ label: 'Kind' }, { label: 'Objects', num: true }, { label: 'Shallow heap', num: true }, { label: '% of heap', num: true }],
      c.kinds.map((k: KindCount) => [KIND_NAMES[k.kind], formatCount(k.objects), formatCount(k.shallow_bytes), formatBp(k.shallow_bp)]),
    ),
    groups('composition-packages', `By package (the ${formatCount(c.packages.length)} largest of ${formatCount(c.package_count)})`, 'Package', c.packages),
    groups('composition-loaders', loadersCaption(c.loaders.length, c.loader_count, r.overview.class_loaders), 'Class loader', c.loaders),
  );
}

/** The loaders' table's caption: these are the loaders that defined classes, which the
 * overview's count of class loader objects need not equal (a loader may define none). */
function loadersCaption(shown: number, defining: number, objects: number): string {
  const which = shown === defining ? `the ${formatCount(defining)}` : `the ${formatCount(shown)} largest of the ${formatCount(defining)}`;
  const of = defining === objects ? '' : `; the dump holds ${formatCount(objects)} class loader ${objects === 1 ? 'object' : 'objects'}`;
  return `By class loader (${which} that defined classes${of})`;
}

/** The dump's system properties, as MAT's System Properties page lists them. */
export function systemPropertiesPanel(r: Report): HTMLElement | null {
  const props = r.system_properties;
  if (!props) return null;
  return h(
    'section',
    { id: 'system-properties' },
    h('h3', null, 'System properties'),
    props.length
      ? foldRows(table('system-properties-table', null, [{ label: 'Key' }, { label: 'Value' }], props.map((p) => [p.key, p.value])))
      : h('p', { class: 'fine' }, "java.lang.System's properties map holds no entry."),
  );
}

/** MAT's Top Components: class loaders retaining at least 1% of the heap, with their waste. */
export function topComponentsPanel(r: Report): HTMLElement | null {
  const list = r.top_components;
  if (!list) return null;
  return h(
    'section',
    { id: 'top-components' },
    h('h3', null, 'Top components'),
    h('p', { class: 'fine' }, 'Class loaders whose top-level dominators retain at least 1% of the used heap, with what their retained set holds and the waste in it.'),
    list.length ? null : h('p', { class: 'fine' }, 'None above the threshold.'),
    ...list.map((c, i) =>
      h(
        'div',
        { class: 'component', 'data-component': String(i + 1), 'data-retained': String(c.retained_bytes) },
        h('h4', null, className(c.name), ` — ${formatBp(c.retained_bp)}`),
        h('p', null, `${formatCount(c.top_level_dominators)} top-level dominators retain ${formatCount(c.retained_bytes)} bytes (${formatCount(c.objects)} objects).`),
        foldRows(table(null, null, [{ label: 'Class', name: true }, { label: 'Objects', num: true }, { label: 'Shallow heap', num: true }], c.classes.map((k) => [className(k.class_name), formatCount(k.objects), formatCount(k.shallow_bytes)]))),
        h(
          'p',
          { class: 'fine' },
          c.waste
            ? `Waste: ${formatCount(c.waste.wasted_bytes)} bytes (${formatBp(c.waste.wasted_bp)} of the component): ${formatCount(c.waste.duplicate_strings)} duplicate strings, ${formatCount(c.waste.duplicate_arrays)} duplicate arrays, ${formatCount(c.waste.empty_collections)} empty collections.`
            : 'Waste: not known (the waste report was not made).',
        ),
      ),
    ),
  );
}

/** A single suspect's path from itself up to its GC root, and the root's type. */
export function rootPathBlock(p: RootPath | null | undefined): HTMLElement | null {
  if (!p) return null;
  const list = h('ol', { class: 'chain root-path', 'data-root-path': '' });
  const head = p.omitted > 0 ? Math.floor(p.steps.length / 2) : p.steps.length;
  p.steps.forEach((st, k) => {
    if (k === head && p.omitted > 0) list.appendChild(h('li', { class: 'omitted fine' }, `… ${formatCount(p.omitted)} more objects …`));
    const last = k === p.steps.length - 1;
    list.appendChild(
      h(
        'li',
        { 'data-address': st.object.address },
        objectLink(st.object),
        last ? ` — GC root: ${p.root_types.join(', ') || 'unknown'}` : st.held_by.length ? ` — held by ${st.held_by.join(', ')} of` : '',
      ),
    );
  });
  return h('div', null, h('h4', null, 'Why alive: path from the suspect up to its GC root'), h('p', { class: 'fine why-alive' }, p.why_alive), list);
}

/** Several levels of the dominator tree under a single suspect's accumulation point. */
export function subtreeBlock(t: DominatorSubtree | null | undefined): HTMLElement | null {
  if (!t || !t.nodes.length) return null;
  const rows = t.nodes.map((n) => [
    h('span', { class: 'indent', 'data-depth': String(n.depth) }, '\u2003'.repeat(Math.min(n.depth, 40)), objectLink(n.object)),
    formatCount(n.object.retained_bytes),
    formatBp(n.object.retained_bp),
    n.omitted_children > 0 ? `${formatCount(n.omitted_children)} retaining ${formatCount(n.omitted_retained_bytes)}` : '',
  ]);
  return h(
    'div',
    null,
    h('h4', null, `Dominator subtree (${formatCount(t.nodes.length)} objects${t.truncated ? ', within the report\'s caps' : ''})`),
    foldRows(table(null, null, [{ label: 'Object', name: true }, { label: 'Retained heap', num: true }, { label: '% of heap', num: true }, { label: 'Not listed', num: true }], rows, (i) => ({ 'data-address': t.nodes[i].object.address, 'data-depth': String(t.nodes[i].depth) }))),
  );
}
