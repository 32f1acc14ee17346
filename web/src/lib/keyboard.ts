// Arrow-key navigation over the rows of a plain data table (the overview's, top consumers',
// the inspector's fields…): the table body is one tab stop (roving tabindex: the last row
// focused, at first the first row); Up/Down, Page Up/Down, Home and End move the focus
// between rows, Enter follows the row's first link. The links inside stay reachable with
// Tab as usual.

const PAGE = 10;

export function navigableRows(tbody: HTMLTableSectionElement): void {
  // Rows hidden by a folded table are skipped.
  const rows = (): HTMLTableRowElement[] => [...tbody.rows].filter((r) => !r.hidden);
  let current = tbody.rows[0] ?? null;
  for (const r of rows()) r.tabIndex = r === current ? 0 : -1;
  tbody.addEventListener('focusin', (e) => {
    const row = e.target instanceof HTMLTableRowElement && e.target.parentElement === tbody ? e.target : null;
    if (!row || row === current) return;
    if (current) current.tabIndex = -1;
    current = row;
    row.tabIndex = 0;
  });
  tbody.addEventListener('keydown', (e) => {
    const row = e.target;
    if (!(row instanceof HTMLTableRowElement) || row.parentElement !== tbody) return;
    const all = rows();
    const i = all.indexOf(row);
    const moves: Record<string, number> = { ArrowDown: 1, ArrowUp: -1, PageDown: PAGE, PageUp: -PAGE, Home: -all.length, End: all.length };
    if (e.key in moves) {
      all[Math.max(0, Math.min(all.length - 1, i + moves[e.key]))]?.focus();
    } else if (e.key === 'Enter') {
      const link = row.querySelector<HTMLElement>('a[href], button:not(:disabled)');
      if (!link) return;
      link.click();
    } else return;
    e.preventDefault();
  });
}

/** One row of an ARIA treegrid, as the arrow keys see it. */
export interface TreeRowKeys {
  row: HTMLTableRowElement;
  expandable: boolean;
  expanded: boolean;
  toggle(): void;
  firstChild(): HTMLTableRowElement | undefined;
  parent(): HTMLTableRowElement | undefined;
  /** Enter (and Space): what the row does when chosen. */
  choose(key: 'Enter' | ' '): void;
}

/**
 * The treegrid keys of a row (the dominator tree, the threads): Up/Down move between the
 * visible rows, Home/End to the first/last, Right opens a row (or moves to its first
 * child), Left closes it (or moves to its parent), Enter and Space choose it. A link or
 * button inside the row keeps its own keys.
 */
export function treeRowKeydown(e: KeyboardEvent, rows: HTMLTableRowElement[], r: TreeRowKeys): void {
  if (e.target !== r.row) return;
  const i = rows.indexOf(r.row);
  const go = (row: HTMLTableRowElement | undefined): void => row?.focus();
  if (e.key === 'ArrowRight') {
    if (r.expandable && !r.expanded) r.toggle();
    else if (r.expanded) go(r.firstChild());
  } else if (e.key === 'ArrowLeft') {
    if (r.expanded) r.toggle();
    else go(r.parent());
  } else if (e.key === 'ArrowDown') go(rows[i + 1]);
  else if (e.key === 'ArrowUp') go(rows[i - 1]);
  else if (e.key === 'Home') go(rows[0]);
  else if (e.key === 'End') go(rows[rows.length - 1]);
  else if (e.key === 'Enter' || e.key === ' ') r.choose(e.key);
  else return;
  e.preventDefault();
}

/** The nearest row before `row` whose node `isParent` accepts (a treegrid row's parent). */
export function parentRow<N>(row: HTMLTableRowElement, nodes: Map<HTMLTableRowElement, N>, isParent: (n: N) => boolean): N | null {
  for (let r = row.previousElementSibling; r; r = r.previousElementSibling) {
    const n = nodes.get(r as HTMLTableRowElement);
    if (n !== undefined && isParent(n)) return n;
  }
  return null;
}

/**
 * A group of controls that is one tab stop (the ARIA toolbar pattern): the last one focused
 * (at first the first) is in the tab order, the arrows move between them, Home and End to
 * the first and the last; Space still toggles a checkbox. So a row of checkboxes (the
 * strength legend) costs one Tab press, not one per checkbox, on the way to what follows.
 */
export function rovingGroup(container: HTMLElement, controls: HTMLElement[]): void {
  if (!controls.length) return;
  let current = controls[0];
  for (const c of controls) c.tabIndex = c === current ? 0 : -1;
  container.addEventListener('focusin', (e) => {
    const c = controls.find((x) => x === e.target);
    if (!c || c === current) return;
    current.tabIndex = -1;
    current = c;
    c.tabIndex = 0;
  });
  container.addEventListener('keydown', (e) => {
    const i = controls.indexOf(e.target as HTMLElement);
    if (i < 0) return;
    const moves: Record<string, number> = { ArrowRight: i + 1, ArrowDown: i + 1, ArrowLeft: i - 1, ArrowUp: i - 1, Home: 0, End: controls.length - 1 };
    if (!(e.key in moves)) return;
    e.preventDefault();
    controls[Math.max(0, Math.min(controls.length - 1, moves[e.key]))].focus();
  });
}
