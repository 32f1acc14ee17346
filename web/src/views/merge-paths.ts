// Merge shortest paths to GC roots (Eclipse MAT's query of that name), for the selected
// object: a class object stands for all its instances ("who holds these 150 listeners"),
// any other object for itself. One tree of the reference chains from the GC roots, each
// row counting the objects whose shortest path goes through it; weak, soft and phantom
// references are not followed, as in MAT's default.
import type { MergedPaths } from '../generated/query';
import type { ObjectRef } from '../generated/report';
import { h, replaceChildren } from '../lib/dom';
import { formatCount } from '../lib/format';
import { objectLink, objectTitle } from '../lib/objects';
import { loading, needsDump, queryFailed, table, type DumpContext } from './common';

/** Rows listed at most. */
const LIMIT = 400;

export class MergePathsView {
  readonly root: HTMLElement;
  private readonly body: HTMLElement;
  private current: string | null | undefined = undefined;

  constructor(private readonly ctx: DumpContext) {
    this.body = h('div', { id: 'merge-body' });
    this.root = ctx.hasDump ? h('div', { class: 'merge-paths' }, this.body) : h('div', null, needsDump(ctx, 'merged paths from the GC roots'));
  }

  show(address: string | null): void {
    if (!this.ctx.hasDump || address === this.current) return;
    this.current = address;
    if (!address) {
      replaceChildren(this.body, h('p', { class: 'placeholder' }, 'No object selected. Open "merge paths to GC roots" from a class in the histogram or from a leak suspect, or select an object: a class object stands for all its instances.'));
      return;
    }
    replaceChildren(this.body, loading(`Searching the shortest paths from the GC roots (one pass over the heap)…`));
    this.ctx.q.find(address).then(async (o) => {
      if (this.current !== address) return;
      if (!o) {
        replaceChildren(this.body, h('p', null, `No object at ${address} (or it is unreachable).`));
        return;
      }
      const m = await this.ctx.q.ask(o.class_of_object ? { query: 'merge_paths', class: address, objects: [], limit: LIMIT } : { query: 'merge_paths', class: null, objects: [address], limit: LIMIT }, true);
      if (this.current === address) replaceChildren(this.body, render(o, m));
    }).catch((e) => {
      if (this.current === address) replaceChildren(this.body, queryFailed(e));
    });
  }
}

/** A cell's content indented by its depth (through the CSSOM: the CSP allows no style attribute). */
function indented(depth: number, ...children: (HTMLElement | string | null)[]): HTMLElement {
  const span = h('span', { class: 'merge-node' }, ...children);
  span.style.paddingLeft = `${Math.min(depth, 40) * 1.1}em`;
  return span;
}

function render(o: ObjectRef, m: MergedPaths): HTMLElement {
  const what = o.class_of_object ? `the ${formatCount(m.objects)} instance${m.objects === 1 ? '' : 's'} of ${o.class_of_object}` : `${objectTitle(o)} @ ${o.address}`;
  const notes: string[] = [];
  if (m.capped) notes.push(`Only the first ${formatCount(m.considered)} of them were taken.`);
  if (m.unreached) notes.push(`${formatCount(m.unreached)} are held only through weak, soft or phantom references or finalizer links (not shown).`);
  if (m.truncated) notes.push(`The tree is cut to its ${formatCount(m.nodes.length)} most counted rows (at most 50 children per row).`);
  return h(
    'div',
    { id: 'merge-paths', 'data-objects': String(m.objects), 'data-considered': String(m.considered), 'data-unreached': String(m.unreached) },
    h('h3', null, 'Merged paths from the GC roots to ', what),
    h('p', { class: 'fine' }, 'Each object\'s shortest chain of references from a GC root, merged where the chains share their start; "Objects" counts the objects whose chain goes through the row. Weak, soft and phantom references are not followed (MAT\'s default). ', ...notes.map((n) => `${n} `)),
    table(
      'merge-table',
      null,
      [{ label: 'Object (↳ the field referencing it)', name: true }, { label: 'Objects', num: true }, { label: 'Shallow heap', num: true }, { label: 'Retained heap', num: true }],
      m.nodes.map((n) => [
        indented(
          n.depth,
          n.gc_root?.length ? h('span', { class: 'badge root' }, `GC root: ${n.gc_root.join(', ')}`) : null,
          n.via.length ? h('span', { class: 'mono via' }, `↳ ${n.via.join(', ')} `) : null,
          objectLink(n.object),
        ),
        formatCount(n.count),
        formatCount(n.object.shallow_bytes),
        formatCount(n.object.retained_bytes),
      ]),
      (i) => ({ 'data-address': m.nodes[i].object.address, 'data-count': String(m.nodes[i].count), 'data-depth': String(m.nodes[i].depth), 'data-target': String(m.nodes[i].target), 'data-class': m.nodes[i].object.class_name }),
    ),
  );
}
