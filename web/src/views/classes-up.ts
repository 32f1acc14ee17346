// Classes up: the dominator tree read from the classes up (the reverse dominator tree).
// Every object sits on the row of its class; above a row, the classes of the objects that
// immediately dominate its objects, expandable level by level (classes_up queries). A
// row's weight is the shallow bytes of the objects at the bottom of its column, so the
// rows above a row split its weight exactly, and the top row, "the whole heap dump", is
// where what nothing in particular holds ends up. The open rows live in the URL fragment
// (#view=classes&rows=0x…,0x…;…). Class names come from the dump: text only.
import type { ClassRow } from '../generated/query';
import { h, replaceChildren } from '../lib/dom';
import { formatCount } from '../lib/format';
import { className, objectLink } from '../lib/objects';
import { loading, needsDump, queryFailed, type DumpContext } from './common';

/** Rows asked for per level. */
const LIMIT = 200;
/** Objects listed when a row's instances are asked for. */
const INSTANCES = 20;

interface RowNode {
  row: ClassRow;
  /** Class object addresses from the bottom row up to this one. */
  column: string[];
  item: HTMLLIElement;
  toggle: HTMLButtonElement | null;
  above: HTMLUListElement | null;
}

export class ClassesUpView {
  readonly root: HTMLElement;
  private readonly list: HTMLUListElement;
  private readonly nodes = new Map<string, RowNode>();
  private started = false;
  private open: string[][] = [];

  constructor(private readonly ctx: DumpContext) {
    this.list = h('ul', { class: 'classes-up', id: 'classes-up', role: 'tree', 'aria-label': 'Classes up' });
    this.root = ctx.hasDump
      ? h(
          'div',
          { class: 'classes-up-view' },
          h(
            'p',
            { class: 'fine' },
            'Each class\'s row weighs the shallow bytes of its objects. Open a row to see, above it, the classes of the objects that keep those objects alive (their immediate dominators), with the share of the bytes each holds; open those in turn to climb further, up to "the whole heap dump", where what nothing in particular holds ends up.',
          ),
          this.list,
        )
      : h('div', null, needsDump(ctx, 'classes-up view'));
  }

  /** Shows the class rows, and opens the columns named in the URL. */
  show(open: string[][]): void {
    if (!this.ctx.hasDump) return;
    this.open = open;
    if (!this.started) {
      this.started = true;
      replaceChildren(this.list, loading('Gathering every object onto the row of its class…'));
      this.ctx.q.classesUp([], LIMIT).then(
        (up) => {
          replaceChildren(this.list, ...up.rows.map((r) => this.item(r, r.class_address ? [r.class_address] : [])));
          this.restore();
        },
        (e) => replaceChildren(this.list, queryFailed(e)),
      );
    } else this.restore();
  }

  /** Opens the rows of `this.open` that are shown and closed, shortest column first. */
  private restore(): void {
    for (const column of [...this.open].sort((a, b) => a.length - b.length)) {
      const node = this.nodes.get(column.join(','));
      if (node && !node.above) this.expand(node, false);
    }
  }

  private item(row: ClassRow, column: string[]): HTMLLIElement {
    const expandable = row.class_address !== null && row.class_address !== undefined;
    const toggle = expandable ? h('button', { type: 'button', class: 'toggle', 'aria-label': `Show the classes above ${row.class_name}` }, '▸') : null;
    const name = expandable
      ? h('a', { href: '#', class: 'obj', 'data-address': row.class_address ?? '', 'data-no-value': '', title: `The class object of ${row.class_name}` }, className(row.class_name, false))
      : h('span', { class: 'whole-heap' }, row.class_name);
    const instances = h('div', { class: 'instances' });
    const instancesButton = expandable && column.length === 1 ? h('button', { type: 'button', class: 'secondary small' }, 'objects') : null;
    const item = h(
      'li',
      { role: 'treeitem', 'aria-expanded': expandable ? 'false' : null, 'data-class': row.class_name, 'data-weight': String(row.weight_bytes), 'data-objects': String(row.objects), 'data-column': column.join(',') },
      h(
        'div',
        { class: 'class-row' },
        toggle ?? h('span', { class: 'toggle-space' }),
        h('span', { class: 'num weight', title: 'shallow bytes at the bottom of this column' }, `${formatCount(row.weight_bytes)} B`),
        h('span', { class: 'num count' }, `${formatCount(row.objects)} ×`),
        column.length > 1 ? h('span', { class: 'up' }, '↑ ') : null,
        name,
        instancesButton ? ' ' : null,
        instancesButton,
      ),
      instances,
    );
    const node: RowNode = { row, column, item, toggle, above: null };
    if (expandable) this.nodes.set(column.join(','), node);
    toggle?.addEventListener('click', () => (node.above ? this.collapse(node) : this.expand(node, true)));
    name.addEventListener('click', (e) => {
      if (!row.class_address) return;
      e.preventDefault();
      this.ctx.store.set({ view: 'inspector', object: row.class_address });
    });
    instancesButton?.addEventListener('click', () => {
      if (!row.class_address) return;
      replaceChildren(instances, loading());
      this.ctx.q.instances(row.class_address, 0, INSTANCES).then(
        (page) => replaceChildren(instances, h('ul', { class: 'plain' }, ...page.objects.map((o) => h('li', null, objectLink(o), ` — retains ${formatCount(o.retained_bytes)} bytes`))), page.total > page.objects.length ? h('p', { class: 'fine' }, `the ${page.objects.length} retaining the most of ${formatCount(page.total)}`) : null),
        (e) => replaceChildren(instances, queryFailed(e)),
      );
    });
    return item;
  }

  private expand(node: RowNode, remember: boolean): void {
    const above = h('ul', { role: 'group' }, h('li', null, loading('Climbing one level of the dominator tree…')));
    node.above = above;
    node.item.appendChild(above);
    node.item.setAttribute('aria-expanded', 'true');
    if (node.toggle) node.toggle.textContent = '▾';
    if (remember) this.remember(node.column, true);
    this.ctx.q.classesUp(node.column, LIMIT).then(
      (up) => {
        if (node.above !== above) return;
        replaceChildren(above, ...up.rows.map((r) => this.item(r, r.class_address ? [...node.column, r.class_address] : [])));
        this.restore();
      },
      (e) => replaceChildren(above, h('li', null, queryFailed(e))),
    );
  }

  private collapse(node: RowNode): void {
    node.above?.remove();
    node.above = null;
    node.item.setAttribute('aria-expanded', 'false');
    if (node.toggle) node.toggle.textContent = '▸';
    const key = node.column.join(',');
    for (const k of [...this.nodes.keys()]) if (k.startsWith(`${key},`)) this.nodes.delete(k);
    this.remember(node.column, false);
  }

  private remember(column: string[], open: boolean): void {
    const key = column.join(',');
    const rest = this.open.filter((c) => c.join(',') !== key && !(open ? false : c.join(',').startsWith(`${key},`)));
    this.open = open ? [...rest, column] : rest;
    this.ctx.store.set({ rows: this.open });
  }
}
