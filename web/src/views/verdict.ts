// The overview's first lines: the answer before any table. In order of what the report
// knows: the leaks its leak finder recognized (the report's `leaks` section, when the core
// writes one), else the biggest leak suspect (named by the fields that hold it, `held_in`,
// as the report has it), else that nothing holds more than the suspect threshold. Each
// with links to where the answer is explained. Everything from the dump is set as text.
import type { Leak, Suspect } from '../generated/report';
import { h, type Child } from '../lib/dom';
import { formatBp, formatCount, formatMiB } from '../lib/format';
import { formatFragment, type ViewId } from '../lib/state';
import type { DumpContext } from './common';
import { reportLeaks } from './leaks';
import { headline } from './suspect-findings';

/** Leaks named in the verdict; the rest are counted. */
const NAMED_LEAKS = 3;

function link(view: ViewId, text: string, object: string | null = null, id: string | null = null): HTMLAnchorElement {
  return h('a', { href: formatFragment({ view, object }), 'data-verdict-link': view, id }, text);
}

/** The links after the verdict's sentences, separated by " · ". */
function links(...items: (HTMLElement | null)[]): HTMLElement {
  const shown = items.filter((x): x is HTMLElement => x !== null);
  return h('p', { class: 'verdict-links' }, ...shown.flatMap((a, i) => (i ? [' · ', a] : [a])));
}

function leaksVerdict(ctx: DumpContext, leaks: Leak[], notes: string[]): Child[] {
  // Application leaks first (they are what the developer can fix), then by size.
  const sorted = [...leaks].sort((a, b) => (a.kind === b.kind ? b.retained_bytes - a.retained_bytes : a.kind === 'application' ? -1 : 1));
  const named = sorted.slice(0, NAMED_LEAKS);
  const apps = leaks.filter((l) => l.kind === 'application').length;
  const total = leaks.reduce((s, l) => s + l.retained_bytes, 0);
  const count = `${formatCount(leaks.length)} ${leaks.length === 1 ? 'leak' : 'leaks'}`;
  const split = apps === leaks.length ? '' : apps === 0 ? ', all in libraries' : ` (${formatCount(apps)} in the application, ${formatCount(leaks.length - apps)} in libraries)`;
  return [
    h('p', { class: 'verdict-lead' }, h('strong', null, `${count} found`), `${split}, retaining ${formatMiB(total)} together:`),
    h(
      'ul',
      { class: 'verdict-leaks' },
      ...named.map((l) =>
        h(
          'li',
          { 'data-leak': l.signature, 'data-kind': l.kind },
          h('span', { class: 'badge' }, l.kind === 'application' ? 'application' : 'library'),
          ' ',
          l.description,
          ` — ${formatCount(l.count)} ${l.count === 1 ? 'instance' : 'instances'}, ${formatMiB(l.retained_bytes)}`,
        ),
      ),
      sorted.length > named.length ? h('li', { class: 'fine' }, `and ${formatCount(sorted.length - named.length)} more`) : null,
    ),
    notes.length ? h('p', { class: 'fine verdict-notes' }, notes.join(' ')) : null,
    links(link('leaks', 'The leaks and their traces'), link('suspects', 'Leak suspects'), ctx.hasDump ? link('dominators', 'Dominator tree') : null),
  ];
}

function suspectVerdict(ctx: DumpContext, s: Suspect, others: number): Child[] {
  const ap = s.accumulation_point ?? null;
  const target = ap ?? s.object;
  return [
    h(
      'p',
      { class: 'verdict-lead' },
      // As the triage says it: a running frame's working set is no leak.
      h('strong', null, s.frame ? "A running frame's working set (nothing leaked): " : others ? 'The biggest leak suspect: ' : 'One leak suspect: '),
      ...headline(s).childNodes,
    ),
    links(
      link('suspects', others ? `All ${formatCount(others + 1)} suspects` : 'The suspect explained'),
      ctx.hasDump ? link('path', 'Path from a GC root', target.address, 'verdict-path') : null,
      ctx.hasDump ? link('inspector', ap ? 'The accumulation point' : 'The object', target.address) : null,
      ctx.hasDump ? link('treemap', 'Treemap') : null,
    ),
  ];
}

function spreadVerdict(ctx: DumpContext): Child[] {
  const top = ctx.report.top_dominators[0];
  return [
    h(
      'p',
      { class: 'verdict-lead' },
      h('strong', null, 'No single object holds more than 10%: the heap is spread out.'),
      top ? ` The biggest holds ${formatMiB(top.retained_bytes)} (${formatBp(top.retained_bp)}).` : '',
    ),
    links(link('consumers', 'Top consumers'), link('histogram', 'Histogram'), ctx.hasDump ? link('treemap', 'Treemap') : null),
  ];
}

/** The verdict: one or two sentences and their links. */
export function verdict(ctx: DumpContext): HTMLElement {
  const r = ctx.report;
  const leaks = reportLeaks(r);
  const suspects = [...r.leak_suspects.suspects].sort((a, b) => b.retained_bytes - a.retained_bytes);
  let kind: 'leaks' | 'suspect' | 'spread';
  let body: Child[];
  if (leaks && leaks.leaks.length) {
    kind = 'leaks';
    body = leaksVerdict(ctx, leaks.leaks, leaks.notes ?? []);
  } else if (suspects.length) {
    kind = 'suspect';
    body = suspectVerdict(ctx, suspects[0], suspects.length - 1);
  } else {
    kind = 'spread';
    body = spreadVerdict(ctx);
  }
  return h('section', { class: 'verdict', id: 'verdict', 'data-verdict': kind, 'aria-label': 'What this dump shows' }, ...body);
}
