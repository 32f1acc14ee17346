// The honest stand-in for a view whose data the analysis core does not provide yet.
import { h } from '../lib/dom';
import type { ViewInfo } from './registry';

export function placeholder(view: ViewInfo): HTMLElement {
  return h(
    'div',
    { class: 'placeholder', 'data-awaiting': 'analysis-core' },
    h('strong', null, 'Awaiting the analysis core.'),
    ` This view will show ${view.plan}`,
  );
}
