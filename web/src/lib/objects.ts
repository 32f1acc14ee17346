// How an object of the dump is named and linked everywhere on the page. Every string here
// comes from the dump and is set as text only.
import type { ObjectRef } from '../generated/report';
import { h } from './dom';
import { formatFragment, type ViewId } from './state';

/** "java.util.HashMap" or, for a class object, "class corpus.Leak". */
export function objectTitle(o: Pick<ObjectRef, 'class_name' | 'class_of_object'>): string {
  return o.class_of_object ? `class ${o.class_of_object}` : o.class_name;
}

/** "java.util.HashMap @ 0x1f00". */
export function objectLabel(o: ObjectRef): string {
  return `${objectTitle(o)} @ ${o.address}`;
}

/** A link that selects the object and opens `view` (the inspector by default). */
export function objectLink(o: ObjectRef, view: ViewId = 'inspector', text?: string): HTMLAnchorElement {
  return h(
    'a',
    {
      href: formatFragment({ view, object: o.address }) || '#',
      class: 'obj',
      'data-address': o.address,
      // Links to other views are actions, and a class object is already named by its
      // title: no value beside them (lib/values.ts).
      'data-no-value': view === 'inspector' && !o.class_of_object ? null : '',
      title: `${objectLabel(o)} (open in the ${view === 'path' ? 'path view' : view === 'merge' ? 'merged paths view' : 'inspector'})`,
    },
    text ?? className(objectTitle(o), false),
    text === undefined ? h('span', { class: 'addr' }, ` @ ${o.address}`) : null,
  );
}

/** A stable colour per class name (the treemap, badges). */
export function classHue(name: string): number {
  let x = 2166136261;
  for (let i = 0; i < name.length; i++) {
    x ^= name.charCodeAt(i);
    x = Math.imul(x, 16777619);
  }
  return (x >>> 0) % 360;
}

/**
 * A class name as the program wrote it, whole. Where its column is too narrow for it, CSS
 * cuts it from the left with an ellipsis (`.cls`: the end of a name says the most:
 * `…security.fortress.Services`), the full name on hover: one rule in every table, never
 * package initials (which read like an obfuscator's names).
 */
export function className(name: string, hover = true): HTMLElement {
  // Three boxes: one that can shrink to nothing when a table is laid out, one that cuts,
  // the name itself (styles.css `.cls`).
  return h('span', { class: 'cls', title: hover ? name : null }, h('span', null, h('span', null, name)));
}
