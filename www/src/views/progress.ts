// The progress panel: phase, bytes read of the total, read rate, time left, elapsed time
// and the Cancel button. Rates are computed here from the worker's byte counts.
import { byId, h, setText } from '../lib/dom';
import { formatBytes, formatCount, formatDuration, formatPercent, formatRate } from '../lib/format';
import { RateMeter } from '../lib/rate';
import type { Progress } from '../protocol';

export class ProgressView {
  private readonly root = byId('progress');
  private readonly bar = byId<HTMLProgressElement>('progress-bar');
  private meter = new RateMeter();
  private started = 0;
  private timer: number | undefined;

  constructor(onCancel: () => void) {
    byId('cancel-button').addEventListener('click', onCancel);
  }

  start(fileName: string, size: number): void {
    this.meter = new RateMeter();
    this.started = performance.now();
    setText(byId('progress-file'), fileName);
    setText(byId('progress-phase'), 'starting');
    setText(byId('progress-bytes'), `0 B of ${formatBytes(size)}`);
    setText(byId('progress-rate'), '–');
    setText(byId('progress-left'), '–');
    setText(byId('progress-elapsed'), '0.0 s');
    setText(byId('progress-objects'), '–');
    this.bar.removeAttribute('value'); // indeterminate until the first report
    this.root.hidden = false;
    byId<HTMLButtonElement>('cancel-button').disabled = false;
    // Elapsed time ticks even between reports (a slow phase still looks alive).
    window.clearInterval(this.timer);
    this.timer = window.setInterval(() => this.tick(), 250);
  }

  update(p: Progress): void {
    const now = performance.now();
    this.meter.add(p.phase, p.bytesDone, now);
    setText(byId('progress-phase'), p.phase);
    const total = p.bytesTotal;
    if (total !== null && total > 0) {
      this.bar.max = total;
      this.bar.value = Math.min(p.bytesDone, total);
      setText(byId('progress-bytes'), `${formatBytes(p.bytesDone)} of ${formatBytes(total)} (${formatPercent(p.bytesDone / total)})`);
    } else {
      this.bar.removeAttribute('value');
      setText(byId('progress-bytes'), formatBytes(p.bytesDone));
    }
    this.root.dataset.bytesDone = String(p.bytesDone);
    setText(byId('progress-rate'), formatRate(this.meter.rate()));
    setText(byId('progress-left'), formatDuration(this.meter.secondsLeft(total)));
    setText(byId('progress-objects'), p.objects > 0 ? formatCount(p.objects) : '–');
    this.tick();
  }

  stop(): void {
    window.clearInterval(this.timer);
    this.timer = undefined;
    this.root.hidden = true;
  }

  /** Seconds since start, for the final report. */
  elapsed(): number {
    return (performance.now() - this.started) / 1000;
  }

  private tick(): void {
    setText(byId('progress-elapsed'), formatDuration(this.elapsed()));
  }
}

/** The panel's markup (built once by the shell). */
export function progressPanel(): HTMLElement {
  const stat = (label: string, id: string): HTMLElement =>
    h('div', { class: 'stat' }, h('dt', null, label), h('dd', { id }, '–'));
  return h(
    'section',
    { id: 'progress', class: 'panel progress', hidden: true, 'aria-label': 'Progress' },
    h('h2', null, 'Reading ', h('span', { id: 'progress-file', class: 'file-name' })),
    h('progress', { id: 'progress-bar', max: 1 }),
    h(
      'dl',
      { class: 'stats' },
      stat('Phase', 'progress-phase'),
      stat('Read', 'progress-bytes'),
      stat('Speed', 'progress-rate'),
      stat('Time left', 'progress-left'),
      stat('Elapsed', 'progress-elapsed'),
      stat('Objects', 'progress-objects'),
    ),
    h('button', { id: 'cancel-button', type: 'button', class: 'secondary' }, 'Cancel'),
  );
}
