// The dominator tree grouped by class at every level (MAT's "group by class"): the top
// level's objects by class; opening a group groups the children of all its objects by
// class, and so on (the `dominator_groups` query, named by the path of classes opened).
// Selecting a group shows it in the dock beside the tree. The open groups are kept in the
// URL fragment (`group=class&open=0x1/0x2,…`).
//
// Keyboard (ARIA treegrid, as the object tree): Up/Down, Home/End, Right opens (or moves to
// the first child), Left closes (or moves to the parent), Enter selects.
import type { DominatorGroup } from '../generated/query';
import { h, setText } from '../lib/dom';
import { formatBp, formatCount } from '../lib/format';
import { className } from '../lib/objects';
import { loading, queryFailed, type DumpContext } from './common';
import { orderRows, RovingRow, statusRow, treeRowKeys, wireTreeRow } from './treegrid';

const LIMIT = 200;

interface GroupNode {
  group: DominatorGroup;
  path: string[];
  row: HTMLTableRowElement;
  toggle: HTMLButtonElement | null;
  expanded: boolean;
  loaded: boolean;
  children: GroupNode[];
  tail: HTMLTableRowElement[];
}

export class GroupedTree {
  readonly root: HTMLElement;
  private readonly tbody: HTMLTableSectionElement;
  private top: GroupNode[] = [];
  private topTail: HTMLTableRowElement[] = [];
  private started = false;
  private readonly roving = new RovingRow();
  private readonly nodes = new Map<HTMLTableRowElement, GroupNode>();

  constructor(
    private readonly ctx: DumpContext,
    private readonly onSelect: (g: DominatorGroup) => void,
  ) {
    this.tbody = h('tbody', null);
    this.root = h(
      'table',
      { class: 'data tree', id: 'dominator-groups', role: 'treegrid', 'aria-label': 'Dominator tree grouped by class' },
      h(
        'thead',
        null,
        h('tr', null, h('th', { scope: 'col' }, 'Class name'), h('th', { scope: 'col', class: 'num' }, 'Objects'), h('th', { scope: 'col', class: 'num' }, 'Shallow heap'), h('th', { scope: 'col', class: 'num' }, 'Retained heap'), h('th', { scope: 'col', class: 'num' }, '% of heap')),
      ),
      this.tbody,
    );
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    this.load(null);
  }

  private openKeys(): Set<string> {
    return new Set(this.ctx.store.get().open ?? []);
  }

  private saveOpen(): void {
    const keys: string[] = [];
    const visit = (list: GroupNode[]): void => {
      for (const n of list) {
        if (n.expanded) {
          keys.push(n.path.join('/'));
          visit(n.children);
        }
      }
    };
    visit(this.top);
    this.ctx.store.set({ open: keys });
  }

  private load(parent: GroupNode | null): void {
    const depth = parent ? parent.path.length : 0;
    this.setTail(parent, [statusRow(depth, loading())]);
    this.render();
    this.ctx.q.dominatorGroups(parent ? parent.path : [], LIMIT).then(
      (answer) => {
        const nodes = answer.groups.map((g) => this.makeNode(g, [...(parent?.path ?? []), g.class_address]));
        if (parent) {
          parent.children = nodes;
          parent.loaded = true;
        } else this.top = nodes;
        const more = Number(answer.total) - answer.groups.length;
        this.setTail(parent, more > 0 ? [statusRow(depth, h('span', { class: 'fine' }, `… and ${formatCount(more)} smaller classes`))] : []);
        // Groups open in the URL open again as they appear.
        const open = this.openKeys();
        for (const n of nodes) if (open.has(n.path.join('/')) && n.toggle) this.toggle(n, false);
        this.render();
      },
      (e) => {
        this.setTail(parent, [statusRow(depth, queryFailed(e))]);
        this.render();
      },
    );
  }

  private setTail(parent: GroupNode | null, rows: HTMLTableRowElement[]): void {
    if (parent) parent.tail = rows;
    else this.topTail = rows;
  }


  private makeNode(g: DominatorGroup, path: string[]): GroupNode {
    const depth = path.length - 1;
    const toggle = Number(g.children) > 0 ? h('button', { type: 'button', class: 'toggle', tabindex: -1, 'aria-hidden': 'true' }, '▸') : null;
    const name = h('td', { class: 'name' }, toggle ?? h('span', { class: 'toggle-space' }), className(g.class_name));
    name.style.paddingLeft = `${0.4 + depth * 1.1}rem`;
    const used = this.ctx.report.overview.used_heap_bytes;
    const row = h(
      'tr',
      {
        'data-group': path.join('/'), 'data-class': g.class_name, 'data-objects': String(g.objects), 'data-shallow': String(g.shallow_bytes), 'data-retained': String(g.retained_bytes),
        'data-depth': depth, role: 'row', 'aria-level': depth + 1, 'aria-selected': 'false', 'aria-expanded': toggle ? 'false' : null, tabindex: -1,
      },
      name,
      h('td', { class: 'num' }, formatCount(g.objects)),
      h('td', { class: 'num' }, formatCount(g.shallow_bytes)),
      h('td', { class: 'num' }, formatCount(g.retained_bytes)),
      h('td', { class: 'num' }, formatBp(used > 0 ? Math.round((Number(g.retained_bytes) / used) * 10_000) : 0)),
    );
    const node: GroupNode = { group: g, path, row, toggle, expanded: false, loaded: false, children: [], tail: [] };
    this.nodes.set(row, node);
    wireTreeRow({
      row,
      toggle,
      focus: () => this.roving.set(node),
      open: () => this.toggle(node),
      click: () => this.select(node),
      rows: () => [...this.tbody.querySelectorAll<HTMLTableRowElement>('tr[data-group]')],
      keys: () => treeRowKeys(node, () => this.toggle(node), () => this.parentOf(node), () => this.select(node)),
    });
    return node;
  }

  private select(node: GroupNode): void {
    for (const r of this.tbody.querySelectorAll('tr[aria-selected="true"]')) r.setAttribute('aria-selected', 'false');
    node.row.setAttribute('aria-selected', 'true');
    this.onSelect(node.group);
  }

  private parentOf(node: GroupNode): GroupNode | null {
    const key = node.path.slice(0, -1).join('/');
    for (const n of this.nodes.values()) if (n.path.join('/') === key) return n;
    return null;
  }


  private toggle(node: GroupNode, save = true): void {
    if (!node.toggle) return;
    node.expanded = !node.expanded;
    setText(node.toggle, node.expanded ? '▾' : '▸');
    node.row.setAttribute('aria-expanded', String(node.expanded));
    if (node.expanded && !node.loaded && node.tail.length === 0) this.load(node);
    else this.render();
    if (save) this.saveOpen();
  }

  private render(): void {
    orderRows(this.tbody, this.top, this.topTail);
    this.roving.ensure(this.top[0]);
  }

}
