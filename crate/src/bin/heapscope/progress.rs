//! Progress on stderr when it is a terminal, and per-phase timings with `--timings`.

use std::time::Instant;

use heapscope::analysis::{Progress, ProgressInfo};
use heapscope::error::Error;

pub struct Meter {
    start: Instant,
    last: Instant,
    phase: &'static str,
    tty: bool,
    /// (phase, wall seconds, CPU seconds, peak RSS bytes during the phase)
    timings: Option<Vec<(&'static str, f64, f64, u64)>>,
    phase_start: (Instant, f64),
}

/// User + system CPU seconds of this process (Linux; 0 elsewhere).
fn cpu_seconds() -> f64 {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else { return 0.0 };
    // Fields after the parenthesised command name: utime is the 12th, stime the 13th.
    let rest = stat.rsplit_once(')').map(|(_, r)| r).unwrap_or("");
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |i: usize| f.get(i).and_then(|x| x.parse::<f64>().ok()).unwrap_or(0.0);
    (ticks(11) + ticks(12)) / 100.0
}

/// Peak resident set size since the last reset (Linux; 0 elsewhere).
fn peak_rss() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map_or(0, |kb| kb * 1024)
}

fn reset_peak_rss() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

impl Meter {
    /// `tty`: draw progress; `timings`: record per-phase figures.
    pub fn new(tty: bool, timings: bool) -> Meter {
        let now = Instant::now();
        reset_peak_rss();
        Meter { start: now, last: now, phase: "", tty, timings: timings.then(Vec::new), phase_start: (now, cpu_seconds()) }
    }

    /// Erases the progress line (before the output and messages).
    pub fn clear(&mut self) {
        if self.tty {
            eprint!("\r\x1b[K");
        }
    }

    /// Ends the current phase's timing.
    pub fn close_phase(&mut self) {
        if let (Some(t), false) = (&mut self.timings, self.phase.is_empty()) {
            let now = Instant::now();
            let cpu = cpu_seconds();
            t.push((self.phase, now.duration_since(self.phase_start.0).as_secs_f64(), cpu - self.phase_start.1, peak_rss()));
            reset_peak_rss();
            self.phase_start = (now, cpu);
        }
    }

    pub fn print_timings(&mut self, objects: u64) {
        let Some(t) = &self.timings else { return };
        eprintln!("{:<28} {:>8} {:>8} {:>10} {:>9}", "phase", "wall s", "cpu s", "peak MiB", "B/object");
        for (name, wall, cpu, rss) in t {
            let per = if objects > 0 { *rss as f64 / objects as f64 } else { 0.0 };
            eprintln!("{name:<28} {wall:>8.2} {cpu:>8.2} {:>10.1} {per:>9.1}", *rss as f64 / (1u64 << 20) as f64);
        }
        let wall: f64 = t.iter().map(|x| x.1).sum();
        let cpu: f64 = t.iter().map(|x| x.2).sum();
        let rss = t.iter().map(|x| x.3).max().unwrap_or(0);
        let per = if objects > 0 { rss as f64 / objects as f64 } else { 0.0 };
        eprintln!("{:<28} {wall:>8.2} {cpu:>8.2} {:>10.1} {per:>9.1}", "total", rss as f64 / (1u64 << 20) as f64);
        eprintln!("objects in the dump: {objects}");
    }
}

impl Progress for Meter {
    fn update(&mut self, p: &ProgressInfo) -> Result<(), Error> {
        let now = Instant::now();
        let changed = p.phase.name() != self.phase;
        if changed {
            self.close_phase();
            self.phase = p.phase.name();
        }
        if !self.tty || (!changed && now.duration_since(self.last).as_millis() < 200) {
            return Ok(());
        }
        self.last = now;
        let secs = now.duration_since(self.start).as_secs_f64().max(1e-3);
        let mb = p.bytes_done as f64 / 1e6;
        let total = p.bytes_total.map(|t| format!(" / {:.0} MB", t as f64 / 1e6)).unwrap_or_default();
        eprint!("\r\x1b[K{}: {:.0} MB{} ({:.0} MB/s), {} objects", p.phase.name(), mb, total, mb / secs, p.objects);
        Ok(())
    }
}
