// Arrow-key navigation over the rows of a plain data table (the overview's, top consumers',
// the inspector's fields…): the table body is one tab stop (roving tabindex: the last row
// focused, at first the first row); Up/Down, Page Up/Down, Home and End move the focus
// between rows, Enter follows the row's first link. The links inside stay reachable with
// Tab as usual.

const PAGE = 10;

export function navigableRows(tbody: HTMLTableSectionElement): void {
  const rows = (): HTMLTableRowElement[] => [...tbody.rows];
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
