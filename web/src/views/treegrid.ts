// What the dominator tree's two tables (objects, and groups by class) share: the ARIA
// treegrid's keys, its status rows, and putting the visible rows in order.
import { h, replaceChildren } from '../lib/dom';

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

/**
 * The treegrid's keys on `node`'s row: Up/Down, Home/End move among `rows()`, Right
 * expands (or moves to the first child), Left collapses (or moves to the parent), Enter
 * and Space select. Returns whether the key was handled.
 */
export function treeKey(e: KeyboardEvent, node: TreeRow, rows: HTMLTableRowElement[], actions: { toggle(): void; parent(): TreeRow | null; select(): void }): boolean {
  const i = rows.indexOf(node.row);
  const go = (r: HTMLTableRowElement | undefined): void => r?.focus();
  if (e.key === 'ArrowRight') {
    if (node.toggle && !node.expanded) actions.toggle();
    else if (node.expanded) go(node.children[0]?.row);
  } else if (e.key === 'ArrowLeft') {
    if (node.expanded) actions.toggle();
    else go(actions.parent()?.row);
  } else if (e.key === 'ArrowDown') go(rows[i + 1]);
  else if (e.key === 'ArrowUp') go(rows[i - 1]);
  else if (e.key === 'Home') go(rows[0]);
  else if (e.key === 'End') go(rows[rows.length - 1]);
  else if (e.key === 'Enter' || e.key === ' ') actions.select();
  else return false;
  e.preventDefault();
  return true;
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
