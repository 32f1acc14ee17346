// A collection as what it holds, in the inspector: its entries (key → value for maps,
// index → element for lists and arrays), each with its retained size, read by the
// `entries` query a page at a time; the raw fields stay one click away (folded below).
import type { Entries, Slot } from '../generated/query';
import { h, replaceChildren } from '../lib/dom';
import { formatCount } from '../lib/format';
import { objectLink } from '../lib/objects';
import { loading, queryFailed, table, type DumpContext } from './common';

/** Entries asked per page. */
const PAGE = 100;

function slotCell(s: Slot | null | undefined): HTMLElement | string {
  if (!s) return '';
  if (s.reference) return objectLink(s.reference);
  return h('span', { class: 'mono value' }, s.value);
}

/** The entries section of the object at `address` (empty for an object that is not a
 * collection). `details` is the inspector's details block, whose raw fields get folded. */
export function entriesSection(ctx: DumpContext, address: string, details: HTMLElement): HTMLElement {
  const out = h('div', { class: 'entries', id: 'inspector-entries', hidden: '' });
  const list = h('div', null);
  const more = (offset: number): void => {
    ctx.q.ask({ query: 'entries', object: address, offset, limit: PAGE }, true).then(
      (e) => {
        if (!e.kind) return;
        if (offset === 0) {
          out.hidden = false;
          foldRawFields(details);
          replaceChildren(out, h('h4', null, 'Entries'), summary(e), list);
        }
        append(list, e, () => more(offset + PAGE));
      },
      (err) => {
        out.hidden = false;
        replaceChildren(out, queryFailed(err));
      },
    );
  };
  replaceChildren(out, loading('Reading the entries…'));
  more(0);
  return out;
}

function summary(e: Entries): HTMLElement {
  const what = e.kind === 'map' ? 'entries' : e.kind === 'set' ? 'members' : 'elements';
  const size = e.size !== null && e.size !== undefined && e.size !== e.total ? ` (its size field says ${formatCount(e.size)})` : '';
  const partial = e.complete ? '' : ` — ${e.note ?? 'the walk stopped early'}; at least this many`;
  return h('p', { class: 'fine', 'data-total': String(e.total), 'data-kind': e.kind ?? '' }, `${formatCount(e.total)} ${what}${size}${partial}. Retained: what the entry's node (or element) retains in the dominator tree.`);
}

function append(list: HTMLElement, e: Entries, more: () => void): void {
  list.querySelector('.more')?.remove();
  const map = e.kind === 'map' || e.kind === 'set';
  const columns = map
    ? [{ label: '#', num: true }, { label: 'Key' }, ...(e.kind === 'map' ? [{ label: 'Value' }] : []), { label: 'Retained heap', num: true }]
    : [{ label: 'Index', num: true }, { label: 'Element' }, { label: 'Retained heap', num: true }];
  const t = table(
      e.offset === 0 ? 'entries-table' : null,
      null,
      columns,
      e.entries.map((x) =>
        map
          ? [formatCount(x.index), slotCell(x.key), ...(e.kind === 'map' ? [slotCell(x.value)] : []), formatCount(x.retained_bytes)]
          : [formatCount(x.index), slotCell(x.value), formatCount(x.retained_bytes)],
      ),
      (i) => ({ 'data-index': String(e.entries[i].index), 'data-node': e.entries[i].node?.address ?? '' }),
  );
  // Later pages continue the first page's table.
  const first = list.querySelector('#entries-table tbody');
  if (first && e.offset > 0) {
    const rows = Array.from(t.tBodies[0].rows);
    for (const r of rows) r.tabIndex = -1;
    first.append(...rows);
  }
  else list.appendChild(t);
  const shown = e.offset + e.entries.length;
  if (shown < e.total) {
    const b = h('button', { type: 'button', class: 'secondary more' }, `Show ${formatCount(Math.min(PAGE, e.total - shown))} more (${formatCount(e.total - shown)} left)`);
    b.addEventListener('click', more);
    list.appendChild(b);
  }
}

/** Folds the raw fields (their heading and table) into a closed "Raw fields" disclosure. */
function foldRawFields(details: HTMLElement): void {
  const fields = details.querySelector('#inspector-fields');
  const heading = fields?.previousElementSibling;
  if (!fields || details.querySelector('details.raw-fields')) return;
  const fold = h('details', { class: 'raw-fields' }, h('summary', null, heading?.textContent ? `Raw ${heading.textContent.toLowerCase()}` : 'Raw fields'));
  fields.before(fold);
  if (heading?.tagName === 'H4') heading.remove();
  fold.appendChild(fields);
}
