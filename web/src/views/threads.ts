// Threads: MAT's thread overview from the report (report.threads): every thread, largest
// retained first; a thread opens into its stack, one row per frame ("no stack recorded"
// when the dump has none for it), written as in Java (`Worker.descend(String, int)
// (WorkerPool.java:48)`, MAT's text on hover), with the retained sizes of its locals
// together, the thread's biggest frame marked; a frame opens into the objects it holds as
// locals, each with its class, shallow and retained size. Every object links to the
// inspector. The open threads and frames live in the URL fragment
// (#view=threads&threads=0x…,0x…/2: a frame is its thread's address and its index).
//
// Keyboard (the ARIA treegrid pattern, as the dominator tree): the tree is one tab stop
// (the last focused row); Up/Down move between rows, Home/End to the first/last, Right
// opens a row (or moves to its first child), Left closes it (or moves to its parent),
// Enter follows the row's object link (opens a frame). Names and frames come from the dump:
// text only.
import type { ObjectRef, ThreadInfo } from '../generated/report';
import { h, replaceChildren, setText, type Child } from '../lib/dom';
import { formatBp, formatCount, formatMiB } from '../lib/format';
import { javaFrame } from '../lib/frames';
import { parentRow } from '../lib/keyboard';
import { objectLink, objectTitle } from '../lib/objects';
import type { DumpContext } from './common';
import { wireTreeRow } from './treegrid';

type Kind = 'thread' | 'frame' | 'local' | 'note';

interface Node {
  kind: Kind;
  level: number;
  row: HTMLTableRowElement;
  toggle: HTMLButtonElement | null;
  expanded: boolean;
  /** Made when first opened. */
  children: Node[] | null;
  makeChildren: (() => Node[]) | null;
  /** For a thread its address, for a frame `address/index`: its key in the URL. */
  key?: string;
}

const COLUMNS = 6;

/** `text` with a line-break opportunity after each `.`, `/` and `$`, and before each `(` (a <wbr>, no
 *  character added): a long frame or class name wraps between its parts in a narrow window. */
function breakable(text: string): Child[] {
  return text.split(/(?<=[./$])|(?=\()/).flatMap((part, i) => (i ? [h('wbr'), part] : [part]));
}

/** "1 local", "3 locals", "no locals". */
export function localsText(n: number): string {
  return n === 0 ? 'no locals' : n === 1 ? '1 local' : `${formatCount(n)} locals`;
}

/** What a frame's locals retain together: each object once, the thread itself (a frame's
 * `this` in Thread.run) not counted, since it would make every such frame the biggest. */
function localsRetained(locals: ObjectRef[], thread: string): number {
  const seen = new Set<string>([thread]);
  let sum = 0;
  for (const o of locals) {
    if (seen.has(o.address)) continue;
    seen.add(o.address);
    sum += o.retained_bytes;
  }
  return sum;
}

function threadRef(t: ThreadInfo): ObjectRef {
  return { address: t.address, class_name: t.class_name, shallow_bytes: t.shallow_bytes, retained_bytes: t.retained_bytes, retained_bp: t.retained_bp };
}

export class ThreadsView {
  readonly root: HTMLElement;
  private readonly tbody: HTMLTableSectionElement;
  private readonly top: Node[];
  private readonly byThread = new Map<string, Node>();
  /** The frames made so far (threads opened), by key. */
  private readonly byFrame = new Map<string, Node>();
  private readonly nodes = new Map<HTMLTableRowElement, Node>();
  /** The row in the tab order (roving tabindex). */
  private current: Node | null = null;

  constructor(private readonly ctx: DumpContext) {
    const threads = ctx.report.threads ?? [];
    this.tbody = h('tbody', null);
    this.top = threads.map((t) => this.threadNode(t));
    const withStack = threads.filter((t) => t.has_stack).length;
    const summary = h(
      'p',
      { class: 'fine', id: 'threads-summary', 'data-threads': threads.length, 'data-with-stack': withStack },
      threads.length === 0
        ? 'This dump has no thread objects (no instance of java.lang.Thread or a subclass).'
        : `${formatCount(threads.length)} threads, largest retained first; ${formatCount(withStack)} with a stack recorded in the dump. Open a thread to see its stack, a frame to see the objects it holds as local variables.`,
    );
    this.root = h(
      'div',
      { class: 'threads' },
      summary,
      threads.length
        ? h(
            'table',
            { class: 'data tree', id: 'threads-tree', role: 'treegrid', 'aria-label': 'Threads, their stack frames and local objects' },
            h(
              'thead',
              null,
              h(
                'tr',
                null,
                h('th', { scope: 'col' }, 'Thread / stack frame / local'),
                h('th', { scope: 'col' }, 'Object'),
                h('th', { scope: 'col' }, 'Daemon'),
                h('th', { scope: 'col', class: 'num', title: 'Frames of a thread, locals of a frame' }, 'Frames / locals'),
                h('th', { scope: 'col', class: 'num' }, 'Shallow heap'),
                h('th', { scope: 'col', class: 'num', title: "A thread's retained size; for a frame, its locals' retained sizes together (each object once, the thread itself not counted)" }, 'Retained heap'),
              ),
            ),
            this.tbody,
          )
        : null,
    );
    this.render();
  }

  /** Opens exactly the threads and frames named in the URL (a frame opens its thread). */
  show(open: string[]): void {
    const want = new Set(open);
    for (const k of open) if (k.includes('/')) want.add(k.slice(0, k.indexOf('/')));
    let changed = false;
    const apply = (nodes: Iterable<[string, Node]>): void => {
      for (const [key, node] of nodes) {
        if (want.has(key) !== node.expanded) {
          this.setExpanded(node, want.has(key));
          changed = true;
        }
      }
    };
    // Threads first: opening one makes its frames.
    apply(this.byThread);
    apply(this.byFrame);
    if (changed) this.render();
  }

  private threadNode(t: ThreadInfo): Node {
    const frames = t.frames.length;
    const name = t.name ?? '(no name)';
    // Priority and context class loader where the dump has them, under the name.
    const facts = [t.priority === null || t.priority === undefined ? null : `priority ${t.priority}`, t.context_class_loader ? `context loader ${t.context_class_loader}` : null].filter((x) => x !== null);
    const row = this.row(1, 'thread', true, [
      h('span', null, h('span', { class: 'thread-name' }, name), ' ', h('span', { class: 'thread-class' }, t.class_name), facts.length ? h('span', { class: 'thread-facts' }, facts.join(' · ')) : null),
      objectLink(threadRef(t), 'inspector', t.address),
      t.daemon === null || t.daemon === undefined ? '' : t.daemon ? 'daemon' : 'no',
      t.has_stack ? `${formatCount(frames)} ${frames === 1 ? 'frame' : 'frames'}` : 'no stack',
      formatCount(t.shallow_bytes),
      h('span', { title: formatBp(t.retained_bp) }, formatCount(t.retained_bytes)),
    ]);
    row.dataset.address = t.address;
    row.dataset.frames = String(frames);
    row.dataset.hasStack = String(t.has_stack);
    row.dataset.retained = String(t.retained_bytes);
    row.dataset.name = name;
    const node = this.node('thread', 1, row, () => {
      const kids: Node[] = [];
      if (!t.has_stack) kids.push(this.note(2, 'no stack recorded', 'The dump has no stack trace for this thread.'));
      else if (frames === 0) kids.push(this.note(2, 'the stack recorded has no frames', ''));
      const rows = t.frames.map((f, i) => ({ text: f.frame, locals: f.locals, index: i, held: localsRetained(f.locals, t.address) }));
      if (t.other_locals.length) rows.push({ text: t.has_stack ? 'locals of frames the stack trace does not list' : 'locals (no stack recorded)', locals: t.other_locals, index: -1, held: localsRetained(t.other_locals, t.address) });
      // The frame whose locals hold the most (the first of equals): where to look first.
      const biggest = rows.reduce<(typeof rows)[number] | null>((best, f) => (f.held > 0 && (!best || f.held > best.held) ? f : best), null);
      for (const f of rows) kids.push(this.frameNode(t.address, f.text, f.locals, f.index, f.held, f === biggest));
      return kids;
    });
    node.key = t.address;
    this.byThread.set(t.address, node);
    return node;
  }

  private frameNode(thread: string, text: string, locals: ObjectRef[], index: number, held: number, biggest: boolean): Node {
    const shown = index >= 0 ? javaFrame(text) : text;
    const frame = h('span', { class: 'frame mono', title: shown === text ? null : text, 'data-mat': index >= 0 ? text : null }, ...breakable(shown));
    const mark = biggest ? h('span', { class: 'badge biggest-frame', title: "The frame whose locals retain the most in this thread" }, 'biggest') : null;
    const sum = held > 0 ? h('span', { title: `${formatMiB(held)}: the retained sizes of this frame's locals together` }, formatCount(held)) : '';
    const row = this.row(2, 'frame', locals.length > 0, [h('span', null, frame, mark), '', '', localsText(locals.length), '', sum]);
    row.dataset.frame = String(index);
    row.dataset.locals = String(locals.length);
    row.dataset.localsRetained = String(held);
    if (biggest) row.dataset.biggest = 'true';
    const node = this.node('frame', 2, row, locals.length ? () => locals.map((o) => this.localNode(o, thread)) : null);
    if (locals.length) {
      node.key = `${thread}/${index}`;
      this.byFrame.set(node.key, node);
    }
    return node;
  }

  private localNode(o: ObjectRef, thread: string): Node {
    const self = o.address === thread ? h('span', { class: 'fine' }, ' (this thread)') : null;
    const row = this.row(3, 'local', false, [h('span', { class: 'cls', title: objectTitle(o) }, ...breakable(objectTitle(o)), self), objectLink(o, 'inspector', o.address), '', '', formatCount(o.shallow_bytes), formatCount(o.retained_bytes)]);
    row.dataset.address = o.address;
    return this.node('local', 3, row, null);
  }

  private note(level: number, text: string, title: string): Node {
    const row = this.row(level, 'note', false, [h('em', { title: title || null }, text), '', '', '', '', '']);
    return this.node('note', level, row, null);
  }

  /** A row of `cells`; a frame's text spans the object and daemon columns too. */
  private row(level: number, kind: Kind, expandable: boolean, cells: Child[]): HTMLTableRowElement {
    const toggle = expandable ? h('button', { type: 'button', class: 'toggle', tabindex: -1, 'aria-hidden': 'true' }, '▸') : null;
    const span = kind === 'frame' || kind === 'note' ? 3 : 1;
    const first = h('td', { class: 'name', colspan: span > 1 ? span : null }, h('div', { class: 'cell-line' }, toggle ?? h('span', { class: 'toggle-space' }), h('div', null, cells[0])));
    first.style.paddingLeft = `${0.4 + (level - 1) * 1.1}rem`;
    const rest = cells.slice(1, COLUMNS).map((c, i) => (i < span - 1 ? null : h('td', { class: i >= 2 ? 'num' : i === 0 ? 'mono' : null }, c)));
    return h('tr', { role: 'row', 'aria-level': level, 'aria-expanded': expandable ? 'false' : null, 'data-kind': kind, tabindex: -1 }, first, ...rest);
  }

  private node(kind: Kind, level: number, row: HTMLTableRowElement, makeChildren: (() => Node[]) | null): Node {
    const toggle = row.querySelector<HTMLButtonElement>('button.toggle');
    const node: Node = { kind, level, row, toggle, expanded: false, children: null, makeChildren };
    this.nodes.set(row, node);
    wireTreeRow({
      row,
      toggle,
      focus: () => this.setCurrent(node),
      open: () => this.toggle(node),
      click: () => {
        if (node.makeChildren) this.toggle(node);
      },
      rows: () => [...this.tbody.rows],
      keys: () => ({
        row,
        expandable: node.makeChildren !== null,
        expanded: node.expanded,
        toggle: () => this.toggle(node),
        firstChild: () => node.children?.[0]?.row,
        parent: () => this.parentOf(node)?.row,
        choose: (key) => {
          const link = row.querySelector<HTMLAnchorElement>('a.obj');
          if (key === 'Enter' && link) link.click();
          else if (node.makeChildren) this.toggle(node);
        },
      }),
    });
    return node;
  }

  /** The row above `node` one level up (null for a thread). */
  private parentOf(node: Node): Node | null {
    return parentRow(node.row, this.nodes, (n) => n.level < node.level);
  }

  private setCurrent(node: Node): void {
    if (this.current === node) return;
    if (this.current) this.current.row.tabIndex = -1;
    this.current = node;
    node.row.tabIndex = 0;
  }

  private setExpanded(node: Node, open: boolean): void {
    if (!node.makeChildren || !node.toggle) return;
    node.expanded = open;
    if (open && !node.children) node.children = node.makeChildren();
    setText(node.toggle, open ? '▾' : '▸');
    node.row.setAttribute('aria-expanded', String(open));
  }

  private toggle(node: Node): void {
    this.setExpanded(node, !node.expanded);
    this.render();
    if (node.key) {
      // The open threads, and the open frames of those.
      const open: string[] = [];
      for (const t of this.top) {
        if (!t.expanded || !t.key) continue;
        open.push(t.key);
        for (const f of t.children ?? []) if (f.expanded && f.key) open.push(f.key);
      }
      this.ctx.store.set({ threads: open });
    }
  }

  /** Puts the visible rows in order (rows are reused), keeping the focus where it was. */
  private render(): void {
    const focused = document.activeElement;
    const rows: HTMLTableRowElement[] = [];
    // Depth-first with an explicit stack (frames and locals are shallow, but no recursion).
    const stack: Node[] = [...this.top].reverse();
    while (stack.length) {
      const n = stack.pop() as Node;
      rows.push(n.row);
      if (n.expanded && n.children) for (let i = n.children.length - 1; i >= 0; i--) stack.push(n.children[i]);
    }
    replaceChildren(this.tbody, ...rows);
    if ((!this.current || !this.current.row.isConnected) && this.top.length) {
      if (this.current) this.current.row.tabIndex = -1;
      this.current = null;
      this.setCurrent(this.top[0]);
    }
    if (focused instanceof HTMLElement && focused !== document.activeElement && this.tbody.contains(focused)) focused.focus();
  }
}
