// A zoomable treemap of the dominator tree, drawn on a canvas: each rectangle is an object
// sized by its retained bytes. Click an object to zoom into what it retains (and select
// it); the breadcrumb zooms back out. A level's crowd of small children is grouped by
// class (children_by_class): one rectangle per class, which zooms into its biggest
// members. Labels are drawn where they fit; hovering shows the object, selecting it puts
// it in the URL. Every rectangle also exists as a button in a list beside the canvas (for
// keyboards and screen readers), with its geometry in data attributes.
//
// Keyboard: the canvas is one tab stop; the arrow keys move to the nearest rectangle that
// way, Enter or Space zooms into it (as a click does), Escape or Backspace zooms out one
// level, Home goes back to the biggest. The rectangle reached is outlined and described in
// the info line below the canvas, which screen readers announce (aria-live).
import type { TreeNode } from '../generated/query';
import { colours, strengthFill, strengthLegend } from './strength';
import { h, replaceChildren } from '../lib/dom';
import { formatBp, formatCount, formatMiB } from '../lib/format';
import { classHue, objectLink, objectTitle } from '../lib/objects';
import { loading, needsDump, queryFailed, type DumpContext } from './common';

/** Children fetched per level; smaller ones than MIN_SHARE of the level are grouped by class. */
const PAGE = 200;
const MIN_SHARE = 0.003;
const GROUPS = 40;
/** The canvas fills the window below it, within these bounds (CSS pixels). */
const MIN_HEIGHT = 320;
const MAX_HEIGHT = 1600;
/** Kept below the canvas for the info line under it. */
const INFO_ROOM = 64;

type Item =
  | { kind: 'object'; node: TreeNode; value: number }
  | { kind: 'group'; className: string; objects: number; members: TreeNode[]; value: number }
  | { kind: 'rest'; objects: number; value: number; label: string };

interface Level {
  kind: 'root' | 'object' | 'group';
  label: string;
  /** The object (kind 'object'), for children queries. */
  address: string | null;
  /** The group (kind 'group'). */
  group?: Extract<Item, { kind: 'group' }>;
  items: Item[] | null;
  total: number;
  /** Reached by a click: a single child that holds it all is zoomed through at once. */
  descend?: boolean;
}

/** At most this many single-child levels are passed through by one click. */
const CHAIN_STEPS = 64;


interface Placed {
  item: Item;
  x: number;
  y: number;
  w: number;
  h: number;
  /** For a rectangle drawn inside another (the next levels, shown without zooming): the
   * top-level rectangle it is in (a click zooms there), and the one right around it. */
  outer?: Placed;
  container?: Placed;
}

/** Rectangles at least this big show the next level inside them (at most NESTED of them). */
const NEST_MIN_W = 90;
const NEST_MIN_H = 60;
const NESTED = 12;
const NESTED_PAGE = 40;
/** Height of the label strip above a rectangle's nested children. */
const STRIP = 18;

function itemName(item: Item): string {
  if (item.kind === 'object') return objectTitle(item.node.object);
  if (item.kind === 'group') return `${formatCount(item.objects)} × ${item.className}`;
  return item.label;
}

function shortName(item: Item): string {
  const full = item.kind === 'object' ? objectTitle(item.node.object) : item.kind === 'group' ? item.className : item.label;
  if (item.kind === 'rest') return full;
  const prefix = full.startsWith('class ') ? 'class ' : '';
  const bare = full.slice(prefix.length);
  const dot = bare.lastIndexOf('.', bare.endsWith('[]') ? bare.length - 3 : bare.length);
  const short = prefix + (dot >= 0 ? bare.slice(dot + 1) : bare);
  return item.kind === 'group' ? `${formatCount(item.objects)} × ${short}` : short;
}

/** The rectangle nearest to `from` in direction `dir` (by centres; a sideways step costs
 * twice a forward one, so the move goes the way the key points), or null at the edge. */
export function nearest<T extends { x: number; y: number; w: number; h: number }>(all: T[], from: T, [dx, dy]: [number, number]): T | null {
  const cx = from.x + from.w / 2;
  const cy = from.y + from.h / 2;
  let best: T | null = null;
  let bestCost = Infinity;
  for (const p of all) {
    if (p === from) continue;
    const ox = p.x + p.w / 2 - cx;
    const oy = p.y + p.h / 2 - cy;
    const forward = ox * dx + oy * dy;
    if (forward <= 0) continue;
    const cost = forward + 2 * Math.abs(ox * dy + oy * dx);
    if (cost < bestCost) {
      bestCost = cost;
      best = p;
    }
  }
  return best;
}

/** Squarified treemap (Bruls, Huizing, van Wijk): rows of near-square rectangles. */
export function squarify<T extends { value: number }>(items: T[], x: number, y: number, w: number, hgt: number): { item: T; x: number; y: number; w: number; h: number }[] {
  const out: { item: T; x: number; y: number; w: number; h: number }[] = [];
  const total = items.reduce((s, i) => s + i.value, 0);
  if (total <= 0 || w <= 0 || hgt <= 0) return out;
  const scale = (w * hgt) / total;
  const areas = items.map((i) => i.value * scale);
  let start = 0;
  while (start < items.length) {
    const side = Math.min(w, hgt);
    let end = start + 1;
    let sum = areas[start];
    const worst = (s: number, from: number, to: number): number => {
      let max = 0;
      let min = Infinity;
      for (let k = from; k < to; k++) {
        max = Math.max(max, areas[k]);
        min = Math.min(min, areas[k]);
      }
      const s2 = s * s;
      const side2 = side * side;
      return Math.max((side2 * max) / s2, s2 / (side2 * Math.max(min, 1e-9)));
    };
    while (end < items.length && worst(sum + areas[end], start, end + 1) <= worst(sum, start, end)) {
      sum += areas[end];
      end++;
    }
    // Lay the row along the shorter side.
    const thickness = sum / side;
    let offset = 0;
    for (let k = start; k < end; k++) {
      const len = areas[k] / thickness;
      if (w >= hgt) out.push({ item: items[k], x, y: y + offset, w: thickness, h: len });
      else out.push({ item: items[k], x: x + offset, y, w: len, h: thickness });
      offset += len;
    }
    if (w >= hgt) {
      x += thickness;
      w -= thickness;
    } else {
      y += thickness;
      hgt -= thickness;
    }
    start = end;
  }
  return out;
}

export class TreemapView {
  readonly root: HTMLElement;
  private readonly canvas: HTMLCanvasElement;
  private readonly crumbs: HTMLElement;
  private readonly info: HTMLElement;
  private readonly list: HTMLElement;
  private readonly status: HTMLElement;
  private levels: Level[] = [];
  private placed: Placed[] = [];
  /** The next level inside the biggest rectangles. */
  private nested: Placed[] = [];
  private nestedGen = 0;
  private hover: Placed | null = null;
  private selected: string | null = null;
  private started = false;
  private width = 0;
  private height = MIN_HEIGHT;

  constructor(private readonly ctx: DumpContext) {
    this.canvas = h('canvas', {
      id: 'treemap-canvas', class: 'treemap-canvas', role: 'application', tabindex: 0,
      'aria-label': 'Treemap of the dominator tree', 'aria-roledescription': 'treemap', 'aria-describedby': 'treemap-keys treemap-info',
    });
    this.crumbs = h('nav', { id: 'treemap-breadcrumb', class: 'breadcrumb', 'aria-label': 'Treemap zoom levels' });
    this.info = h('div', { id: 'treemap-info', class: 'treemap-info', 'aria-live': 'polite' });
    this.list = h('ol', { id: 'treemap-items', class: 'treemap-items', 'aria-label': 'Rectangles of the treemap, biggest first' });
    this.status = h('div', { class: 'treemap-status' });
    if (!ctx.hasDump) {
      this.root = h('div', null, needsDump(ctx, 'treemap of the dominator tree'));
      return;
    }
    this.root = h(
      'div',
      { class: 'treemap', 'data-tree': ctx.q.tree },
      strengthLegend(ctx.report, 'strength-legend-treemap'),
      h(
        'p',
        { class: 'fine treemap-help' },
        'Each rectangle is an object, sized by the memory it keeps alive; click one to zoom in, the path above zooms out. “N × Class” gathers a level\'s small objects by class. ',
        h('span', { id: 'treemap-keys' }, 'Keys: arrows move, Enter zooms in, Escape zooms out.'),
      ),
      this.crumbs,
      h('div', { class: 'treemap-stage' }, this.canvas, this.status),
      this.info,
      h('details', { class: 'treemap-list' }, h('summary', null, 'Rectangles as a list'), this.list),
    );
    colours.subscribe(() => this.draw());
    this.canvas.addEventListener('mousemove', (e) => this.onMove(e));
    this.canvas.addEventListener('mouseleave', () => {
      this.hover = null;
      this.draw();
      this.showInfo();
    });
    this.canvas.addEventListener('click', (e) => {
      const p = this.at(e);
      if (!p) return;
      // A nested rectangle: zoom into its parent, where it is drawn full size and selected.
      if (p.outer) {
        this.activate(p.outer.item);
        if (p.item.kind === 'object') this.ctx.store.set({ object: p.item.node.object.address });
      } else this.activate(p.item);
    });
    this.canvas.addEventListener('keydown', (e) => this.onKey(e));
    this.canvas.addEventListener('focus', () => {
      if (!this.hover) this.hover = this.firstRect();
      this.draw();
      this.showInfo();
    });
    this.canvas.addEventListener('blur', () => {
      this.hover = null;
      this.draw();
      this.showInfo();
    });
    new ResizeObserver(() => {
      const w = this.canvas.parentElement?.clientWidth ?? 0;
      if (w > 0 && Math.abs(w - this.width) >= 1) this.layout();
    }).observe(this.root);
    window.addEventListener('resize', () => {
      if (this.root.isConnected && this.canvas.offsetParent !== null && this.fitHeight() !== this.height) this.layout();
    });
  }

  /** Loads the top level the first time the view is shown; redraws the selection. */
  show(selected: string | null): void {
    this.selected = selected;
    if (!this.ctx.hasDump) return;
    if (!this.started) {
      this.started = true;
      const zoom = this.ctx.store.get().zoom ?? [];
      if (zoom.length) {
        this.levels.push({ kind: 'root', label: 'Heap', address: null, items: null, total: 0 });
        void this.restoreZoom(zoom);
      } else this.push({ kind: 'root', label: 'Heap', address: null, items: null, total: 0 });
      return;
    }
    this.layout();
    this.showInfo();
  }

  private push(level: Level): void {
    this.hover = null;
    this.levels.push(level);
    this.renderCrumbs();
    this.saveZoom();
    this.load(level);
  }

  /** The object levels zoomed into, in the URL fragment (a reload comes back to them). */
  private saveZoom(): void {
    const zoom = this.levels.filter((l) => l.kind === 'object' && l.address).map((l) => l.address as string);
    const was = this.ctx.store.get().zoom ?? [];
    if (zoom.join(',') !== was.join(',')) this.ctx.store.set({ zoom });
  }

  /** Zooms into the objects named by the URL, outermost first (unknown ones end it). */
  private async restoreZoom(addresses: string[]): Promise<void> {
    for (const address of addresses) {
      const o = await this.ctx.q.find(address).catch(() => null);
      if (!o) break;
      this.levels.push({ kind: 'object', label: `${objectTitle(o)} @ ${o.address}`, address: o.address, items: null, total: 0 });
    }
    this.renderCrumbs();
    this.saveZoom();
    void this.load(this.levels[this.levels.length - 1]);
  }

  private zoomTo(depth: number): void {
    this.levels.length = depth + 1;
    this.renderCrumbs();
    this.saveZoom();
    this.hover = null;
    const level = this.levels[depth];
    if (level.items) this.layout();
    else this.load(level);
  }

  private renderCrumbs(): void {
    const parts: HTMLElement[] = [];
    this.levels.forEach((l, i) => {
      if (i > 0) parts.push(h('span', { class: 'sep', 'aria-hidden': 'true' }, '›'));
      const last = i === this.levels.length - 1;
      const b = h('button', { type: 'button', class: 'crumb', 'data-depth': i, 'aria-current': last ? 'page' : null, disabled: last }, l.label);
      if (!last) b.addEventListener('click', () => this.zoomTo(i));
      parts.push(b);
    });
    replaceChildren(this.crumbs, ...parts);
    this.crumbs.dataset.depth = String(this.levels.length - 1);
  }

  private async load(level: Level): Promise<void> {
    replaceChildren(this.status, loading('Loading…'));
    this.placed = [];
    this.draw();
    try {
      level.items = level.kind === 'group' ? this.groupItems(level) : await this.childItems(level.address);
      level.total = level.items.reduce((s, i) => s + i.value, 0);
      if (this.levels[this.levels.length - 1] !== level) return;
      // A chain of single children is one click: go through to where the memory spreads.
      const only = level.items.length === 1 ? level.items[0] : null;
      if (level.descend && only?.kind === 'object' && only.node.children > 0 && this.levels.length < CHAIN_STEPS) {
        const o = only.node.object;
        this.push({ kind: 'object', label: `${objectTitle(o)} @ ${o.address}`, address: o.address, items: null, total: 0, descend: true });
        return;
      }
      replaceChildren(this.status);
      if (!level.items.length) replaceChildren(this.status, h('p', { class: 'fine' }, 'This object keeps nothing else alive.'));
      this.layout();
      this.showInfo();
    } catch (e) {
      if (this.levels[this.levels.length - 1] === level) replaceChildren(this.status, queryFailed(e));
    }
  }

  /** A level's items: its biggest children, then the rest grouped by class. */
  private async childItems(parent: string | null): Promise<Item[]> {
    const page = await this.ctx.q.children(parent, 0, PAGE);
    const total = page.total_retained_bytes;
    const big = page.nodes.filter((n) => n.object.retained_bytes >= total * MIN_SHARE && n.object.retained_bytes > 0);
    const items: Item[] = big.map((node) => ({ kind: 'object', node, value: node.object.retained_bytes }));
    if (big.length === page.total) return items;
    // The crowd: everything not shown on its own, by class.
    const shownByClass = new Map<string, { bytes: number; count: number; addresses: Set<string> }>();
    for (const n of big) {
      const s = shownByClass.get(n.object.class_name) ?? { bytes: 0, count: 0, addresses: new Set<string>() };
      s.bytes += n.object.retained_bytes;
      s.count++;
      s.addresses.add(n.object.address);
      shownByClass.set(n.object.class_name, s);
    }
    const groups = await this.ctx.q.childrenByClass(parent, GROUPS);
    let grouped = 0;
    let groupedObjects = 0;
    for (const g of groups) {
      // Several classes may share a name (several loaders): subtract the shown ones once.
      const shown = shownByClass.get(g.class_name);
      shownByClass.delete(g.class_name);
      const value = g.retained_bytes - (shown?.bytes ?? 0);
      const objects = g.objects - (shown?.count ?? 0);
      grouped += value;
      groupedObjects += objects;
      if (objects <= 0 || value <= 0) continue;
      const members = g.largest.filter((m) => !shown?.addresses.has(m.object.address));
      if (objects === 1 && members.length === 1) items.push({ kind: 'object', node: members[0], value });
      else items.push({ kind: 'group', className: g.class_name, objects, members, value });
    }
    const shownBytes = big.reduce((s, n) => s + n.object.retained_bytes, 0);
    const rest = total - shownBytes - grouped;
    const restObjects = page.total - big.length - groupedObjects;
    if (rest > 0 && restObjects > 0) items.push({ kind: 'rest', objects: restObjects, value: rest, label: `${formatCount(restObjects)} objects of other classes` });
    return items.sort((a, b) => b.value - a.value);
  }

  private groupItems(level: Level): Item[] {
    const g = level.group!;
    const items: Item[] = g.members.filter((m) => m.object.retained_bytes > 0).map((node) => ({ kind: 'object', node, value: node.object.retained_bytes }));
    const shown = items.reduce((s, i) => s + i.value, 0);
    const rest = g.value - shown;
    const restObjects = g.objects - items.length;
    if (rest > 0 && restObjects > 0) items.push({ kind: 'rest', objects: restObjects, value: rest, label: `${formatCount(restObjects)} smaller objects of ${g.className}` });
    return items;
  }

  /** What a click (or Enter on the list) does: zoom into an object or a group, or select. */
  private activate(item: Item): void {
    if (item.kind === 'object') {
      const o = item.node.object;
      this.ctx.store.set({ object: o.address });
      if (item.node.children > 0) this.push({ kind: 'object', label: `${objectTitle(o)} @ ${o.address}`, address: o.address, items: null, total: 0, descend: true });
    } else if (item.kind === 'group') {
      this.push({ kind: 'group', label: `${formatCount(item.objects)} × ${item.className}`, address: null, group: item, items: null, total: 0 });
    }
  }

  private layout(): void {
    const level = this.levels[this.levels.length - 1];
    const parent = this.canvas.parentElement;
    const w = parent?.clientWidth ?? 0;
    if (!level?.items || w <= 0) return;
    this.width = w;
    this.height = this.fitHeight();
    const dpr = window.devicePixelRatio || 1;
    this.canvas.style.width = `${w}px`;
    this.canvas.style.height = `${this.height}px`;
    this.canvas.width = Math.round(w * dpr);
    this.canvas.height = Math.round(this.height * dpr);
    this.placed = squarify(level.items, 0, 0, w, this.height);
    this.nested = [];
    // The keyboard's rectangle: the same item after a resize, else the biggest.
    const kept = this.hover ? this.placed.find((p) => p.item === this.hover?.item) ?? null : null;
    this.hover = kept ?? (document.activeElement === this.canvas ? this.firstRect() : null);
    this.canvas.dataset.items = String(this.placed.length);
    this.renderList();
    this.draw();
    void this.loadNested();
  }

  /** The height that fills the window below the canvas's top (in page coordinates, so
   * the same however the page is scrolled), leaving room for the info line. */
  private fitHeight(): number {
    const stage = this.canvas.parentElement;
    if (!stage) return MIN_HEIGHT;
    const top = stage.getBoundingClientRect().top + window.scrollY;
    return Math.round(Math.max(MIN_HEIGHT, Math.min(MAX_HEIGHT, window.innerHeight - top - INFO_ROOM)));
  }

  /** Fills the biggest rectangles with their own children (one level down, no zoom). */
  private async loadNested(): Promise<void> {
    const gen = ++this.nestedGen;
    const candidates = this.placed.filter((p) => p.item.kind === 'object' && p.item.node.children > 0 && p.w >= NEST_MIN_W && p.h >= NEST_MIN_H).slice(0, NESTED);
    // Two levels inside the top one (three drawn in all): each box big enough gets a
    // header strip and its own children below it.
    const queue: Placed[] = [...candidates];
    let filled = 0;
    while (queue.length && filled < NESTED * 2) {
      const p = queue.shift() as Placed;
      if (p.item.kind !== 'object') continue;
      const parent = p.item.node.object;
      let page;
      try {
        page = await this.ctx.q.children(parent.address, 0, NESTED_PAGE);
      } catch {
        continue; // the outer rectangle still stands for everything it retains
      }
      if (gen !== this.nestedGen) return;
      filled++;
      const items: Item[] = page.nodes.filter((n) => n.object.retained_bytes > 0).map((node) => ({ kind: 'object', node, value: node.object.retained_bytes }));
      const shown = items.reduce((sum, i) => sum + i.value, 0);
      // What the parent retains beyond the children shown (itself, smaller children) stays empty.
      const filler: Item = { kind: 'rest', objects: 0, value: Math.max(0, parent.retained_bytes - shown), label: '' };
      const inner = squarify([...items, filler].sort((a, b) => b.value - a.value), p.x + 2, p.y + STRIP, p.w - 4, p.h - STRIP - 2)
        .filter((c) => c.item !== filler && c.w >= 2 && c.h >= 2)
        .map((c) => ({ ...c, outer: p.outer ?? p, container: p }));
      this.nested.push(...inner);
      if (!p.outer) queue.push(...inner.filter((c) => c.item.kind === 'object' && c.item.node.children > 0 && c.w >= NEST_MIN_W && c.h >= NEST_MIN_H + STRIP));
      this.draw();
    }
    this.canvas.dataset.nested = String(this.nested.length);
  }

  private renderList(): void {
    replaceChildren(
      this.list,
      ...this.placed.map((p) => {
        const item = p.item;
        const b = h(
          'button',
          {
            type: 'button',
            class: 'link',
            'data-kind': item.kind,
            'data-address': item.kind === 'object' ? item.node.object.address : null,
            'data-children': item.kind === 'object' ? item.node.children : null,
            'data-strength': item.kind === 'object' ? item.node.strength : null,
            'data-x': p.x.toFixed(1),
            'data-y': p.y.toFixed(1),
            'data-w': p.w.toFixed(1),
            'data-h': p.h.toFixed(1),
            disabled: item.kind === 'rest',
          },
          `${itemName(item)} — ${formatMiB(item.value)}`,
        );
        b.addEventListener('click', () => this.activate(item));
        b.addEventListener('focus', () => {
          this.hover = p;
          this.draw();
          this.showInfo();
        });
        return h('li', null, b);
      }),
    );
  }

  /** Colour means strength: an object held at a strength picked in the legend is drawn
   * in that strength's colour; everything else in greys, barely tinted by class (so that
   * neighbours of different classes stay apart) and never in a legend colour. */
  private color(item: Item, dark: boolean, nested = false): string {
    if (item.kind === 'rest') return dark ? '#3a4048' : '#d5d9de';
    const byStrength = item.kind === 'object' ? strengthFill(item.node.strength, dark) : null;
    if (byStrength) return byStrength;
    const name = item.kind === 'object' ? item.node.object.class_of_object ?? item.node.object.class_name : item.className;
    const hue = classHue(name);
    // Lightness varies by class too: greys of one saturation would all look alike.
    const step = (hue % 5) * 2;
    if (item.kind === 'group') return dark ? `hsl(${hue} 6% ${24 + step / 2}%)` : `hsl(${hue} 8% ${86 + step / 2}%)`;
    return dark ? `hsl(${hue} 8% ${(nested ? 22 : 28) + step}%)` : `hsl(${hue} 10% ${(nested ? 84 : 74) + step}%)`;
  }

  private draw(): void {
    const c = this.canvas.getContext('2d');
    if (!c) return;
    const dpr = window.devicePixelRatio || 1;
    const dark = window.matchMedia?.('(prefers-color-scheme: dark)').matches ?? false;
    c.setTransform(dpr, 0, 0, dpr, 0, 0);
    c.clearRect(0, 0, this.canvas.width, this.canvas.height);
    c.font = '12px system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", "Liberation Sans", sans-serif';
    c.textBaseline = 'top';
    const bg = dark ? '#15181b' : '#fbfbfa';
    const hasNested = new Set(this.nested.map((n) => n.container ?? n.outer));
    for (const p of [...this.placed, ...this.nested]) {
      c.fillStyle = this.color(p.item, dark, p.outer !== undefined);
      c.fillRect(p.x, p.y, p.w, p.h);
      if (p.item.kind === 'group') {
        // Hatched: a group of objects, not one object.
        c.save();
        c.beginPath();
        c.rect(p.x, p.y, p.w, p.h);
        c.clip();
        c.strokeStyle = dark ? 'rgba(255,255,255,0.10)' : 'rgba(0,0,0,0.08)';
        c.lineWidth = 1;
        for (let d = -p.h; d < p.w; d += 8) {
          c.beginPath();
          c.moveTo(p.x + d, p.y + p.h);
          c.lineTo(p.x + d + p.h, p.y);
          c.stroke();
        }
        c.restore();
      }
      c.strokeStyle = p.outer ? (dark ? 'rgba(0,0,0,0.45)' : 'rgba(255,255,255,0.75)') : bg;
      c.lineWidth = 1;
      c.strokeRect(p.x + 0.5, p.y + 0.5, Math.max(0, p.w - 1), Math.max(0, p.h - 1));
      this.label(c, p, dark, hasNested.has(p));
    }
    const outline = (p: Placed | null | undefined, color: string, width: number): void => {
      if (!p) return;
      c.strokeStyle = color;
      c.lineWidth = width;
      c.strokeRect(p.x + width / 2, p.y + width / 2, Math.max(0, p.w - width), Math.max(0, p.h - width));
    };
    outline([...this.placed, ...this.nested].find((p) => p.item.kind === 'object' && p.item.node.object.address === this.selected), dark ? '#6c9ef2' : '#2458b3', 3);
    outline(this.hover, dark ? '#ffffff' : '#1d2125', 2);
  }

  /** The name (and size) where they fit; one line above nested children. */
  private label(c: CanvasRenderingContext2D, p: Placed, dark: boolean, strip: boolean): void {
    if (p.w < 36 || p.h < 16) return;
    const pad = 4;
    const room = p.w - 2 * pad;
    c.fillStyle = dark ? '#eef1f4' : '#1d2125';
    const fit = (text: string): string | null => {
      if (c.measureText(text).width <= room) return text;
      let lo = 0;
      let hi = text.length;
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if (c.measureText(`${text.slice(0, mid)}…`).width <= room) lo = mid;
        else hi = mid - 1;
      }
      return lo >= 3 ? `${text.slice(0, lo)}…` : null;
    };
    const bp = p.item.kind === 'object' ? p.item.node.object.retained_bp : Math.round((p.item.value / Math.max(1, this.ctx.report.overview.used_heap_bytes)) * 10_000);
    if (strip) {
      const line = fit(`${shortName(p.item)} · ${formatMiB(p.item.value)} · ${formatBp(bp)}`) ?? fit(shortName(p.item));
      if (line) c.fillText(line, p.x + pad, p.y + 3);
      return;
    }
    const name = fit(shortName(p.item));
    if (!name) return;
    c.fillText(name, p.x + pad, p.y + pad);
    if (p.h >= 32) {
      const size = fit(`${formatMiB(p.item.value)} · ${formatBp(bp)}`) ?? fit(formatMiB(p.item.value));
      if (size) {
        c.fillStyle = dark ? '#c3cad2' : '#3c444c';
        c.fillText(size, p.x + pad, p.y + pad + 15);
      }
    }
  }

  private firstRect(): Placed | null {
    return this.placed.find((p) => p.item.kind !== 'rest') ?? this.placed[0] ?? null;
  }

  private onKey(e: KeyboardEvent): void {
    const dirs: Record<string, [number, number]> = { ArrowRight: [1, 0], ArrowLeft: [-1, 0], ArrowDown: [0, 1], ArrowUp: [0, -1] };
    if (e.key in dirs) {
      const next = this.hover ? nearest(this.placed, this.hover, dirs[e.key]) : this.firstRect();
      if (next) this.hover = next;
    } else if (e.key === 'Home') this.hover = this.firstRect();
    else if ((e.key === 'Enter' || e.key === ' ') && this.hover) this.activate(this.hover.item);
    else if ((e.key === 'Escape' || e.key === 'Backspace') && this.levels.length > 1) this.zoomTo(this.levels.length - 2);
    else return;
    e.preventDefault();
    this.draw();
    this.showInfo();
  }

  private at(e: MouseEvent): Placed | null {
    const r = this.canvas.getBoundingClientRect();
    const x = e.clientX - r.left;
    const y = e.clientY - r.top;
    const hit = (p: Placed): boolean => x >= p.x && x < p.x + p.w && y >= p.y && y < p.y + p.h;
    // The innermost box under the pointer (deeper boxes come later in the list).
    for (let i = this.nested.length - 1; i >= 0; i--) if (hit(this.nested[i])) return this.nested[i];
    return this.placed.find(hit) ?? null;
  }

  private onMove(e: MouseEvent): void {
    const p = this.at(e);
    if (p === this.hover) return;
    this.hover = p;
    this.canvas.style.cursor = p && p.item.kind !== 'rest' ? 'pointer' : 'default';
    this.draw();
    this.showInfo();
  }

  /** The hovered rectangle, else the selected object, else the level. */
  private showInfo(): void {
    const level = this.levels[this.levels.length - 1];
    const item = this.hover?.item ?? [...this.placed, ...this.nested].find((p) => p.item.kind === 'object' && p.item.node.object.address === this.selected)?.item;
    if (!item) {
      const used = this.ctx.report.overview.used_heap_bytes;
      replaceChildren(this.info, level?.items ? `${level.label}: ${formatCount(level.items.length)} rectangles, ${formatCount(level.total)} bytes (${formatMiB(level.total)}, ${formatBp(Math.round((level.total / Math.max(1, used)) * 10_000))} of the heap). Hover over a rectangle to see its object.` : '');
      return;
    }
    if (item.kind === 'object') {
      const o = item.node.object;
      replaceChildren(
        this.info,
        h('strong', null, objectTitle(o)),
        h('span', { class: 'mono' }, ` @ ${o.address}`),
        ` — retains ${formatCount(o.retained_bytes)} bytes (${formatBp(o.retained_bp)} of the heap), shallow ${formatCount(o.shallow_bytes)} bytes, keeps ${formatCount(item.node.children)} objects directly. `,
        objectLink(o, 'inspector', 'Inspect'),
        ' · ',
        objectLink(o, 'path', 'Path from a GC root'),
      );
      this.info.dataset.address = o.address;
    } else {
      replaceChildren(this.info, h('strong', null, itemName(item)), ` — ${formatCount(item.value)} bytes together${item.kind === 'group' ? ' (click to see the biggest)' : ''}.`);
      delete this.info.dataset.address;
    }
  }
}
