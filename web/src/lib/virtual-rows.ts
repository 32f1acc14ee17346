// The rows of a virtualized table (the histogram, the comparison's classes): only the rows in
// view, and a few around them, exist as elements; they are pooled and moved as the body
// scrolls, so tens of thousands of rows scroll smoothly.
import { h } from './dom';

/** Height of one row in CSS pixels (the stylesheet's .vrow height). */
export const ROW = 28;
const OVERSCAN = 8;

/**
 * Shows rows `[first, last)` of `count` in view of `body` using the pooled row elements
 * (`numeric[i]`: whether cell i is a number); `fill(row, index)` puts row `index` into a row
 * element, already positioned and with its `data-index`.
 */
export function drawRows(body: HTMLElement, pool: HTMLElement[], count: number, numeric: boolean[], fill: (row: HTMLElement, index: number) => void): void {
  const height = body.clientHeight || 600;
  const first = Math.max(0, Math.floor(body.scrollTop / ROW) - OVERSCAN);
  const last = Math.min(count, Math.ceil((body.scrollTop + height) / ROW) + OVERSCAN);
  while (pool.length < last - first) {
    const row = h('div', { class: 'vrow', role: 'row', tabindex: -1 }, ...numeric.map((n) => h('div', { class: `vcell${n ? ' num' : ''}`, role: 'gridcell' })));
    pool.push(row);
    body.appendChild(row);
  }
  for (let i = 0; i < pool.length; i++) {
    const row = pool[i];
    const index = first + i;
    if (index >= last) {
      row.hidden = true;
      continue;
    }
    row.hidden = false;
    row.style.transform = `translateY(${index * ROW}px)`;
    row.dataset.index = String(index);
    row.setAttribute('aria-rowindex', String(index + 2));
    fill(row, index);
  }
}
