// The dominator tree as a lazily expanding table: the top-level dominators first, each
// row expanding into the objects it keeps alive (children queries, a page at a time),
// largest retained first. Selecting a row selects the object (URL fragment).
//
// Keyboard (the ARIA treegrid pattern): the tree is one tab stop (the last focused row);
// Up/Down move between rows, Home/End to the first/last, Right expands (or moves to the
// first child), Left collapses (or moves to the parent), Enter selects the object.
import type { TreeNode } from '../generated/query';
import { h, replaceChildren, setText } from '../lib/dom';
import { formatBp, formatCount } from '../lib/format';
import { parentRow, treeRowKeydown } from '../lib/keyboard';
import { objectLink, objectTitle } from '../lib/objects';
import { loading, needsDump, queryFailed, type DumpContext } from './common';

const PAGE = 50;

interface Node {
  node: TreeNode;
  depth: number;
  row: HTMLTableRowElement;
  toggle: HTMLButtonElement | null;
  expanded: boolean;
  children: Node[];
  /** Rows after the children: "show more" (and a loading/error line). */
  tail: HTMLTableRowElement[];
  total: number;
}

export class DominatorTreeView {
  readonly root: HTMLElement;
  private readonly tbody: HTMLTableSectionElement;
  private top: Node[] = [];
  private topTail: HTMLTableRowElement[] = [];
  private started = false;
  private selected: string | null = null;
  /** The row in the tab order (roving tabindex): the last one focused. */
  private current: Node | null = null;
  private readonly nodes = new Map<HTMLTableRowElement, Node>();

  constructor(private readonly ctx: DumpContext) {
    this.tbody = h('tbody', null);
    if (!ctx.hasDump) {
      this.root = h('div', null, needsDump(ctx, 'dominator tree'));
      return;
    }
    this.root = h(
      'div',
      { class: 'dominators' },
      h('p', { class: 'fine' }, 'Each object keeps alive the objects under it: without it, they would be garbage. Expand a row to see what it retains; select a row to inspect its object.'),
      h(
        'table',
        { class: 'data tree', id: 'dominator-tree', role: 'treegrid', 'aria-label': 'Dominator tree' },
        h(
          'thead',
          null,
          h('tr', null, h('th', { scope: 'col' }, 'Class name'), h('th', { scope: 'col' }, 'Address'), h('th', { scope: 'col', class: 'num' }, 'Shallow heap'), h('th', { scope: 'col', class: 'num' }, 'Retained heap'), h('th', { scope: 'col', class: 'num' }, '% of heap')),
        ),
        this.tbody,
      ),
    );
  }

  /** Loads the first level when the view is first shown; marks the selected object. */
  show(selected: string | null): void {
    this.selected = selected;
    for (const row of this.tbody.querySelectorAll<HTMLTableRowElement>('tr[data-address]')) {
      row.setAttribute('aria-selected', String(row.dataset.address === selected));
    }
    if (this.started || !this.ctx.hasDump) return;
    this.started = true;
    this.loadPage(null, 0);
  }

  private loadPage(parent: Node | null, offset: number): void {
    const status = this.statusRow(parent, loading());
    this.setTail(parent, [status]);
    this.ctx.q.children(parent ? parent.node.object.address : null, offset, PAGE).then(
      (page) => {
        const depth = parent ? parent.depth + 1 : 0;
        const nodes = page.nodes.map((n) => this.makeNode(n, depth));
        const list = parent ? parent.children : this.top;
        list.push(...nodes);
        if (parent) parent.total = page.total;
        const shown = page.offset + page.nodes.length;
        const tail: HTMLTableRowElement[] = [];
        if (shown < page.total) {
          const b = h('button', { type: 'button', class: 'link more', 'data-more': '' }, `Show ${formatCount(Math.min(PAGE, page.total - shown))} more (${formatCount(page.total - shown)} left, ${formatCount(page.total)} in all)`);
          b.addEventListener('click', () => this.loadPage(parent, shown));
          tail.push(this.statusRow(parent, b));
        }
        this.setTail(parent, tail);
        this.render();
      },
      (e) => {
        this.setTail(parent, [this.statusRow(parent, queryFailed(e))]);
        this.render();
      },
    );
    this.render();
  }

  private setTail(parent: Node | null, rows: HTMLTableRowElement[]): void {
    if (parent) parent.tail = rows;
    else this.topTail = rows;
  }

  private statusRow(parent: Node | null, content: HTMLElement): HTMLTableRowElement {
    const depth = parent ? parent.depth + 1 : 0;
    const cell = h('td', { colspan: 5, class: 'status' }, content);
    cell.style.paddingLeft = `${0.4 + depth * 1.1 + 1.4}rem`;
    return h('tr', { class: 'status-row' }, cell);
  }

  private makeNode(n: TreeNode, depth: number): Node {
    const o = n.object;
    const toggle = n.children > 0
      ? h('button', { type: 'button', class: 'toggle', tabindex: -1, 'aria-hidden': 'true' }, '▸')
      : null;
    const name = h('td', { class: 'name' }, toggle ?? h('span', { class: 'toggle-space' }), h('span', { class: 'cls', title: objectTitle(o) }, objectTitle(o)));
    name.style.paddingLeft = `${0.4 + depth * 1.1}rem`;
    const row = h(
      'tr',
      {
        'data-address': o.address, 'data-depth': depth, 'data-children': n.children, role: 'row', 'aria-level': depth + 1,
        'aria-selected': String(o.address === this.selected), 'aria-expanded': toggle ? 'false' : null, tabindex: -1,
      },
      name,
      h('td', { class: 'mono' }, objectLink(o, 'inspector', o.address)),
      h('td', { class: 'num' }, formatCount(o.shallow_bytes)),
      h('td', { class: 'num' }, formatCount(o.retained_bytes)),
      h('td', { class: 'num' }, formatBp(o.retained_bp)),
    );
    const node: Node = { node: n, depth, row, toggle, expanded: false, children: [], tail: [], total: n.children };
    this.nodes.set(row, node);
    row.addEventListener('focus', () => this.setCurrent(node));
    toggle?.addEventListener('click', (e) => {
      e.stopPropagation();
      this.toggle(node);
    });
    row.addEventListener('click', (e) => {
      if ((e.target as HTMLElement).closest('a')) return;
      this.ctx.store.set({ object: o.address });
    });
    row.addEventListener('keydown', (e) =>
      treeRowKeydown(e, [...this.tbody.querySelectorAll<HTMLTableRowElement>('tr[data-address]')], {
        row,
        expandable: toggle !== null,
        expanded: node.expanded,
        toggle: () => this.toggle(node),
        firstChild: () => node.children[0]?.row,
        parent: () => this.parentOf(node)?.row,
        choose: () => this.ctx.store.set({ object: o.address }),
      }),
    );
    return node;
  }

  /** The node whose children list holds `node` (null at the top level). */
  private parentOf(node: Node): Node | null {
    return parentRow(node.row, this.nodes, (n) => n.depth < node.depth);
  }

  /** Puts `node`'s row (alone) in the tab order. */
  private setCurrent(node: Node): void {
    if (this.current === node) return;
    if (this.current) this.current.row.tabIndex = -1;
    this.current = node;
    node.row.tabIndex = 0;
  }

  private toggle(node: Node): void {
    if (!node.toggle) return;
    node.expanded = !node.expanded;
    setText(node.toggle, node.expanded ? '▾' : '▸');
    node.row.setAttribute('aria-expanded', String(node.expanded));
    if (node.expanded && node.children.length === 0 && node.tail.length === 0) this.loadPage(node, 0);
    else this.render();
  }

  /** Puts the visible rows in order (rows are reused, only their order changes). */
  private render(): void {
    const rows: HTMLTableRowElement[] = [];
    // Re-inserting a row drops its focus: it is given back after the rows are in place.
    const focused = document.activeElement;
    const visit = (nodes: Node[]): void => {
      for (const n of nodes) {
        rows.push(n.row);
        if (n.expanded) {
          visit(n.children);
          rows.push(...n.tail);
        }
      }
    };
    visit(this.top);
    rows.push(...this.topTail);
    replaceChildren(this.tbody, ...rows);
    if (!this.current && this.top.length) this.setCurrent(this.top[0]);
    if (focused instanceof HTMLElement && focused !== document.activeElement && this.tbody.contains(focused)) focused.focus();
  }
}
