// Leak suspects, as MAT's Leak Suspects report: each suspect's description, its
// accumulation point, and the chain from the suspect down to it, every object a link; a
// single suspect's path up to its GC root and its dominator subtree.
// Top consumers: the biggest objects, classes, class loaders and packages.
import type { Consumer, ObjectRef, Suspect } from '../generated/report';
import { accumulatedTable, headline, membersTable, structureTable } from './suspect-findings';
import { h } from '../lib/dom';
import { formatFragment } from '../lib/state';
import { formatBp, formatCount, formatMiB } from '../lib/format';
import { className, objectLink } from '../lib/objects';
import { table, type DumpContext } from './common';
import { rootPathBlock, subtreeBlock } from './sections';

function sizeText(bytes: number, bp: number): string {
  return `${formatCount(bytes)} bytes (${formatMiB(bytes)}, ${formatBp(bp)} of the heap)`;
}

function objectRow(o: ObjectRef): (HTMLElement | string)[] {
  return [objectLink(o), formatCount(o.shallow_bytes), formatCount(o.retained_bytes), formatBp(o.retained_bp)];
}

const OBJECT_COLUMNS = [{ label: 'Object', name: true }, { label: 'Shallow heap', num: true }, { label: 'Retained heap', num: true }, { label: '% of heap', num: true }];

function suspect(ctx: DumpContext, s: Suspect, i: number): HTMLElement {
  // The chain down to where the memory accumulates, linked structures read as one (MAT's
  // own steps down a list node by node, when the core has no reading of its own).
  const steps = s.structure?.path ?? s.chain;
  const omitted = s.structure ? (s.structure.path_omitted ?? 0) : s.chain_omitted;
  const chain = h('ol', { class: 'chain', 'data-chain': '' });
  steps.forEach((o, k) => {
    chain.appendChild(h('li', { 'data-address': o.address }, objectLink(o), ` — retains ${formatCount(o.retained_bytes)} bytes (${formatBp(o.retained_bp)})`));
    if (omitted > 0 && k === Math.floor(steps.length / 2) - 1) {
      chain.appendChild(h('li', { class: 'omitted fine' }, `… ${formatCount(omitted)} more objects in between …`));
    }
  });
  const f = s.frame;
  const chainTitle = s.kind === 'single_object'
    ? 'Dominator chain from the suspect to where it accumulates'
    : 'Reference path shared by most members, from its GC root';
  return h(
    'article',
    { class: 'suspect panel', 'data-suspect': String(i + 1), 'data-kind': s.kind, 'data-retained': String(s.retained_bytes) },
    h('h3', null, `Problem suspect ${i + 1}`, h('span', { class: 'badge' }, s.kind === 'single_object' ? 'one object' : `${formatCount(s.instances)} objects of one class`)),
    headline(s),
    h('p', { class: 'description' }, s.description),
    h(
      'dl',
      { class: 'facts' },
      h('div', { class: 'fact' }, h('dt', null, s.kind === 'single_object' ? 'Suspect' : 'Biggest member'), h('dd', null, objectLink(s.object))),
      // A class object stands for its class: the facts are that class's, not java.lang.Class's.
      h('div', { class: 'fact', 'data-fact': 'class' }, h('dt', null, s.represented_class ? 'Class (its statics)' : 'Class'), h('dd', null, className(s.represented_class ?? s.class_name))),
      h('div', { class: 'fact', 'data-fact': 'loader' }, h('dt', null, 'Loaded by'), h('dd', null, className(s.represented_loader ?? s.loader))),
      h('div', { class: 'fact' }, h('dt', null, 'Retains'), h('dd', null, sizeText(s.retained_bytes, s.retained_bp))),
      s.accumulation_point
        ? h(
            'div',
            { class: 'fact', 'data-accumulation-point': s.accumulation_point.address },
            h('dt', null, 'Accumulation point'),
            h('dd', null, objectLink(s.accumulation_point), ` — retains ${sizeText(s.accumulation_point.retained_bytes, s.accumulation_point.retained_bp)}`, ' · ', objectLink(s.accumulation_point, 'path', 'path from a GC root'), ' · ', objectLink(s.accumulation_point, 'merge', 'merge paths to GC roots')),
          )
        : h('div', { class: 'fact' }, h('dt', null, 'Accumulation point'), h('dd', null, 'none: no single object holds most of it')),
      f
        ? h(
            'div',
            { class: 'fact', 'data-fact': 'frame', 'data-frame': f.frame.short },
            h('dt', null, 'Held by a running frame'),
            h('dd', null, `${f.thread_name ?? f.thread}, in ${f.frame.short}: the local `, objectLink(f.local), f.also_in?.length ? ` (also in ${f.also_in.map((x) => x.short).join(', ')})` : ''),
          )
        : null,
    ),
    structureTable(s, i),
    accumulatedTable(s, i),
    membersTable(s, i, ctx),
    steps.length ? h('div', null, h('h4', null, chainTitle), chain) : null,
    rootPathBlock(s.root_path),
    subtreeBlock(s.dominator_subtree),
  );
}

export function renderSuspects(ctx: DumpContext): HTMLElement {
  const ls = ctx.report.leak_suspects;
  return h(
    'div',
    { class: 'suspects' },
    h(
      'p',
      { class: 'fine' },
      `Where memory accumulates: a suspect is an object, or a group of top-level objects of one class, that retains more than 10% of the heap (${formatCount(ls.threshold_bytes)} bytes here), found as Eclipse MAT's Leak Suspects report finds them. A suspect is not a verdict that memory leaked`,
      (ctx.report.leaks?.leaks.length ?? 0) > 0 ? h('span', null, ': what leaked by LeakCanary\'s reading is in ', h('a', { href: formatFragment({ view: 'leaks', object: null }) }, 'Leaks'), '.') : '.',
    ),
    ls.suspects.length
      ? h('div', { id: 'suspect-list' }, ...ls.suspects.map((s, i) => suspect(ctx, s, i)))
      : h('p', { id: 'no-suspects', class: 'placeholder' }, 'No leak suspects: nothing retains more than 10% of the heap on its own.'),
  );
}

function consumerTable(id: string, caption: string, what: string, rows: Consumer[]): HTMLElement {
  if (!rows.length) return h('div', null, h('h3', null, caption), h('p', { class: 'fine' }, 'None above the threshold.'));
  return h(
    'div',
    null,
    h('h3', null, caption),
    table(
      id,
      null,
      [{ label: what, name: true }, { label: 'Objects', num: true }, { label: 'Retained heap', num: true }, { label: '% of heap', num: true }],
      rows.map((c) => [className(c.name), formatCount(c.objects), formatCount(c.retained_bytes), formatBp(c.retained_bp)]),
    ),
  );
}

export function renderConsumers(ctx: DumpContext): HTMLElement {
  const t = ctx.report.top_consumers;
  return h(
    'div',
    { class: 'consumers' },
    h('p', { class: 'fine' }, `The top-level objects of the dominator tree retaining more than 1% of the heap (${formatCount(t.threshold_bytes)} bytes), and the same objects grouped by class, class loader and package, as in Eclipse MAT's Top Consumers report.`),
    t.objects.length
      ? h('div', null, h('h3', null, 'Biggest objects'), table('consumers-objects', null, OBJECT_COLUMNS, t.objects.map(objectRow)))
      : h('div', null, h('h3', null, 'Biggest objects'), h('p', { class: 'fine' }, 'None above the threshold.')),
    consumerTable('consumers-classes', 'Biggest top-level dominator classes', 'Class', t.classes),
    consumerTable('consumers-loaders', 'Biggest top-level dominator class loaders', 'Class loader', t.class_loaders),
    consumerTable('consumers-packages', 'Biggest top-level dominator packages', 'Package', t.packages),
  );
}
