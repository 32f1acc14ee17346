// Long tables shown short: their first rows, and a button that shows the rest (and hides
// it again). The rows stay in the table (hidden), so its numbers and data attributes are
// all there for a screen reader that asks for them after opening, and for the exports.
import { h, setText } from '../lib/dom';
import { formatCount } from '../lib/format';

/** Rows a folded table shows. */
export const FOLDED_ROWS = 10;

/** `table` with its rows after the first `keep` hidden until asked for; the table alone
 * when it is that short. */
export function foldRows(table: HTMLTableElement, keep = FOLDED_ROWS): HTMLElement {
  const body = table.tBodies[0];
  const rows = body ? [...body.rows] : [];
  if (rows.length <= keep) return table;
  const button = h('button', { type: 'button', class: 'link fold-toggle', 'aria-expanded': 'false', 'aria-controls': table.id || null, 'data-rows': rows.length });
  const set = (open: boolean): void => {
    rows.forEach((r, i) => (r.hidden = !open && i >= keep));
    button.setAttribute('aria-expanded', String(open));
    setText(button, open ? `Show the first ${formatCount(keep)} only` : `Show all ${formatCount(rows.length)} rows (${formatCount(rows.length - keep)} more)`);
    table.dataset.folded = String(!open);
  };
  button.addEventListener('click', () => set(button.getAttribute('aria-expanded') !== 'true'));
  set(false);
  return h('div', { class: 'folded' }, table, button);
}
