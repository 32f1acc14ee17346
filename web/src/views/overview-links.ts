// The overview's ways on: numbers that link to the view behind them, and the biggest
// objects as bars (MAT's overview pie, as a bar chart), each bar opening the inspector.
import { h } from '../lib/dom';
import { formatBp, formatMiB } from '../lib/format';
import { className, objectLabel, objectTitle } from '../lib/objects';
import { formatFragment, type ViewId } from '../lib/state';
import type { DumpContext } from './common';

/** Bars in the chart; the rest of the heap is one more, unlinked. */
export const CHART_BARS = 10;

/** A number that opens `view`. */
export function viewLink(view: ViewId, text: string, title: string): HTMLAnchorElement {
  return h('a', { href: formatFragment({ view, object: null }), class: 'view-link', 'data-view-link': view, title }, text);
}

/** The biggest top-level objects as bars of their share of the heap. */
export function biggestObjectsChart(ctx: DumpContext): HTMLElement | null {
  const r = ctx.report;
  const used = r.overview.used_heap_bytes;
  const top = r.top_dominators.slice(0, CHART_BARS);
  if (!top.length || used <= 0) return null;
  const rest = Math.max(0, used - top.reduce((sum, o) => sum + o.retained_bytes, 0));
  const bar = (fraction: number): HTMLElement => {
    const fill = h('span', { class: 'bar-fill' });
    fill.style.width = `${Math.max(0.3, Math.min(100, fraction * 100)).toFixed(2)}%`;
    return h('span', { class: 'bar-track', 'aria-hidden': 'true' }, fill);
  };
  // A thread is named by its name, as the threads view names it.
  const threadNames = new Map((r.threads ?? []).map((t) => [t.address, t.name]));
  const rows = top.map((o) => {
    const name = threadNames.get(o.address);
    const label = typeof name === 'string' ? `${name} (${o.class_name})` : objectTitle(o);
    const content = [h('span', { class: 'bar-label' }, className(label, false)), bar(o.retained_bytes / used), h('span', { class: 'bar-size' }, `${formatMiB(o.retained_bytes)} · ${formatBp(o.retained_bp)}`)];
    return h(
      'li',
      { 'data-address': o.address, 'data-retained': String(o.retained_bytes), 'data-thread': typeof name === 'string' ? name : null },
      ctx.hasDump
        ? h('a', { href: formatFragment({ view: 'inspector', object: o.address }), class: 'bar-row', title: `${objectLabel(o)}: open in the inspector` }, ...content)
        : h('span', { class: 'bar-row', title: objectLabel(o) }, ...content),
    );
  });
  rows.push(
    h(
      'li',
      { class: 'rest', 'data-retained': String(rest) },
      h('span', { class: 'bar-row' }, h('span', { class: 'bar-label' }, 'everything else'), bar(rest / used), h('span', { class: 'bar-size' }, `${formatMiB(rest)} · ${formatBp(Math.round((rest / used) * 10_000))}`)),
    ),
  );
  return h('figure', { class: 'bars', id: 'biggest-objects' }, h('figcaption', null, 'Biggest objects by retained size (the top-level objects of the dominator tree); select one to inspect it'), h('ol', null, ...rows));
}
