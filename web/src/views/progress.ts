// The progress panel: phase, bytes read of the total, read rate, time left, elapsed time,
// objects, the worker's memory, and the Cancel button. Rates are computed here from the
// worker's byte counts. The analysis reads the file twice (pass 1: objects; pass 2:
// references), then computes in memory (dominators, retained sizes, report).
import { announce } from '../lib/announce';
import { byId, h, setText } from '../lib/dom';
import { formatBytes, formatCount, formatDuration, formatMiB, formatPercent, formatRate } from '../lib/format';
import { RateMeter } from '../lib/rate';
import type { Progress } from '../protocol';

/** Which read of the file a phase is (1 or 2), or 0 for the in-memory phases after them. */
function passOf(phase: string): 0 | 1 | 2 {
  if (phase.startsWith('pass 1')) return 1;
  if (phase.startsWith('pass 2')) return 2;
  return 0;
}

export class ProgressView {
  private readonly root = byId('progress');
  private readonly bar = byId<HTMLProgressElement>('progress-bar');
  private meter = new RateMeter();
  private started = 0;
  private timer: number | undefined;
  private peakMemory = 0;
  /** What was last announced to screen readers: the phase and the tenth of the work done. */
  private spoken = { phase: '', tenth: -1, at: 0 };

  constructor(onCancel: () => void) {
    byId('cancel-button').addEventListener('click', onCancel);
  }

  start(fileName: string, size: number, verb = 'Analyzing'): void {
    this.meter = new RateMeter();
    this.started = performance.now();
    this.peakMemory = 0;
    this.spoken = { phase: '', tenth: -1, at: 0 };
    announce(`${verb} ${fileName}`);
    setText(byId('progress-verb'), `${verb} `);
    setText(byId('progress-file'), fileName);
    setText(byId('progress-phase'), 'starting');
    setText(byId('progress-bytes'), `0 B of ${formatBytes(size)}`);
    setText(byId('progress-rate'), '–');
    setText(byId('progress-left'), '–');
    setText(byId('progress-elapsed'), '0.0 s');
    setText(byId('progress-objects'), '–');
    setText(byId('progress-memory'), '–');
    delete this.root.dataset.memoryBytes;
    delete this.root.dataset.phase;
    this.bar.removeAttribute('value'); // indeterminate until the first report
    this.root.hidden = false;
    byId<HTMLButtonElement>('cancel-button').disabled = false;
    // Elapsed time ticks even between reports (a slow phase still looks alive).
    window.clearInterval(this.timer);
    this.timer = window.setInterval(() => this.tick(), 250);
  }

  update(p: Progress): void {
    const now = performance.now();
    const pass = passOf(p.phase);
    this.meter.add(p.phase, p.bytesDone, now);
    setText(byId('progress-phase'), pass ? `${p.phase} (read ${pass} of 2)` : p.phase);
    this.root.dataset.phase = p.phase;
    const total = p.bytesTotal ?? null;
    if (total !== null && total > 0) {
      const done = Math.min(p.bytesDone, total);
      this.bar.max = 2 * total;
      this.bar.value = pass === 1 ? done : pass === 2 ? total + done : 2 * total;
      setText(byId('progress-bytes'), pass ? `${formatBytes(done)} of ${formatBytes(total)} (${formatPercent(done / total)})` : `${formatBytes(total)}, read twice`);
    } else {
      this.bar.removeAttribute('value');
      setText(byId('progress-bytes'), formatBytes(p.bytesDone));
    }
    this.root.dataset.bytesDone = String(p.bytesDone);
    const rate = this.meter.rate();
    setText(byId('progress-rate'), pass ? formatRate(rate) : '–');
    let left = NaN;
    if (total !== null && rate > 0) {
      // The second read goes at about the first one's speed (it skips array contents).
      left = pass === 1 ? (total - p.bytesDone) / rate + total / rate : pass === 2 ? (total - p.bytesDone) / rate : NaN;
    }
    setText(byId('progress-left'), pass === 0 ? 'computing…' : formatDuration(left));
    this.speak(p.phase, pass, total !== null && total > 0 ? this.bar.value / this.bar.max : NaN, left);
    setText(byId('progress-objects'), p.objects > 0 ? formatCount(p.objects) : '–');
    this.peakMemory = Math.max(this.peakMemory, p.memoryBytes);
    if (p.memoryBytes > 0) {
      setText(byId('progress-memory'), formatMiB(p.memoryBytes));
      this.root.dataset.memoryBytes = String(this.peakMemory);
    }
    this.tick();
  }

  /** Announces a new phase, and progress every tenth of the work (at most every 2 s). */
  private speak(phase: string, pass: 0 | 1 | 2, done: number, left: number): void {
    const now = performance.now();
    const tenth = Number.isFinite(done) ? Math.floor(done * 10) : -1;
    const newPhase = phase !== this.spoken.phase;
    if (!newPhase && (tenth <= this.spoken.tenth || now - this.spoken.at < 2000)) return;
    this.spoken = { phase, tenth: Math.max(tenth, this.spoken.tenth), at: now };
    const parts = [pass ? `${phase}, read ${pass} of 2` : phase];
    if (tenth >= 0) parts.push(`${tenth * 10}% done`);
    if (Number.isFinite(left)) parts.push(`about ${formatDuration(left)} left`);
    announce(parts.join(', '));
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
    h('h2', null, h('span', { id: 'progress-verb' }, 'Analyzing '), h('span', { id: 'progress-file', class: 'file-name' })),
    h('progress', { id: 'progress-bar', max: 1, 'aria-label': 'Analysis progress' }),
    h(
      'dl',
      { class: 'stats' },
      stat('Phase', 'progress-phase'),
      stat('Read', 'progress-bytes'),
      stat('Speed', 'progress-rate'),
      stat('Time left', 'progress-left'),
      stat('Elapsed', 'progress-elapsed'),
      stat('Objects', 'progress-objects'),
      stat('Memory (wasm)', 'progress-memory'),
    ),
    h('button', { id: 'cancel-button', type: 'button', class: 'secondary' }, 'Cancel'),
  );
}
