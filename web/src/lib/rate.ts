// Read-rate and time-left estimate for the progress display: a rate smoothed over the
// last few seconds, so one slow chunk does not make the estimate jump.

export interface RateSample {
  t: number; // ms
  bytes: number;
}

export class RateMeter {
  private samples: RateSample[] = [];
  private phase = '';

  constructor(private readonly windowMs = 3000) {}

  /** Records `bytes` done at time `t` (ms) in `phase`; a new phase starts a new estimate. */
  add(phase: string, bytes: number, t: number): void {
    if (phase !== this.phase || (this.samples.length && bytes < this.samples[this.samples.length - 1].bytes)) {
      this.samples = [];
      this.phase = phase;
    }
    this.samples.push({ t, bytes });
    while (this.samples.length > 2 && t - this.samples[1].t > this.windowMs) this.samples.shift();
  }

  /** Bytes per second over the window, or NaN before there is enough to tell. */
  rate(): number {
    if (this.samples.length < 2) return NaN;
    const a = this.samples[0];
    const b = this.samples[this.samples.length - 1];
    const dt = (b.t - a.t) / 1000;
    return dt >= 0.2 ? (b.bytes - a.bytes) / dt : NaN;
  }

  /** Seconds until `total` at the current rate, or NaN when unknown. */
  secondsLeft(total: number | null): number {
    const r = this.rate();
    if (total === null || !(r > 0) || !this.samples.length) return NaN;
    return Math.max(0, (total - this.samples[this.samples.length - 1].bytes) / r);
  }
}
