// The overview: the verdict first (what the dump shows, in a sentence or two) and the OOM
// triage (the heap's shape, one leak or many), then MAT's heap summary, the heap's
// composition, the top components, GC roots by type (heapscope's name beside MAT's), the
// objects discarded as unreachable, the dump's facts, its system properties and the
// warnings. All from the report; long tables show their first rows until asked.
import type { Report } from '../generated/report';
import { h, type Child } from '../lib/dom';
import { formatBytesExact, formatCount, formatMiB, formatTimestamp } from '../lib/format';
import { formatFragment } from '../lib/state';
import { className } from '../lib/objects';
import { facts, table, type DumpContext } from './common';
import { foldRows } from './fold';
import { biggestObjectsChart, viewLink } from './overview-links';
import { compositionPanel, systemPropertiesPanel, topComponentsPanel, triagePanel } from './sections';
import { verdict } from './verdict';

type Fact = [key: string, label: string, value: Child, exact: string | number];

export function renderOverview(ctx: DumpContext): HTMLElement {
  const r = ctx.report;
  const o = r.overview;
  const u = o.unreachable;
  const bytes = (n: number): string => `${formatCount(n)} bytes (${formatMiB(n)})`;
  const heap = facts('heap-facts', [
    ['used-heap', 'Used heap', ctx.hasDump ? viewLink('treemap', bytes(o.used_heap_bytes), 'The treemap of the dominator tree') : bytes(o.used_heap_bytes), o.used_heap_bytes],
    ['objects', 'Objects', viewLink('histogram', formatCount(o.objects), 'The histogram: objects by class'), o.objects],
    ...((o.heaps ?? []).length ? [['heaps', 'Heaps', heapsText(o), (o.heaps ?? []).map((x) => x.name).join(',')] as Fact] : []),
    ['classes', 'Classes', viewLink('histogram', formatCount(o.classes), 'The histogram: one row per class'), o.classes],
    ['class-loaders', 'Class loaders', viewLink('consumers', formatCount(o.class_loaders), 'Top consumers: the biggest class loaders'), o.class_loaders],
    ['gc-roots', 'GC roots', formatCount(o.gc_roots), o.gc_roots],
    ['top-level-dominators', 'Top-level dominators', ctx.hasDump ? viewLink('dominators', formatCount(o.top_level_dominators), 'The dominator tree') : formatCount(o.top_level_dominators), o.top_level_dominators],
    ...(r.waste
      ? [['wasted', 'Wasted', h('a', { href: formatFragment({ view: 'waste', object: null }), id: 'overview-wasted', title: 'Duplicate strings and the other kinds of waste' }, bytes(r.waste.total_wasted_bytes)), r.waste.total_wasted_bytes] as Fact]
      : []),
    ['suspects', 'Leak suspects', viewLink('suspects', formatCount(r.leak_suspects.suspects.length), 'The leak suspects'), r.leak_suspects.suspects.length],
    [
      'unreachable',
      u.discarded ? 'Unreachable (discarded)' : 'Unreachable (kept)',
      `${formatCount(u.objects)} objects, ${bytes(u.shallow_bytes)}`,
      u.objects,
    ],
  ]);
  const roots = foldRows(table(
    'gc-roots-by-type',
    'GC roots by type (an object with two kinds counts in both)',
    [{ label: 'Type (heapscope)' }, { label: 'Type (Eclipse MAT)' }, { label: 'Objects', num: true }],
    o.gc_roots_by_type.map((t) => [t.name, t.mat_name === t.name ? h('span', { class: 'same' }, t.mat_name) : t.mat_name, formatCount(t.objects)]),
    (i) => ({ 'data-root-type': o.gc_roots_by_type[i].name, 'data-objects': String(o.gc_roots_by_type[i].objects) }),
  ));
  const unreachable = u.objects > 0
    ? h(
        'div',
        null,
        h(
          'p',
          null,
          `${formatCount(u.objects)} objects (${bytes(u.shallow_bytes)}) are not reachable from any GC root`,
          u.discarded ? ' and were left out of every number on this page, as in Eclipse MAT (the command line keeps them with --keep-unreachable).' : '; they were kept, each entry point as a GC root "Unreachable".',
        ),
        foldRows(table(
          'unreachable-classes',
          `Unreachable objects by class${u.classes.length >= 100 ? ' (the 100 biggest)' : ''}`,
          [{ label: 'Class', name: true }, { label: 'Objects', num: true }, { label: 'Shallow heap', num: true }],
          u.classes.map((c) => [className(c.class_name), formatCount(c.objects), formatCount(c.shallow_bytes)]),
        )),
      )
    : h('p', null, 'Every object in the dump is reachable from a GC root.');
  const src = r.source;
  const d = r.dump;
  const android = androidText(r);
  const dump = facts('dump-facts', [
    ['file', 'File', src.file_name ?? '(unnamed)', src.file_name ?? ''],
    ['file-bytes', 'File size', formatBytesExact(src.file_bytes), src.file_bytes],
    ['compression', 'Compression', src.gzip ? 'gzip' : 'none', src.gzip],
    ['hprof-bytes', 'HPROF data', formatBytesExact(src.hprof_bytes), src.hprof_bytes],
    ['format', 'Format', `${d.format} (${d.platform})`, d.format],
    ...(android ? [['android', 'Android', android, r.leaks?.android?.sdk_int ?? ''] as Fact] : []),
    ['id-size', 'Identifier size', `${d.id_size} bytes${d.compressed_oops ? ', compressed oops' : ''}`, d.id_size],
    ['alignment', 'Object alignment', `${d.object_alignment} bytes`, d.object_alignment],
    // The sizes every number on the page is in: the JVM's (read from the dump) or Eclipse MAT's.
    ...(d.layout
      ? [
          ['layout', 'Object layout', d.layout.description, d.layout.sizes] as Fact,
          ...(d.layout.mat_difference ? [['mat-sizes', 'Eclipse MAT', d.layout.mat_difference, d.layout.mat_used_heap_bytes ?? ''] as Fact] : []),
        ]
      : []),
    ['timestamp', 'Written', formatTimestamp(d.timestamp_ms), d.timestamp_ms],
    [
      'records',
      'Records',
      `${formatCount(o.records.instances)} instances, ${formatCount(o.records.object_arrays)} object arrays, ${formatCount(o.records.primitive_arrays)} primitive arrays, ${formatCount(o.records.classes)} classes`,
    ],
    ['tool', 'Analyzed by', r.tool, r.tool],
  ]);
  return h(
    'div',
    { class: 'overview' },
    verdict(ctx),
    // What to know before reading on: the dump's warnings, a hint that a mapping would help.
    r.warnings.length
      ? h('section', { class: 'panel warn overview-warnings', id: 'overview-warnings' }, h('h3', null, r.warnings.length === 1 ? 'Warning' : `Warnings (${formatCount(r.warnings.length)})`), h('ul', { class: 'warnings', id: 'warnings' }, ...r.warnings.map((w) => h('li', null, w))))
      : null,
    obfuscationHint(ctx),
    triagePanel(r),
    h('h3', null, 'Heap summary'),
    heap,
    biggestObjectsChart(ctx),
    compositionPanel(r),
    topComponentsPanel(r),
    h('h3', null, 'GC roots'),
    roots,
    h('h3', null, 'Unreachable objects'),
    unreachable,
    h('h3', null, 'Dump'),
    dump,
    systemPropertiesPanel(r),
  );
}

/** The heaps of an Android dump, and the objects in none (MAT's pseudo object 0x0 for the
 * bootstrap class loader), so that they add up to the objects counted above. */
function heapsText(o: Report['overview']): string {
  const heaps = o.heaps ?? [];
  const inHeaps = heaps.reduce((n, x) => n + x.objects, 0);
  const parts = heaps.map((x) => `${x.name}: ${formatCount(x.objects)} objects, ${formatCount(x.shallow_bytes)} bytes (${formatMiB(x.shallow_bytes)})`);
  const rest = o.objects - inHeaps;
  if (rest > 0) parts.push(`in no heap: ${formatCount(rest)} ${rest === 1 ? 'object' : 'objects'} (${rest === 1 ? "Eclipse MAT's stand-in" : "including Eclipse MAT's stand-in"} for the bootstrap class loader at 0x0)`);
  return parts.join(' · ');
}

/** "API level 19, manufacturer unknown", from the dump's android.os.Build (as the command
 * line's leaks says), or null for a dump that names no Android build. */
function androidText(r: Report): string | null {
  const a = r.leaks?.android;
  if (!a) return null;
  const parts = [a.sdk_int != null ? `API level ${a.sdk_int}` : 'API level not recorded', `manufacturer ${a.manufacturer ?? 'not recorded'}`];
  return parts.join(', ');
}

/** Classes named as an obfuscator names them, and no mapping applied yet: what would help. */
function obfuscationHint(ctx: DumpContext): HTMLElement | null {
  const n = ctx.report.overview.obfuscated_classes ?? 0;
  // A few short names are ordinary; this many are an obfuscator's (and what a mapping
  // leaves obfuscated after it is applied is in its warning).
  if (n < OBFUSCATED_HINT || ctx.mappingName) return null;
  const button = h('button', { type: 'button', class: 'link', id: 'obfuscated-mapping' }, 'Mapping…');
  button.addEventListener('click', () => document.getElementById('mapping-button')?.click());
  return h(
    'p',
    { class: 'panel note obfuscated-hint', id: 'obfuscated-hint', 'data-classes': String(n) },
    `${formatCount(n)} classes have names like an obfuscator's (a, a.b, Outer$c): this build was probably shrunk by R8 or ProGuard. `,
    ctx.hasDump ? button : 'Drop the dump with its mapping.txt',
    ctx.hasDump ? " applies its mapping.txt (from the build's outputs) and gives classes, fields and stack frames their names back." : ': classes, fields and stack frames get their names back.',
  );
}

/** Classes that look obfuscated before the overview suggests a mapping. */
const OBFUSCATED_HINT = 10;
