// The overview: facts about the file from the worker's pass over it (all read from the
// file, none estimated), then the heap summary once the analysis core provides it.
import { h } from '../lib/dom';
import { formatBytes, formatBytesExact, formatCount, formatDuration, formatRate, formatTimestamp } from '../lib/format';
import type { Summary } from '../protocol';
import { placeholder } from './placeholder';
import { VIEWS } from './registry';

export interface FileFacts {
  name: string;
  summary: Summary;
  seconds: number;
}

function row(label: string, value: string, key: string): HTMLElement {
  return h('div', { class: 'fact', 'data-fact': key }, h('dt', null, label), h('dd', null, value));
}

export function renderOverview({ name, summary: s, seconds }: FileFacts): HTMLElement {
  const facts = h(
    'dl',
    { class: 'facts', id: 'file-facts' },
    row('File', name, 'name'),
    row('Size', formatBytesExact(s.inputBytes), 'input-bytes'),
    row('Compression', s.compressed ? `gzip; ${formatBytesExact(s.decodedBytes)} of HPROF data` : 'none', 'compression'),
    row('HPROF data', formatBytesExact(s.decodedBytes), 'decoded-bytes'),
    row('Format', s.format, 'format'),
    row('Identifier size', `${s.idSize} bytes`, 'id-size'),
    row('Written', formatTimestamp(s.timestampMs), 'timestamp'),
    row('Records', formatCount(s.records), 'records'),
    row('Read in', `${formatDuration(seconds)} (${formatRate(s.inputBytes / Math.max(seconds, 1e-3))})`, 'read-time'),
  );
  const tags = h(
    'table',
    { class: 'records', id: 'records-by-tag' },
    h('caption', null, 'Top-level records'),
    h('thead', null, h('tr', null, h('th', { scope: 'col' }, 'Tag'), h('th', null, 'Record'), h('th', { class: 'num' }, 'Count'), h('th', { class: 'num' }, 'Body bytes'))),
    h(
      'tbody',
      null,
      ...s.recordsByTag.map((t) =>
        h(
          'tr',
          { 'data-tag': t.tag },
          h('td', { class: 'mono' }, `0x${t.tag.toString(16).padStart(2, '0')}`),
          h('td', null, t.name),
          h('td', { class: 'num' }, formatCount(t.count)),
          h('td', { class: 'num', title: `${formatCount(t.bytes)} bytes` }, formatBytes(t.bytes)),
        ),
      ),
    ),
  );
  const overview = VIEWS.find((v) => v.id === 'overview');
  return h(
    'div',
    { class: 'overview' },
    h('h3', null, 'File'),
    facts,
    tags,
    h('h3', null, 'Heap'),
    overview ? placeholder(overview) : null,
  );
}
