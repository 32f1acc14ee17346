// Leaks: LeakCanary's reading of the dump (the report's `leaks` section): the objects that
// should have been collected, grouped by signature, the application's leaks first and the
// library leaks (known leaks of the framework and libraries) folded below them. Each leak
// opens into its leaking objects, each with its trace drawn step by step from the GC root:
// the object (a link to the inspector), its class, the reference to the next step, and
// the verdict "Leaking: YES / NO / UNKNOWN" with its reasons; the suspect references (between
// the last object not leaking and the first leaking one) are underlined with `~~~`, as
// LeakCanary marks them. The open leak lives in the URL fragment (#view=leaks&leak=<signature>).
// Everything from the dump (names, keys, reasons) is set as text.
import type { Leak, LeakInstance, Leaks, ObjectRef, Report, LeakStep } from '../generated/report';
import { h, type Child } from '../lib/dom';
import { formatCount, formatMiB } from '../lib/format';
import { objectLink } from '../lib/objects';
import type { DumpContext } from './common';

/** The report's leaks section (null: the leak finder did not run, e.g. an older report). */
export function reportLeaks(r: Report): Leaks | null {
  const l = r.leaks;
  return l && Array.isArray(l.leaks) ? l : null;
}

/** The part of a class name after its last dot. */
function simpleName(name: string): string {
  const i = name.lastIndexOf('.');
  return i < 0 ? name : name.slice(i + 1);
}

/** A step's object as the page names it elsewhere (the inspector's link takes an ObjectRef). */
function stepRef(s: LeakStep): ObjectRef {
  const isClass = s.object_kind === 'class';
  return { address: s.object, class_name: isClass ? 'java.lang.Class' : s.class_name, class_of_object: isClass ? s.class_name : null, shallow_bytes: 0, retained_bytes: 0, retained_bp: 0 };
}

function kindText(s: LeakStep): string {
  switch (s.object_kind) {
    case 'class':
      return 'class';
    case 'instance':
      return 'instance';
    default:
      return 'array';
  }
}

/** The reference from a step to the next, as LeakCanary writes it: `static Holder.field`,
 * `Holder.field`, `Object[3]` (the name is `[3]`), `Thread <Java Local>`. */
function referenceText(s: LeakStep): string {
  const r = s.reference;
  if (!r) return '';
  const owner = simpleName(r.declared_by).replace(/\[\]$/, '');
  switch (r.kind) {
    case 'static_field':
      return `static ${owner}.${r.name}`;
    case 'instance_field':
      return `${owner}.${r.name}`;
    case 'array_element':
      return `${owner}${r.name}`;
    default:
      return `${owner} ${r.name}`;
  }
}

function verdictText(s: LeakStep): string {
  return s.reasons.length ? `Leaking: ${s.leaking} (${s.reasons.join(' and ')})` : `Leaking: ${s.leaking}`;
}

/** One trace: the GC root, then each object with its verdict and the reference to the next. */
function trace(ctx: DumpContext, i: LeakInstance): HTMLElement {
  const steps = i.trace;
  const list = h('ol', { class: 'leak-trace', 'data-trace': i.object });
  const root = steps[0]?.root_type ?? null;
  steps.forEach((s, k) => {
    const last = k === steps.length - 1;
    const object: Child = ctx.hasDump ? objectLink(stepRef(s), 'inspector', s.class_name) : h('span', { class: 'cls' }, s.class_name);
    const item = h(
      'li',
      { class: `leak-step leaking-${s.leaking.toLowerCase()}`, 'data-leaking': s.leaking, 'data-address': s.object, 'data-last': last ? '' : null },
      k === 0 && root ? h('div', { class: 'leak-root fine' }, `GC Root: ${root}`) : null,
      h('div', { class: 'leak-object' }, last ? '╰→ ' : '├─ ', object, ` ${kindText(s)} `, h('span', { class: 'addr' }, `@ ${s.object}`)),
      h('div', { class: 'leak-verdict' }, verdictText(s)),
      ...(s.labels ?? []).map((l) => h('div', { class: 'leak-label fine' }, l)),
      last ? h('div', { class: 'leak-retains fine' }, `Retaining ${formatCount(i.retained_bytes)} bytes in ${formatCount(i.retained_objects)} objects`) : null,
    );
    if (s.reference) {
      const text = referenceText(s);
      const name = s.reference.name;
      item.append(
        h(
          'div',
          { class: s.suspect ? 'leak-ref suspect' : 'leak-ref', 'data-suspect': s.suspect ? '' : null, title: s.suspect ? 'A suspect reference: the likely cause of the leak' : null },
          `↓ ${text}`,
          // LeakCanary's mark under a suspect reference's name.
          s.suspect ? h('div', { class: 'leak-underline', 'aria-hidden': 'true' }, ' '.repeat(2 + Math.max(text.lastIndexOf(name), 0)) + '~'.repeat(Math.max(name.length, 1))) : null,
        ),
      );
      if (s.elided_after) item.append(h('div', { class: 'leak-elided fine' }, `… ${formatCount(s.elided_after)} more steps …`));
    }
    list.append(item);
  });
  return list;
}

function instanceSection(ctx: DumpContext, i: LeakInstance, open: boolean): HTMLElement {
  const w = i.watch ?? null;
  const details = h(
    'details',
    { class: 'leak-instance', 'data-object': i.object, 'data-found-by': i.found_by, 'data-key': w?.key ?? null },
    h(
      'summary',
      null,
      h('span', { class: 'cls' }, i.class_name),
      h('span', { class: 'addr' }, ` @ ${i.object}`),
      ` — ${formatMiB(i.retained_bytes)} retained, ${i.found_by === 'watched' ? 'watched by LeakCanary' : 'its lifecycle ended'}`,
    ),
    w
      ? h(
          'p',
          { class: 'leak-watch fine' },
          'Watch key ',
          h('span', { class: 'mono leak-key' }, w.key),
          w.description ? `, ${w.description}` : '',
          w.watch_duration_ms != null ? `; watched for ${formatCount(w.watch_duration_ms)} ms` : '',
          w.retained_duration_ms != null ? `, retained for ${formatCount(w.retained_duration_ms)} ms` : '',
          '.',
        )
      : null,
    trace(ctx, i),
  );
  details.open = open;
  return details;
}

function leakSection(ctx: DumpContext, l: Leak, open: boolean, onToggle: (signature: string, open: boolean) => void): HTMLElement {
  const lib = l.library_leak ?? null;
  const details = h(
    'details',
    { class: 'leak panel', 'data-leak': l.signature, 'data-kind': l.kind, 'data-count': l.count, 'data-retained': l.retained_bytes },
    h(
      'summary',
      null,
      h('span', { class: 'badge' }, l.kind === 'application' ? 'application' : 'library'),
      ' ',
      h('span', { class: 'leak-description' }, l.description),
      h('span', { class: 'fine' }, ` — ${formatCount(l.count)} ${l.count === 1 ? 'leaking object' : 'leaking objects'}, ${formatMiB(l.retained_bytes)} retained in ${formatCount(l.retained_objects)} objects`),
    ),
    h('p', { class: 'fine' }, 'Signature ', h('span', { class: 'mono leak-signature' }, l.signature)),
    lib
      ? h('p', { class: 'leak-library fine' }, `Known leak (${lib.pattern}; ${lib.versions}${lib.manufacturers.length ? `, on ${lib.manufacturers.join(', ')}` : ''}): ${lib.cause}`)
      : null,
    ...l.instances.map((i, k) => instanceSection(ctx, i, k === 0)),
    l.count > l.instances.length ? h('p', { class: 'fine' }, `… and ${formatCount(l.count - l.instances.length)} more leaking objects with this signature.`) : null,
  );
  details.open = open;
  details.addEventListener('toggle', () => onToggle(l.signature, details.open));
  return details;
}

export class LeaksView {
  readonly root: HTMLElement;
  private readonly sections = new Map<string, HTMLDetailsElement>();

  constructor(ctx: DumpContext) {
    const leaks = reportLeaks(ctx.report);
    const all = leaks?.leaks ?? [];
    const apps = all.filter((l) => l.kind === 'application');
    const libs = all.filter((l) => l.kind !== 'application');
    const toggle = (signature: string, open: boolean): void => {
      const current = ctx.store.get().leak;
      if (open && current !== signature) ctx.store.set({ leak: signature });
      else if (!open && current === signature) ctx.store.set({ leak: undefined });
    };
    const section = (l: Leak, k: number): HTMLElement => {
      const el = leakSection(ctx, l, false, toggle) as HTMLDetailsElement;
      this.sections.set(l.signature, el);
      el.dataset.rank = String(k + 1);
      return el;
    };
    const summary = !leaks
      ? 'This report has no leaks section: the leak finder did not run on it.'
      : all.length === 0
        ? 'No leak found by LeakCanary\'s reading of this dump.'
        : `${formatCount(apps.length)} application ${apps.length === 1 ? 'leak' : 'leaks'}, ${formatCount(libs.length)} library ${libs.length === 1 ? 'leak' : 'leaks'}; retained sizes from ${leaks.tree === 'strength' ? 'the strength-aware' : "Eclipse MAT's"} dominator tree. References underlined with ~~~ are the suspects: the likely cause of each leak.`;
    this.root = h(
      'div',
      { class: 'leaks', id: 'leaks', 'data-leaks': all.length, 'data-application': apps.length, 'data-library': libs.length },
      h('p', { class: 'fine', id: 'leaks-summary' }, summary),
      // The platform the known library leaks were matched against (the CLI says it too).
      leaks?.android
        ? h('p', { class: 'fine', id: 'leaks-android' }, `Android API level ${leaks.android.sdk_int ?? 'not recorded'}, manufacturer ${leaks.android.manufacturer ?? 'not recorded'}.`)
        : null,
      apps.length ? h('div', { id: 'leaks-application' }, ...apps.map(section)) : null,
      libs.length
        ? h(
            'details',
            // Open when the library's leaks are all there is.
            { class: 'leaks-library', id: 'leaks-library', open: apps.length === 0 },
            h('summary', null, `Library leaks (${formatCount(libs.length)}): known leaks of the Android framework and libraries`),
            ...libs.map((l, k) => section(l, apps.length + k)),
          )
        : null,
      leaks?.notes.length ? h('div', { class: 'leaks-notes' }, h('h3', null, 'What was looked for'), h('ul', { class: 'fine' }, ...leaks.notes.map((n) => h('li', null, n)))) : null,
    );
  }

  /** Opens the leak `signature` (or the first leak when none is chosen), and scrolls to it. */
  show(signature: string | null): void {
    const first = this.sections.keys().next();
    const wanted = signature && this.sections.has(signature) ? signature : first.done ? null : first.value;
    if (!wanted) return;
    const el = this.sections.get(wanted)!;
    if (!el.open) el.open = true;
    const library = el.closest<HTMLDetailsElement>('#leaks-library');
    if (library && !library.open) library.open = true;
    if (signature) el.scrollIntoView({ block: 'nearest' });
  }
}
