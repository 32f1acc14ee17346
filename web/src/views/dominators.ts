// The dominator tree as a lazily expanding table: the top-level dominators first, each
// row expanding into the objects it keeps alive (children queries, a page at a time),
// largest retained first. Selecting a row selects the object (URL fragment).
//
// Keyboard (the ARIA treegrid pattern): the tree is one tab stop (the last focused row);
// Up/Down move between rows, Home/End to the first/last, Right expands (or moves to the
// first child), Left collapses (or moves to the parent), Enter selects the object.
import type { TreeNode } from '../generated/query';
import { h, setText } from '../lib/dom';
import { formatBp, formatCount } from '../lib/format';
import { className, objectLink, objectTitle } from '../lib/objects';
import { parentRow } from '../lib/keyboard';
import { loading, needsDump, queryFailed, type DumpContext } from './common';
import { Dock } from './dock';
import { GroupedTree } from './dominator-groups';
import { followColours, strengthDot, strengthLegend } from './strength';
import { orderRows, RovingRow, statusRow, treeRowKeys, wireTreeRow } from './treegrid';

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
  private readonly roving = new RovingRow();
  private readonly nodes = new Map<HTMLTableRowElement, Node>();
  private readonly dock: Dock;
  private readonly grouped: GroupedTree;
  private readonly groupToggle: HTMLInputElement;
  private objectTable: HTMLElement | null = null;

  constructor(private readonly ctx: DumpContext) {
    this.tbody = h('tbody', null);
    this.dock = new Dock(ctx);
    this.grouped = new GroupedTree(ctx, (g) => this.dock.showGroup(g));
    this.groupToggle = h('input', { type: 'checkbox', id: 'dominators-group' });
    if (!ctx.hasDump) {
      this.root = h('div', null, needsDump(ctx, 'dominator tree'));
      return;
    }
    this.groupToggle.addEventListener('change', () => ctx.store.set({ group: this.groupToggle.checked, open: [] }));
    this.objectTable = h(
        'table',
        { class: 'data tree', id: 'dominator-tree', role: 'treegrid', 'aria-label': 'Dominator tree' },
        h(
          'thead',
          null,
          h('tr', null, h('th', { scope: 'col' }, 'Class name'), h('th', { scope: 'col' }, 'Address'), h('th', { scope: 'col', class: 'num' }, 'Shallow heap'), h('th', { scope: 'col', class: 'num' }, 'Retained heap'), h('th', { scope: 'col', class: 'num' }, '% of heap')),
        ),
        this.tbody,
      );
    this.root = h(
      'div',
      { class: 'dominators', 'data-tree': ctx.q.tree },
      strengthLegend(ctx.report, 'strength-legend-dominators'),
      h('p', { class: 'fine' }, ctx.q.tree === 'strength'
        ? 'The strength-aware tree: each object keeps alive the objects under it, where a weak, soft, phantom, finalizer, cache, thread-local or stack reference holds an object only when nothing firmer does, and uncollected garbage hangs under the root. Expand a row to see what it retains; select a row to see its object beside the tree.'
        : 'Each object keeps alive the objects under it: without it, they would be garbage. Expand a row to see what it retains; select a row to see its object beside the tree.'),
      h('div', { class: 'toolbar' }, h('label', { for: 'dominators-group' }, this.groupToggle, ' Group by class (at every level, as Eclipse MAT groups its dominator tree)')),
      h('div', { class: 'split' }, h('div', { class: 'split-main' }, this.objectTable, this.grouped.root), this.dock.root),
    );
    followColours(this.root);
  }

  /** Loads the first level when the view is first shown; marks the selected object. */
  show(selected: string | null): void {
    this.selected = selected;
    if (!this.ctx.hasDump) return;
    const group = this.ctx.store.get().group === true;
    this.groupToggle.checked = group;
    if (this.objectTable) this.objectTable.hidden = group;
    this.grouped.root.hidden = !group;
    if (group) this.grouped.start();
    // In groups, the dock keeps the selected group until an object is chosen.
    if (!group || selected) this.dock.showObject(selected);
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
        // Rows open in the URL (object mode) open again as they appear.
        const open = this.ctx.store.get().group ? [] : (this.ctx.store.get().open ?? []);
        for (const n of nodes) if (n.toggle && open.includes(n.node.object.address)) this.toggle(n, false);
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
    return statusRow(parent ? parent.depth + 1 : 0, content);
  }

  private makeNode(n: TreeNode, depth: number): Node {
    const o = n.object;
    const toggle = n.children > 0
      ? h('button', { type: 'button', class: 'toggle', tabindex: -1, 'aria-hidden': 'true' }, '▸')
      : null;
    const name = h(
      'td',
      { class: 'name' },
      toggle ?? h('span', { class: 'toggle-space' }),
      strengthDot(n.strength),
      className(objectTitle(o)),
      // A linked structure's node, listed beside the rest of its chain.
      n.chain ? h('span', { class: 'fine chain-node', title: `Retains ${formatCount(n.chain.retained_bytes)} bytes with the rest of its chain` }, ` · 1 of ${formatCount(n.chain.nodes)} linked`) : null,
    );
    name.style.paddingLeft = `${0.4 + depth * 1.1}rem`;
    const row = h(
      'tr',
      {
        'data-address': o.address, 'data-strength': n.strength, 'data-depth': depth, 'data-children': n.children, role: 'row', 'aria-level': depth + 1,
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
    const select = (): void => this.ctx.store.set({ object: o.address });
    wireTreeRow({
      row,
      toggle,
      focus: () => this.setCurrent(node),
      open: () => this.toggle(node),
      click: select,
      rows: () => [...this.tbody.querySelectorAll<HTMLTableRowElement>('tr[data-address]')],
      keys: () => treeRowKeys(node, () => this.toggle(node), () => this.parentOf(node), select),
    });
    return node;
  }

  /** The node whose children list holds `node` (null at the top level). */
  private parentOf(node: Node): Node | null {
    return parentRow(node.row, this.nodes, (n) => n.depth < node.depth);
  }

  /** Puts `node`'s row (alone) in the tab order. */
  private setCurrent(node: Node): void {
    this.roving.set(node);
  }

  private toggle(node: Node, save = true): void {
    if (!node.toggle) return;
    node.expanded = !node.expanded;
    if (save) this.saveOpen(node);
    setText(node.toggle, node.expanded ? '▾' : '▸');
    node.row.setAttribute('aria-expanded', String(node.expanded));
    if (node.expanded && node.children.length === 0 && node.tail.length === 0) this.loadPage(node, 0);
    else this.render();
  }

  /** Keeps the expanded rows in the URL fragment (they survive switching views, reloads). */
  private saveOpen(changed: Node): void {
    const open = new Set(this.ctx.store.get().group ? [] : (this.ctx.store.get().open ?? []));
    if (changed.expanded) open.add(changed.node.object.address);
    else open.delete(changed.node.object.address);
    this.ctx.store.set({ open: [...open] });
  }

  /** Puts the visible rows in order. */
  private render(): void {
    orderRows(this.tbody, this.top, this.topTail);
    this.roving.ensure(this.top[0]);
  }

}
