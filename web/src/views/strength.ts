// The strength-aware reading on the page (seed 001_*, issue 8): the switch between MAT's
// dominator tree and the strength-aware one, and the strength legend shown above the
// dominator tree and the treemap.
//
// The legend has a row per strength, firmest first ("Weak 1.1 MB · 1 object", from the
// report's `reachability` partition, which adds up to the whole dump, garbage included),
// each with a checkbox that picks whether objects held that firmly are drawn in colour.
// The checkboxes never change the tree: they only colour it. One selection is shared by
// every legend on the page.
import type { Reading, Report, StrengthName } from '../generated/report';
import { h, replaceChildren } from '../lib/dom';
import { formatBytes, formatCount } from '../lib/format';
import { rovingGroup } from '../lib/keyboard';

export const STRENGTHS: readonly StrengthName[] = ['strong', 'cache', 'thread_local', 'local', 'soft', 'weak', 'finalizer', 'phantom', 'unreachable'];

const LABEL: Record<StrengthName, string> = {
  strong: 'Strong',
  cache: 'Cache',
  thread_local: 'Thread local',
  local: 'Local',
  soft: 'Soft',
  weak: 'Weak',
  finalizer: 'Finalizer',
  phantom: 'Phantom',
  unreachable: 'Unreachable',
};

const MEANING: Record<StrengthName, string> = {
  strong: 'held by ordinary references from a GC root',
  cache: 'held only through a curated cache field: a cache is not an owner',
  thread_local: "held only through a thread's ThreadLocal map",
  local: 'held only by a stack frame or a native local',
  soft: 'held only through a SoftReference (cleared under memory pressure)',
  weak: 'held only through a WeakReference (cleared by the next collection)',
  finalizer: 'held only by the finalizer machinery: waiting for finalize() to run',
  phantom: 'held only through a PhantomReference or a Cleaner',
  unreachable: 'nothing holds it: uncollected garbage',
};

/** Hue of each strength's colour. */
const HUE: Record<StrengthName, number> = {
  strong: 215,
  cache: 280,
  thread_local: 170,
  local: 195,
  soft: 120,
  weak: 30,
  finalizer: 0,
  phantom: 320,
  unreachable: 50,
};

export function strengthLabel(s: StrengthName): string {
  return LABEL[s];
}

export function strengthMeaning(s: StrengthName): string {
  return MEANING[s];
}

/** The colour of a small mark (a dot) for strength `s`. */
function markColour(s: StrengthName, dark: boolean): string {
  return dark ? `hsl(${HUE[s]} 70% 62%)` : `hsl(${HUE[s]} 70% 42%)`;
}

/** Which strengths are drawn in colour; every legend and coloured view listens. */
class ColourSelection {
  /** By default the strengths weaker than strong stand out. */
  private on = new Set<StrengthName>(STRENGTHS.filter((s) => s !== 'strong'));
  private listeners: (() => void)[] = [];

  has(s: StrengthName): boolean {
    return this.on.has(s);
  }

  set(s: StrengthName, on: boolean): void {
    if (on) this.on.add(s);
    else this.on.delete(s);
    for (const l of this.listeners) l();
  }

  /** Calls `listener` on every change (for the life of the page: views are few). */
  subscribe(listener: () => void): void {
    this.listeners.push(listener);
  }
}

export const colours = new ColourSelection();

/** A treemap rectangle's fill for an object held at `s`, or null to use the usual colour. */
export function strengthFill(s: StrengthName | undefined, dark: boolean): string | null {
  if (!s || !colours.has(s)) return null;
  return dark ? `hsl(${HUE[s]} 55% 36%)` : `hsl(${HUE[s]} 75% 74%)`;
}

/** A dot before an object's name, in its strength's colour when that strength is picked. */
export function strengthDot(s: StrengthName): HTMLElement {
  const dot = h('span', { class: 'strength-dot', 'data-strength': s, title: `${LABEL[s]}: ${MEANING[s]}` });
  dot.style.setProperty('--c-light', markColour(s, false));
  dot.style.setProperty('--c-dark', markColour(s, true));
  dot.classList.toggle('on', colours.has(s));
  return dot;
}

/** Re-colours the dots under `root` whenever the selection changes. */
export function followColours(root: HTMLElement): void {
  colours.subscribe(() => {
    for (const dot of root.querySelectorAll<HTMLElement>('.strength-dot')) dot.classList.toggle('on', colours.has(dot.dataset.strength as StrengthName));
  });
}

const NOTHING_WEAKER = 'Nothing is held only softly, weakly, by the finalizer or through a phantom reference: normal for most dumps.';
const NOTHING_WEAKER_WHY =
  'The collection that runs before a heap dump clears every reference whose referent nothing else holds, so these four strengths usually come out empty. ' +
  'They fill up when a thread has let go of a referent it took out of a reference since that collection (it stays weakly reachable until the next one), ' +
  'when soft references were not cleared yet (that happens only under memory pressure), or when objects wait for their finalize() to run.';

/** The legend: nine rows that add up to the dump, each with its colour checkbox. `id`
 * must be unique on the page (one legend per view). */
export function strengthLegend(report: Report, id: string): HTMLElement {
  const rows = report.reachability ?? [];
  const byName = new Map(rows.map((r) => [r.strength, r]));
  const totalObjects = rows.reduce((s, r) => s + r.objects, 0);
  const totalBytes = rows.reduce((s, r) => s + r.shallow_bytes, 0);
  const boxes: HTMLInputElement[] = [];
  const items = STRENGTHS.map((s) => {
    const r = byName.get(s) ?? { strength: s, objects: 0, shallow_bytes: 0 };
    const box = h('input', { type: 'checkbox', id: `${id}-${s}`, 'data-strength': s }) as HTMLInputElement;
    box.checked = colours.has(s);
    box.addEventListener('change', () => colours.set(s, box.checked));
    boxes.push(box);
    return h(
      'li',
      { 'data-strength': s, 'data-objects': r.objects, 'data-bytes': r.shallow_bytes, class: r.objects === 0 ? 'empty' : null },
      box,
      h('label', { for: `${id}-${s}`, title: MEANING[s] }, strengthMark(s), h('span', { class: 'strength-name' }, LABEL[s]), ' ', h('span', { class: 'strength-size' }, `${formatBytes(r.shallow_bytes)} · ${formatCount(r.objects)} ${r.objects === 1 ? 'object' : 'objects'}`)),
    );
  });
  colours.subscribe(() => boxes.forEach((b) => (b.checked = colours.has(b.dataset.strength as StrengthName))));
  // One tab stop for the nine checkboxes (arrows between them): the tree below is one Tab away.
  const toolbar = h('div', { role: 'toolbar', 'aria-label': 'Strengths drawn in colour (arrow keys move between them)' }, h('ul', { class: 'strength-rows' }, ...items));
  rovingGroup(toolbar, boxes);
  const javaLangRef: StrengthName[] = ['soft', 'weak', 'finalizer', 'phantom'];
  const nothingWeaker = rows.length > 0 && javaLangRef.every((s) => (byName.get(s)?.objects ?? 0) === 0);
  return h(
    'section',
    { class: 'strength-legend', id, 'aria-label': 'How firmly objects are held' },
    h('p', { class: 'fine legend-title', title: 'How firmly objects are held: the strongest of each path’s weakest reference. Checked strengths are drawn in colour (everything else in grey); the tree stays the same.' }, 'Drawn in colour, by how firmly held:'),
    toolbar,
    h('p', { class: 'fine strength-total', 'data-objects': totalObjects, 'data-bytes': totalBytes }, `Together: ${formatBytes(totalBytes)} · ${formatCount(totalObjects)} objects, every object of the dump (garbage included).`),
    // One line, the reason on hover (and for screen readers): it answers a question asked once.
    nothingWeaker ? h('p', { class: 'fine nothing-weaker', title: NOTHING_WEAKER_WHY }, NOTHING_WEAKER, ' ', h('span', { class: 'why', 'aria-hidden': 'true' }, 'Why?'), h('span', { class: 'visually-hidden' }, ` ${NOTHING_WEAKER_WHY}`)) : null,
  );
}

/** A dot always in its strength's colour (the legend's, the inspector's). */
export function strengthMark(s: StrengthName): HTMLElement {
  const dot = strengthDot(s);
  dot.classList.add('always');
  return dot;
}

export type Tree = Reading;

/** The switch between the two trees. `current` is the tree shown; `onPick` is called
 * with the other when a person picks it. Without the dump, it says which tree the
 * report's sizes come from. */
export function treeSwitch(container: HTMLElement, current: Tree, hasDump: boolean, onPick: (tree: Tree) => void): void {
  if (!hasDump) {
    replaceChildren(container, h('span', { class: 'fine', id: 'tree-reading', title: 'The retained sizes of this saved report come from this dominator tree' }, current === 'strength' ? 'Strength-aware tree' : "MAT's tree"));
    return;
  }
  const option = (tree: Tree, label: string, title: string): HTMLElement => {
    const input = h('input', { type: 'radio', name: 'tree', id: `tree-${tree}`, value: tree }) as HTMLInputElement;
    input.checked = tree === current;
    input.addEventListener('change', () => input.checked && onPick(tree));
    return h('label', { for: `tree-${tree}`, title }, input, ` ${label}`);
  };
  replaceChildren(
    container,
    h(
      'div',
      { role: 'radiogroup', id: 'tree-switch', 'aria-label': 'Dominator tree', 'data-tree': current },
      h('span', { class: 'fine tree-label', title: 'Which dominator tree every retained size on the page comes from' }, 'Tree:'),
      option('mat', 'MAT', "Eclipse MAT's reading: every reference holds what it points at (Reference.referent too); unreachable objects are left out"),
      ' ',
      option('strength', 'Strength', 'The strength-aware tree: a weak, soft, phantom, finalizer, cache, thread-local or stack reference holds an object only when nothing firmer does; uncollected garbage is part of the tree'),
      h('span', { class: 'fine', id: 'tree-status', role: 'status' }),
    ),
  );
}

/** Shows what the switch is doing ("" when idle). */
export function setTreeStatus(text: string): void {
  const el = document.getElementById('tree-status');
  if (el) el.textContent = text ? ` ${text}` : '';
}
