// What a leak suspect found, in the application's terms: a headline naming the object that
// holds the memory by its fields from the nearest static field (`corpus.S02StaticMapLeak.CACHE`)
// and what it holds ("300 × HashMap$Node, 97.7 KiB each; each holds a byte[] by value"), the accumulated objects grouped by class (MAT's
// "Accumulated Objects by Class in Dominator Tree"), and a group's biggest members
// (threads by name). Everything from the dump is set as text.
import type { Suspect } from '../generated/report';
import { h } from '../lib/dom';
import { formatBp, formatCount, formatMiB } from '../lib/format';
import { className, objectLink } from '../lib/objects';
import { table, type DumpContext } from './common';

function simpleName(name: string): string {
  return name.slice(name.lastIndexOf('.', name.indexOf('[') >= 0 ? name.indexOf('[') : name.length) + 1);
}

/** "com.acme.ui.EventBus.INSTANCE.listeners holds 150 × Screen$1, 1.0 KiB each (153.5 KiB); each holds
 * a com.acme.ui.Screen by this$0 — 95.20% of the heap." */
export function headline(s: Suspect): HTMLElement {
  // The core's sentence, as every export says it (`held_in` set as code): the frame and
  // the local for a running thread's working set, linked structures read as one.
  if (s.headline) {
    const text = s.headline;
    const subject = s.frame ? text.slice(0, Math.max(0, text.indexOf(': '))) : s.held_in && text.startsWith(s.held_in) ? s.held_in : '';
    return h(
      'p',
      { class: 'headline', 'data-headline': '' },
      subject ? h('code', { class: 'held-in', title: 'Where the memory is held: the frame and its local, or the fields that lead to it' }, subject) : null,
      text.slice(subject.length),
    );
  }
  const top = s.accumulated?.[0];
  const subject = s.held_in ?? (s.represented_class ? `class ${s.represented_class}` : s.kind === 'group_of_objects' ? `${formatCount(s.instances)} × ${s.class_name}` : s.class_name);
  // "each" when they are all the same size (the biggest is the average), else "about".
  const average = top ? top.retained_bytes / Math.max(1, top.objects) : 0;
  const same = top !== undefined && top.biggest.length > 0 && top.biggest[0].retained_bytes === average;
  const holds = top
    ? `${formatCount(top.objects)} × ${simpleName(top.class_name)}, ${same ? '' : 'about '}${formatMiB(Math.round(average))} each (${formatMiB(top.retained_bytes)})`
    : s.kind === 'group_of_objects'
      ? `${formatMiB(s.retained_bytes)} together, ${formatMiB(Math.round(s.retained_bytes / Math.max(1, s.instances)))} each on average`
      : formatMiB(s.retained_bytes);
  return h(
    'p',
    { class: 'headline', 'data-headline': '' },
    h('code', { class: 'held-in', title: s.held_in ? 'The object holding the memory, named by the fields that lead to it from the suspect' : null }, subject),
    top ? ' holds ' : s.kind === 'group_of_objects' ? ': ' : ' retains ',
    h('strong', null, holds),
    // What each accumulated object holds, usually what leaked (an anonymous listener's outer object).
    s.each_holds ? h('span', { 'data-each-holds': s.each_holds.class_name }, `; each holds ${/^[aeiou]/i.test(s.each_holds.class_name) ? 'an' : 'a'} `, h('code', null, s.each_holds.class_name), ` by ${s.each_holds.field}`) : null,
    ` — ${formatBp(s.retained_bp)} of the heap.`,
  );
}

/** The accumulation point's objects in the dominator tree, grouped by class. */
export function accumulatedTable(s: Suspect, i: number): HTMLElement | null {
  const groups = s.accumulated ?? [];
  if (!groups.length) return null;
  return h(
    'div',
    null,
    h('h4', null, 'What the accumulation point holds, by class'),
    table(
      `suspect-${i + 1}-accumulated`,
      null,
      [{ label: 'Class', name: true }, { label: 'Objects', num: true }, { label: 'Shallow heap', num: true }, { label: 'Retained heap', num: true }, { label: 'Biggest' }],
      groups.map((g) => [
        className(g.class_name),
        formatCount(g.objects),
        formatCount(g.shallow_bytes),
        `${formatCount(g.retained_bytes)} (${formatMiB(g.retained_bytes)})`,
        h('span', { class: 'examples' }, ...g.biggest.flatMap((o, k) => [k ? ', ' : null, objectLink(o, 'inspector', formatMiB(o.retained_bytes))])),
      ]),
      (k) => ({ 'data-class': groups[k].class_name, 'data-objects': String(groups[k].objects), 'data-retained': String(groups[k].retained_bytes), 'data-shallow': String(groups[k].shallow_bytes) }),
    ),
  );
}

/** Where the memory accumulates with linked structures read as one (a chain's nodes side
 * by side), by class: heapscope's reading beside MAT's table. */
export function structureTable(s: Suspect, i: number): HTMLElement | null {
  const st = s.structure;
  if (!st || !st.groups.length) return null;
  const chain = st.chains?.[0];
  return h(
    'div',
    { 'data-structure': st.point.address },
    h('h4', null, 'What it holds, linked structures read as one'),
    h(
      'p',
      { class: 'fine' },
      objectLink(st.point),
      ` holds ${formatCount(st.members)} ${st.members === 1 ? 'object' : 'objects'}`,
      chain ? `, ${formatCount(chain.nodes)} of them a chain of ${chain.class_name}${chain.field ? ` by ${chain.field}` : ''}` : '',
      '.',
    ),
    table(
      `suspect-${i + 1}-structure`,
      null,
      [{ label: 'Class' }, { label: 'Objects', num: true }, { label: 'Shallow heap', num: true }, { label: 'Retained heap', num: true }],
      st.groups.map((g) => [className(g.class_name), formatCount(g.objects), formatCount(g.shallow_bytes), `${formatCount(g.retained_bytes)} (${formatMiB(g.retained_bytes)})`]),
      (k) => ({ 'data-class': st.groups[k].class_name, 'data-objects': String(st.groups[k].objects), 'data-retained': String(st.groups[k].retained_bytes) }),
    ),
  );
}

/** A group suspect's biggest members, threads with their names. */
export function membersTable(s: Suspect, i: number, ctx: DumpContext): HTMLElement | null {
  const members = s.biggest_members ?? [];
  if (!members.length) return null;
  const threadNames = new Map((ctx.report.threads ?? []).map((t) => [t.address, t.name]));
  return h(
    'div',
    null,
    h('h4', null, `Biggest members (${formatCount(members.length)} of ${formatCount(s.instances)})`),
    table(
      `suspect-${i + 1}-members`,
      null,
      [{ label: 'Object', name: true }, { label: 'Name' }, { label: 'Retained heap', num: true }],
      members.map((m) => [objectLink(m.object), m.name ?? threadNames.get(m.object.address) ?? m.object.class_of_object ?? '', `${formatCount(m.object.retained_bytes)} (${formatMiB(m.object.retained_bytes)})`]),
      (k) => ({ 'data-address': members[k].object.address, 'data-retained': String(members[k].object.retained_bytes) }),
    ),
  );
}
