// The inspector docked beside the dominator tree: the selected object's facts and fields
// (or a class group's biggest objects), read from the dump, without leaving the tree. The
// full inspector is one link away. Everything from the dump is set as text.
import type { DominatorGroup } from '../generated/query';
import { h, replaceChildren } from '../lib/dom';
import { formatBp, formatCount, formatMiB } from '../lib/format';
import { className, objectLink, objectTitle } from '../lib/objects';
import { formatFragment } from '../lib/state';
import { loading, queryFailed, type DumpContext } from './common';

/** Fields listed in the dock (the inspector lists them all). */
const DOCK_FIELDS = 40;

export class Dock {
  readonly root: HTMLElement;
  private readonly body: HTMLElement;
  private current: string | null = null;

  constructor(private readonly ctx: DumpContext) {
    this.body = h('div', { class: 'dock-body' }, h('p', { class: 'fine' }, 'Select a row to see its object here.'));
    this.root = h('aside', { class: 'dock panel', id: 'tree-dock', 'aria-label': 'Selected object', 'aria-live': 'polite' }, this.body);
  }

  /** Shows the object at `address` (null: nothing selected). */
  showObject(address: string | null): void {
    if (address === this.current) return;
    this.current = address;
    if (!address) {
      replaceChildren(this.body, h('p', { class: 'fine' }, 'Select a row to see its object here.'));
      return;
    }
    replaceChildren(this.body, loading(`Reading ${address} from the dump…`));
    this.ctx.q.objectDetails(address).then(
      (d) => {
        if (this.current !== address) return;
        const o = d.object;
        const fields = d.fields.slice(0, DOCK_FIELDS);
        replaceChildren(
          this.body,
          h('h3', { class: 'dock-title', 'data-address': o.address, title: objectTitle(o) }, className(objectTitle(o)), h('span', { class: 'mono addr' }, ` @ ${o.address}`)),
          h(
            'dl',
            { class: 'facts dock-facts' },
            h('div', { class: 'fact' }, h('dt', null, 'Retained'), h('dd', { 'data-retained': String(o.retained_bytes) }, `${formatCount(o.retained_bytes)} bytes (${formatMiB(o.retained_bytes)}, ${formatBp(o.retained_bp)})`)),
            h('div', { class: 'fact' }, h('dt', null, 'Shallow'), h('dd', null, `${formatCount(o.shallow_bytes)} bytes`)),
            d.array_length !== null && d.array_length !== undefined ? h('div', { class: 'fact' }, h('dt', null, 'Length'), h('dd', null, formatCount(d.array_length))) : null,
            h('div', { class: 'fact' }, h('dt', null, 'Loader'), h('dd', null, className(d.loader))),
            h('div', { class: 'fact' }, h('dt', null, 'GC root'), h('dd', null, d.gc_root.length ? d.gc_root.join(', ') : 'no')),
          ),
          h('p', null, h('a', { href: formatFragment({ view: 'inspector', object: o.address }), 'data-open-inspector': '' }, 'Open in the inspector'), ' · ', objectLink(o, 'path', 'path from a GC root')),
          d.text !== null && d.text !== undefined ? h('pre', { class: 'string-text', title: d.text === '' ? 'an empty string' : null }, d.text === '' ? '""' : d.text) : null,
          fields.length
            ? h(
                'ul',
                { class: 'dock-fields' },
                ...fields.map((f) => h('li', null, h('span', { class: 'mono' }, f.name), ' = ', f.reference ? objectLink(f.reference, 'dominators') : h('span', { class: 'mono value' }, f.value))),
                d.fields.length > fields.length ? h('li', { class: 'fine' }, `… ${formatCount(d.fields.length - fields.length)} more in the inspector`) : null,
              )
            : null,
        );
      },
      (e) => {
        if (this.current === address) replaceChildren(this.body, queryFailed(e));
      },
    );
  }

  /** Shows a class group of the grouped tree: its sums and biggest objects. */
  showGroup(g: DominatorGroup): void {
    this.current = null;
    replaceChildren(
      this.body,
      h('h3', { class: 'dock-title', 'data-group': g.class_address, title: g.class_name }, className(g.class_name)),
      h('p', null, `${formatCount(g.objects)} objects at this level, retaining ${formatCount(g.retained_bytes)} bytes (${formatMiB(g.retained_bytes)}); shallow ${formatCount(g.shallow_bytes)} bytes.`),
      h('h4', null, g.biggest.length < g.objects ? `The ${formatCount(g.biggest.length)} biggest` : 'Its objects'),
      h('ol', { class: 'dock-members' }, ...g.biggest.map((o) => h('li', null, objectLink(o, 'dominators'), ` — ${formatMiB(o.retained_bytes)}`))),
    );
  }
}
