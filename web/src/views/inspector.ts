// The object inspector and the path to GC roots, both about the selected object (the
// URL's #object=0x…): its fields and values read back from the dump (object_details:
// instance fields, a class's statics, an array's elements, a string's text), each
// reference a link; and its leak trace (paths): a shortest reference path from a GC root
// to it with the field names along the way, each step marked when it dominates the object,
// and for each stretch of unmarked steps "held how else?" (held_how_else: the independent
// paths through it, any of which can be drawn in place of the stretch).
import type { ObjectRef } from '../generated/report';
import type { LeakTracePath, ObjectDetails, Paths, Referrers, Stretch, TraceStep, WayStep } from '../generated/query';
import { h, replaceChildren } from '../lib/dom';
import { formatBp, formatCount, formatOffset } from '../lib/format';
import { objectLink, objectTitle } from '../lib/objects';
import { loading, needsDump, queryFailed, table, TOP_LEVEL_DOMINATOR, type DumpContext } from './common';
import { reportLeaks } from './leaks';
import { strengthLabel, strengthMark, strengthMeaning } from './strength';
import { entriesSection } from './entries';
import { heldByFrame, localFrame } from './path-frames';

/** How a path step names a reference from a thread to a local variable of its stack. */
const LOCAL_VIA = '<local variable>';

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
      (address, d) => {
        const details = renderDetails(d);
        return [details, entriesSection(ctx, address, details), referrersSection(ctx, address)];
      },
    );
  }
}

/** What the path view shows: the shortest path and the leak trace's (or why there is none). */
interface Routes {
  shortest: Paths;
  leak: LeakTracePath | null;
  /** The leak-trace question failed: why. */
  leakError: unknown;
}

export class PathView extends ObjectView<Routes> {
  constructor(ctx: DumpContext) {
    super(
      ctx,
      'path',
      'path from the GC roots',
      (address) => ({
        waiting: `Searching a path from the GC roots to ${address} (the first search builds the referrer index)…`,
        answer: ctx.q.paths(address).then(async (shortest) => {
          try {
            return { shortest, leak: await ctx.q.leakTracePath(address), leakError: null };
          } catch (e) {
            return { shortest, leak: null, leakError: e };
          }
        }),
      }),
      (address, routes) => [routesView(ctx, address, routes)],
    );
  }
}

/** Whether `address` is an object of a leak trace of the report (then its path view opens
 * on the leak trace's path, the one the Leaks view drew). */
function onLeakTrace(ctx: DumpContext, address: string): boolean {
  return (reportLeaks(ctx.report)?.leaks ?? []).some((l) => l.instances.some((i) => i.object === address || i.trace.some((s) => s.object === address)));
}

type Route = 'shortest' | 'leak';

/** The path view: the chosen path drawn as a leak trace and, when LeakCanary's leak trace
 * takes another path than the shortest, a choice between the two and why they differ. */
function routesView(ctx: DumpContext, address: string, r: Routes): HTMLElement {
  const drawn = h('div', { id: 'path-drawn' });
  const draw = (route: Route): void => {
    const p = route === 'leak' && r.leak?.path ? r.leak.path : r.shortest;
    drawn.dataset.route = route;
    replaceChildren(drawn, new LeakTrace(ctx, address, p, route).root);
  };
  const l = r.leak;
  let note: HTMLElement;
  let start: Route = 'shortest';
  if (!l) {
    note = h('div', { class: 'fine route-note', id: 'route-note', 'data-route': 'unknown' }, "The leak trace's path could not be found: ", queryFailed(r.leakError));
  } else if (!l.path) {
    note = h('p', { class: 'fine route-note', id: 'route-note', 'data-route': 'none' }, "No strong path reaches it: only weak, soft, phantom or finalizer references hold it, so LeakCanary's leak trace would not reach it (it is not leaking).");
  } else if (l.same) {
    note = h('p', { class: 'fine route-note', id: 'route-note', 'data-route': 'same' }, "This is also the path LeakCanary's leak trace takes (strong references only, known library leaks and JNI globals last).");
  } else {
    start = onLeakTrace(ctx, address) ? 'leak' : 'shortest';
    const why = l.why_not_shortest.length
      ? `The leak trace does not take the shortest path because ${l.why_not_shortest.join('; ')}.`
      : `Both are shortest for their searches (${formatCount(l.steps)} and ${formatCount(l.shortest_steps)} steps): the leak trace follows strong references down from the GC roots and met this one first.`;
    const option = (route: Route, label: string): HTMLElement => {
      const input = h('input', { type: 'radio', name: 'path-route', id: `path-route-${route}`, value: route }) as HTMLInputElement;
      input.checked = route === start;
      input.addEventListener('change', () => input.checked && draw(route));
      return h('label', { for: `path-route-${route}` }, input, ` ${label}`);
    };
    note = h(
      'div',
      { class: 'route-note', id: 'route-note', 'data-route': 'differs', 'data-steps': String(l.steps), 'data-shortest-steps': String(l.shortest_steps) },
      h(
        'p',
        null,
        `LeakCanary's leak trace (strong references only, known library leaks and JNI globals last) reaches it by another path: ${formatCount(l.steps)} steps, where the shortest takes ${formatCount(l.shortest_steps)}. `,
        h('span', { id: 'route-why' }, why),
      ),
      h(
        'div',
        { role: 'radiogroup', class: 'route-choice', 'aria-label': 'Which path to draw' },
        'Draw ',
        option('leak', `the leak trace's path (${formatCount(l.steps)} steps)`),
        ' ',
        option('shortest', `the shortest path (${formatCount(l.shortest_steps)} steps)`),
      ),
    );
  }
  draw(start);
  return h('div', { class: 'routes' }, note, drawn);
}

/** The trace's lowest marked step, or, when none is marked, the one phrase the inspector
 * uses too (it is a top-level dominator), or, in the strength-aware tree, nothing
 * (garbage, traced from its entry point). */
function dominatorText(ctx: DumpContext, paths: Paths, dominator: TraceStep | undefined): (HTMLElement | string)[] {
  if (dominator) return [objectLink(dominator.object)];
  const garbage = ctx.q.tree === 'strength' && paths.trace.length > 0 && paths.trace[0].gc_root.includes('Unreachable');
  return garbage ? [h('strong', null, 'uncollected garbage'), ' (nothing holds it; the chain starts where the garbage does).'] : [TOP_LEVEL_DOMINATOR];
}

/** The line under a step: how it references the next one; through a thread's local
 * variable, the frame that holds it (`worker-63 · Worker.descend (WorkerPool.java:48) ↓ local`). */
function viaLine(ctx: DumpContext, s: TraceStep, next: TraceStep | undefined): HTMLElement {
  const local = s.via.includes(LOCAL_VIA) && next ? localFrame(ctx, s.object.address, next.object.address) : null;
  const names = local ? s.via.map((v) => (v === LOCAL_VIA ? 'local' : v)) : s.via;
  return h(
    'div',
    { class: 'via', 'data-via': s.via.join(','), 'data-frame': local },
    local ? h('span', { class: 'via-frame' }, `${local} `) : null,
    '↓ ',
    h('span', { class: 'mono' }, names.join(', ')),
  );
}

/** For a path that starts at an object a stack frame holds: which thread and frame. */
function rootFrame(ctx: DumpContext, s: TraceStep): HTMLElement | null {
  const frame = heldByFrame(s.gc_root) ? localFrame(ctx, null, s.object.address) : null;
  return frame ? h('span', { class: 'fine root-frame', 'data-frame': frame }, `held by ${frame} `) : null;
}

/** Independent paths asked per stretch. */
const WAYS = 10;

/** The leak trace drawn as one chain, with "held how else?" on each unmarked stretch;
 * picking another way draws it in place of the stretch. */
class LeakTrace {
  readonly root: HTMLElement;
  private readonly chain: HTMLElement;
  private steps: TraceStep[];

  constructor(
    private readonly ctx: DumpContext,
    private readonly address: string,
    private readonly paths: Paths,
    route: 'shortest' | 'leak' = 'shortest',
  ) {
    this.steps = paths.trace;
    this.chain = h('div', null);
    const dominator = [...paths.trace].reverse().find((s) => s.dominates);
    const how = route === 'leak'
      ? `The chain of references LeakCanary's leak trace follows from a GC root to ${address}: strong references only, known library leaks and JNI globals last. `
      : `A shortest chain of references from a GC root to ${address}. `;
    this.root = h(
      'div',
      { class: 'leak-trace' },
      h('p', { class: 'fine' }, `${how}Steps marked ◆ dominate it: every path from the GC roots to it goes through them, so each would free it. ` +
        (route === 'leak' ? '' : ctx.q.tree === 'strength'
          ? 'In the strength-aware tree, a reference weaker than how firmly its target is held is no way of holding it, and the chain follows a firmest path (no step held less firmly than the object).'
          : 'References held only by weak/soft references or finalizer queues are avoided when another path exists.')),
      h('p', { id: 'trace-dominator' }, 'Its dominator: ', ...dominatorText(ctx, paths, dominator)),
      this.chain,
    );
    this.draw();
  }

  private draw(): void {
    const p = this.paths;
    const stepIndex = (o: ObjectRef | null | undefined): number => (o ? this.steps.findIndex((s) => s.object.address === o.address) : -1);
    // A stretch's button goes on the line of its lower end.
    const stretchAt = new Map<number, Stretch>();
    for (const st of p.stretches) stretchAt.set(stepIndex(st.to), st);
    const sizes = (o: ObjectRef): string => ` — shallow ${formatCount(o.shallow_bytes)}, retains ${formatCount(o.retained_bytes)} bytes (${formatBp(o.retained_bp)})`;
    replaceChildren(
      this.chain,
      h(
        'ol',
        { class: 'path', id: 'gc-path' },
        ...this.steps.map((s, i) => {
          const st = stretchAt.get(i);
          const ways = h('div', { class: 'ways' });
          return h(
            'li',
            { 'data-address': s.object.address, 'data-step': i, 'data-dominates': String(s.dominates), class: s.object.address === this.address ? 'target' : s.dominates ? 'dominates' : null },
            s.gc_root.length ? h('span', { class: 'badge root' }, `GC root: ${s.gc_root.join(', ')}`) : null,
            i === 0 ? rootFrame(this.ctx, s) : null,
            s.dominates ? h('span', { class: 'badge dominates', title: 'Every path from the GC roots to the object goes through it' }, '◆ holds it') : null,
            objectLink(s.object),
            sizes(s.object),
            // A linked structure on the way, read as one step.
            s.run ? h('div', { class: 'fine run', 'data-run': String(s.run.nodes) }, `${formatCount(s.run.nodes)} × ${s.object.class_name} in a row, each holding the next by ${s.run.field}, down to `, objectLink(s.run.last)) : null,
            st ? this.howElseButton(st, ways) : null,
            ways,
            s.via.length ? viaLine(this.ctx, s, this.steps[i + 1]) : null,
            i + 1 === 100 && p.elided_steps ? h('div', { class: 'fine elided' }, `… ${formatCount(p.elided_steps)} more steps …`) : null,
          );
        }),
      ),
    );
  }

  private howElseButton(st: Stretch, out: HTMLElement): HTMLElement {
    const from = st.from ? `${st.from.class_name} @ ${st.from.address}` : 'the GC roots';
    const button = h('button', { type: 'button', class: 'secondary small how-else', title: `The independent ways from ${from} to here` }, 'held how else?');
    button.addEventListener('click', () => {
      button.disabled = true;
      replaceChildren(out, loading('Walking the referrers up…'));
      this.ctx.q.heldHowElse(st.from?.address ?? null, st.to.address, WAYS).then(
        (found) => replaceChildren(out, this.renderWays(found)),
        (e) => {
          button.disabled = false;
          replaceChildren(out, queryFailed(e));
        },
      );
    });
    return button;
  }

  private renderWays(found: Stretch): HTMLElement {
    const from = found.from ? objectLink(found.from) : 'the GC roots';
    const note = found.has_more ? ` The search stopped at ${WAYS}: there may be more.` : '';
    return h(
      'div',
      { class: 'independent-paths', 'data-paths': String(found.paths.length) },
      h('p', { class: 'fine' }, `${found.paths.length} independent way${found.paths.length === 1 ? '' : 's'} from `, from, ' to here (they share no object between the ends).', note, ' Paths shown apart may still reference each other.'),
      h(
        'ol',
        null,
        ...found.paths.map((path) => {
          const use = h('button', { type: 'button', class: 'secondary small' }, 'draw this one');
          use.addEventListener('click', () => this.substitute(found, path));
          return h('li', { class: 'way' }, h('span', { class: 'mono' }, path.map((w) => `${w.object.class_name}${w.via.length ? `.${w.via[0]}` : ''}`).join(' → ')), ' ', use);
        }),
      ),
    );
  }

  /** Draws `path` in place of the stretch it goes through. */
  private substitute(st: Stretch, path: WayStep[]): void {
    const top = st.from ? this.steps.findIndex((s) => s.object.address === st.from?.address) : 0;
    const bottom = this.steps.findIndex((s) => s.object.address === st.to.address);
    if (top < 0 || bottom < 0) return;
    const keepTop = st.from ? this.steps.slice(0, top) : [];
    const fromStep = st.from ? this.steps[top] : null;
    const middle: TraceStep[] = path.slice(0, -1).map((w, i) => ({
      object: w.object,
      via: w.via,
      gc_root: i === 0 && fromStep ? fromStep.gc_root : (w.gc_root ?? []),
      dominates: i === 0 && fromStep ? fromStep.dominates : false,
    }));
    this.steps = [...keepTop, ...middle, ...this.steps.slice(bottom)];
    this.draw();
  }
}

/** How many referrers the inspector lists (the largest; all are counted). */
const REFERRERS = 100;

/** Incoming references, on request: read from the referrer index, which the worker builds
 * on the first question that needs it (a pass over every reference, once per dump). */
function referrersSection(ctx: DumpContext, address: string): HTMLElement {
  const out = h('div', { id: 'inspector-referrers' });
  const button = h('button', { type: 'button', class: 'secondary', id: 'find-referrers' }, 'Find the objects that reference it');
  button.addEventListener('click', () => {
    button.disabled = true;
    replaceChildren(out, loading('Finding the referrers (the first time, the referrer index is built)…'));
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
          [{ label: 'Object', name: true }, { label: 'Shallow heap', num: true }, { label: 'Retained heap', num: true }],
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
      fact('dominator', 'Immediate dominator', d.dominator ? objectLink(d.dominator) : TOP_LEVEL_DOMINATOR, d.dominator?.address ?? ''),
      fact('depth', 'Depth in the dominator tree', formatCount(d.depth), d.depth),
      fact('strength', 'Reachability', h('span', null, strengthMark(d.strength), `${strengthLabel(d.strength)}: ${strengthMeaning(d.strength)}`), d.strength),
      d.record_offset !== null && d.record_offset !== undefined ? fact('record-offset', 'Record at byte', formatOffset(d.record_offset), d.record_offset) : null,
    ),
    h('p', null, objectLink(o, 'path', 'Show the path from a GC root to this object'), ' · ', objectLink(o, 'merge', o.class_of_object ? 'Merge paths to GC roots of its instances' : 'Merge paths to GC roots')),
    // An empty String shows as "", not as nothing.
    d.text !== null && d.text !== undefined ? h('div', null, h('h4', null, 'Text'), h('pre', { class: 'string-text', id: 'inspector-text', title: d.text === '' ? 'an empty string' : null }, d.text === '' ? '""' : d.text)) : null,
    h('h4', null, fieldsTitle),
    d.fields.length
      ? table(
          'inspector-fields',
          null,
          [{ label: 'Name' }, { label: 'Type' }, { label: 'Value', name: true }, { label: 'Retained heap', num: true }],
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
