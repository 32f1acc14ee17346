// The object inspector and the path to GC roots, both about the selected object (the
// URL's #object=0x…): its fields and values read back from the dump (object_details:
// instance fields, a class's statics, an array's elements, a string's text), each
// reference a link; and a shortest reference path from a GC root to it (path_to_root),
// with the field names along the way.
import type { ObjectRef } from '../generated/report';
import type { ObjectDetails, PathStep, Referrers } from '../generated/query';
import { h, replaceChildren } from '../lib/dom';
import { formatBp, formatCount, formatOffset } from '../lib/format';
import { objectLink, objectTitle } from '../lib/objects';
import { loading, needsDump, queryFailed, table, type DumpContext } from './common';

/** The address box: select any object by its address. */
function addressForm(ctx: DumpContext, id: string): HTMLElement {
  const input = h('input', { id: `${id}-address`, type: 'text', placeholder: '0x…', autocomplete: 'off', spellcheck: 'false', 'aria-label': 'Object address' });
  const message = h('span', { class: 'fine', role: 'status' });
  const form = h('form', { class: 'address-form', id: `${id}-form` }, h('label', null, 'Object at address ', input), ' ', h('button', { type: 'submit', class: 'secondary' }, 'Go'), ' ', message);
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const text = input.value.trim();
    if (!text) return;
    replaceChildren(message, 'looking…');
    ctx.q.find(text).then(
      (o) => {
        if (o) {
          replaceChildren(message);
          ctx.store.set({ object: o.address });
        } else replaceChildren(message, `No object at ${text} (or it is unreachable).`);
      },
      (err) => replaceChildren(message, queryFailed(err)),
    );
  });
  return form;
}

function startHere(ctx: DumpContext): HTMLElement {
  const top = ctx.report.top_dominators.slice(0, 8);
  const suspects = ctx.report.leak_suspects.suspects.map((s) => s.accumulation_point ?? s.object);
  const pick = [...suspects, ...top.filter((t) => !suspects.some((s) => s.address === t.address))].slice(0, 10);
  return h(
    'div',
    { class: 'placeholder', 'data-no-selection': '' },
    h('p', null, 'No object selected. Select one in the leak suspects, the dominator tree, the treemap or a class\'s objects in the histogram, type its address above, or start with one of these:'),
    h('ul', null, ...pick.map((o) => h('li', null, objectLink(o), ` — retains ${formatCount(o.retained_bytes)} bytes (${formatBp(o.retained_bp)})`))),
  );
}

/** One object's page, chosen by address (the URL fragment or the form): the inspector and
 * the path view differ only in what they ask the worker and how they draw the answer. */
class ObjectView<T> {
  readonly root: HTMLElement;
  private readonly body: HTMLElement;
  private current: string | null | undefined = undefined;

  constructor(
    private readonly ctx: DumpContext,
    id: 'inspector' | 'path',
    what: string,
    private readonly load: (address: string) => { waiting: string; answer: Promise<T> },
    private readonly render: (address: string, answer: T) => HTMLElement[],
  ) {
    this.body = h('div', { id: `${id}-body` });
    this.root = ctx.hasDump ? h('div', { class: id === 'path' ? 'path-view' : id }, addressForm(ctx, id), this.body) : h('div', null, needsDump(ctx, what));
  }

  show(address: string | null): void {
    if (!this.ctx.hasDump || address === this.current) return;
    this.current = address;
    if (!address) {
      replaceChildren(this.body, startHere(this.ctx));
      return;
    }
    const { waiting, answer } = this.load(address);
    replaceChildren(this.body, loading(waiting));
    answer.then(
      (a) => {
        if (this.current === address) replaceChildren(this.body, ...this.render(address, a));
      },
      (e) => {
        if (this.current === address) replaceChildren(this.body, queryFailed(e));
      },
    );
  }
}

export class InspectorView extends ObjectView<ObjectDetails> {
  constructor(ctx: DumpContext) {
    super(
      ctx,
      'inspector',
      'object inspector',
      (address) => ({ waiting: `Reading ${address} from the dump…`, answer: ctx.q.objectDetails(address) }),
      (address, d) => [renderDetails(d), referrersSection(ctx, address)],
    );
  }
}

export class PathView extends ObjectView<PathStep[]> {
  constructor(ctx: DumpContext) {
    super(
      ctx,
      'path',
      'path from the GC roots',
      (address) => ({ waiting: `Searching a path from the GC roots to ${address}…`, answer: ctx.q.pathToRoot(address) }),
      (address, steps) => [renderPath(address, steps)],
    );
  }
}

/** How many referrers the inspector lists (the largest; all are counted). */
const REFERRERS = 100;

/** Incoming references, on request: the graph keeps outgoing ones only, so finding them
 * scans every reference of the dump (about a second per 20 M objects). */
function referrersSection(ctx: DumpContext, address: string): HTMLElement {
  const out = h('div', { id: 'inspector-referrers' });
  const button = h('button', { type: 'button', class: 'secondary', id: 'find-referrers' }, 'Find the objects that reference it');
  button.addEventListener('click', () => {
    button.disabled = true;
    replaceChildren(out, loading('Scanning every reference in the dump…'));
    ctx.q.referrers(address, REFERRERS).then(
      (r) => replaceChildren(out, renderReferrers(r)),
      (e) => {
        button.disabled = false;
        replaceChildren(out, queryFailed(e));
      },
    );
  });
  return h('div', { class: 'referrers' }, h('h4', null, 'Referrers'), button, out);
}

function renderReferrers(r: Referrers): HTMLElement {
  const summary = r.total === 0
    ? 'No kept object references it: a GC root holds it directly.'
    : r.largest.length < r.total
      ? `${formatCount(r.total)} objects reference it; the ${formatCount(r.largest.length)} retaining the most:`
      : `${formatCount(r.total)} object${r.total === 1 ? '' : 's'} reference${r.total === 1 ? 's' : ''} it:`;
  return h(
    'div',
    { 'data-total': String(r.total) },
    h('p', { class: 'fine' }, summary),
    r.largest.length
      ? table(
          'referrers-table',
          null,
          [{ label: 'Object' }, { label: 'Shallow heap', num: true }, { label: 'Retained heap', num: true }],
          r.largest.map((o) => [objectLink(o), formatCount(o.shallow_bytes), formatCount(o.retained_bytes)]),
          (i) => ({ 'data-address': r.largest[i].address }),
        )
      : null,
  );
}

function renderDetails(d: ObjectDetails): HTMLElement {
  const o = d.object;
  const fact = (key: string, label: string, value: HTMLElement | string, exact?: string | number): HTMLElement =>
    h('div', { class: 'fact', 'data-fact': key, 'data-value': exact === undefined ? null : String(exact) }, h('dt', null, label), h('dd', null, value));
  const statics = d.fields.some((f) => f.is_static);
  const fieldsTitle = d.array_length !== null && d.array_length !== undefined
    ? d.fields.length < d.array_length ? `Elements (the first ${formatCount(d.fields.length)} of ${formatCount(d.array_length)})` : 'Elements'
    : o.class_of_object ? 'Static fields' : 'Fields';
  return h(
    'div',
    { class: 'details', 'data-address': o.address },
    h('h3', { class: 'object-title' }, objectTitle(o), h('span', { class: 'mono' }, ` @ ${o.address}`)),
    h(
      'dl',
      { class: 'facts', id: 'inspector-facts' },
      fact('class', 'Class', o.class_name, o.class_name),
      o.class_of_object ? fact('class-of-object', 'Class object of', o.class_of_object, o.class_of_object) : null,
      fact('loader', 'Class loader', d.loader),
      fact('shallow', 'Shallow heap', `${formatCount(o.shallow_bytes)} bytes`, o.shallow_bytes),
      fact('retained', 'Retained heap', `${formatCount(o.retained_bytes)} bytes (${formatBp(o.retained_bp)} of the heap)`, o.retained_bytes),
      d.array_length !== null && d.array_length !== undefined ? fact('array-length', 'Array length', formatCount(d.array_length), d.array_length) : null,
      fact('gc-root', 'GC root', d.gc_root.length ? d.gc_root.join(', ') : 'no', d.gc_root.join(',')),
      fact('dominator', 'Immediate dominator', d.dominator ? objectLink(d.dominator) : 'none: a top-level dominator (only GC roots keep it alive)', d.dominator?.address ?? ''),
      fact('depth', 'Depth in the dominator tree', formatCount(d.depth), d.depth),
      d.record_offset !== null && d.record_offset !== undefined ? fact('record-offset', 'Record at byte', formatOffset(d.record_offset), d.record_offset) : null,
    ),
    h('p', null, objectLink(o, 'path', 'Show the path from a GC root to this object')),
    d.text !== null && d.text !== undefined ? h('div', null, h('h4', null, 'Text'), h('pre', { class: 'string-text', id: 'inspector-text' }, d.text)) : null,
    h('h4', null, fieldsTitle),
    d.fields.length
      ? table(
          'inspector-fields',
          null,
          [{ label: 'Name' }, { label: 'Type' }, { label: 'Value' }, { label: 'Retained heap', num: true }],
          d.fields.map((f) => [
            h('span', { class: 'mono' }, f.name, f.is_static && !o.class_of_object ? h('span', { class: 'badge' }, 'static') : null),
            f.type_name,
            f.reference ? objectLink(f.reference) : h('span', { class: 'mono value' }, f.value),
            f.reference ? formatCount(f.reference.retained_bytes) : '',
          ]),
          (i) => ({ 'data-field': d.fields[i].name, 'data-value': d.fields[i].value, 'data-static': String(d.fields[i].is_static) }),
        )
      : h('p', { class: 'fine' }, statics ? '' : 'None.'),
  );
}

function renderPath(address: string, steps: PathStep[]): HTMLElement {
  if (!steps.length) return h('p', { class: 'placeholder' }, `No path from a GC root reaches ${address}.`);
  const sizes = (o: ObjectRef): string => ` — shallow ${formatCount(o.shallow_bytes)}, retains ${formatCount(o.retained_bytes)} bytes (${formatBp(o.retained_bp)})`;
  return h(
    'div',
    null,
    h('p', { class: 'fine' }, `A shortest chain of references from a GC root to ${address} (${steps.length} objects). References held only by weak/soft references or finalizer queues are avoided when another path exists, as in MAT's "exclude weak/soft references".`),
    h(
      'ol',
      { class: 'path', id: 'gc-path' },
      ...steps.map((s, i) =>
        h(
          'li',
          { 'data-address': s.object.address, 'data-step': i, class: s.object.address === address ? 'target' : null },
          s.gc_root.length ? h('span', { class: 'badge root' }, `GC root: ${s.gc_root.join(', ')}`) : null,
          objectLink(s.object),
          sizes(s.object),
          s.via.length ? h('div', { class: 'via', 'data-via': s.via.join(',') }, '↓ ', h('span', { class: 'mono' }, s.via.join(', '))) : null,
        ),
      ),
    ),
  );
}
