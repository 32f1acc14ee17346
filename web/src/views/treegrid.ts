// What the tree tables (the dominator tree's objects and groups by class, the threads)
// share: the ARIA treegrid's row events and keys, status rows, and putting the visible rows
// in order.
import { h, replaceChildren } from '../lib/dom';
import { treeRowKeydown, type TreeRowKeys } from '../lib/keyboard';

/** A row of a lazily expanding tree table. */
export interface TreeRow {
  row: HTMLTableRowElement;
  toggle: HTMLButtonElement | null;
  expanded: boolean;
  children: TreeRow[];
  /** Rows after the children: "show more", a loading or error line. */
  tail: HTMLTableRowElement[];
}

/** A full-width row (loading, error, "show more") indented to `depth`. */
export function statusRow(depth: number, content: HTMLElement): HTMLTableRowElement {
  const cell = h('td', { colspan: 5, class: 'status' }, content);
  cell.style.paddingLeft = `${0.4 + depth * 1.1 + 1.4}rem`;
  return h('tr', { class: 'status-row' }, cell);
}

/** The events of one treegrid row (the dominator tree's, its groups', the threads'):
 * focusing it makes it the tab stop, its toggle opens or closes it, a click elsewhere than
 * on a link or button chooses it, and the arrow keys of {@link treeRowKeydown} among
 * `rows()`. */
export function wireTreeRow(r: { row: HTMLTableRowElement; toggle: HTMLButtonElement | null; focus(): void; open(): void; click(): void; rows(): HTMLTableRowElement[]; keys(): TreeRowKeys }): void {
  r.row.addEventListener('focus', () => r.focus());
  r.toggle?.addEventListener('click', (e) => {
    e.stopPropagation();
    r.open();
  });
  r.row.addEventListener('click', (e) => {
    if ((e.target as HTMLElement).closest('a, button')) return;
    r.click();
  });
  r.row.addEventListener('keydown', (e) => {
    if (e.target === r.row) treeRowKeydown(e, r.rows(), r.keys());
  });
}

/** The keys of a {@link TreeRow}: it opens when it has a toggle; Enter and Space `choose` it. */
export function treeRowKeys(node: TreeRow, toggle: () => void, parent: () => TreeRow | null, choose: () => void): TreeRowKeys {
  return { row: node.row, expandable: node.toggle !== null, expanded: node.expanded, toggle, firstChild: () => node.children[0]?.row, parent: () => parent()?.row, choose };
}

/** Puts the visible rows in `tbody` in order (rows are reused, only their order changes),
 * giving the focus back to the row that had it. */
export function orderRows(tbody: HTMLTableSectionElement, top: TreeRow[], topTail: HTMLTableRowElement[]): void {
  const rows: HTMLTableRowElement[] = [];
  // Re-inserting a row drops its focus: it is given back after the rows are in place.
  const focused = document.activeElement;
  const visit = (nodes: TreeRow[]): void => {
    for (const n of nodes) {
      rows.push(n.row);
      if (n.expanded) {
        visit(n.children);
        rows.push(...n.tail);
      }
    }
  };
  visit(top);
  rows.push(...topTail);
  replaceChildren(tbody, ...rows);
  if (focused instanceof HTMLElement && focused !== document.activeElement && tbody.contains(focused)) focused.focus();
}

/** Roving tabindex: one row of the tree in the tab order, the last one focused. */
export class RovingRow {
  private current: TreeRow | null = null;

  set(node: TreeRow): void {
    if (this.current === node) return;
    if (this.current) this.current.row.tabIndex = -1;
    this.current = node;
    node.row.tabIndex = 0;
  }

  /** Puts the first row in the tab order when none is yet. */
  ensure(first: TreeRow | undefined): void {
    if (!this.current && first) this.set(first);
  }
}
