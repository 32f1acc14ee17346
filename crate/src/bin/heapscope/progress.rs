//! Progress on stderr when it is a terminal (an `indicatif` bar: phase, bytes, rate, time
//! left, objects), per-phase timings with `--timings` (`-v`), and the memory as phases go
//! with `--trace-rss`.
//!
//! The two passes read the whole input, so they get a bar over the input's bytes (the
//! compressed bytes for gzip) with the rate and the time left of that pass; the phases
//! after them read nothing and get a spinner with the time spent.

use std::time::{Duration, Instant};

use heapscope::analysis::{Phase, Progress, ProgressInfo};
use heapscope::error::Error;
use indicatif::{HumanCount, ProgressBar, ProgressDrawTarget, ProgressStyle};

pub struct Meter {
    phase: &'static str,
    /// The bar on stderr; None when stderr is not a terminal or with --quiet.
    bar: Option<ProgressBar>,
    /// (phase, wall seconds, CPU seconds, peak RSS bytes during the phase)
    timings: Option<Vec<(&'static str, f64, Cpu, u64)>>,
    phase_start: (Instant, Cpu),
    /// `--trace-rss`: when the memory was last printed (None: it is not traced).
    trace_rss: Option<Instant>,
}

/// The phase in a few characters: the bar must fit an 80-column terminal.
fn short_name(phase: Phase) -> &'static str {
    match phase {
        Phase::Pass1 => "pass 1/2",
        Phase::Pass2 => "pass 2/2",
        Phase::Strengths => "strengths",
        Phase::Dominators => "dominator tree",
        Phase::Retained => "retained sizes",
        Phase::Report => "report",
        Phase::ReferrerIndex => "referrer index",
        Phase::Queries => "queries",
    }
}

/// CPU seconds of this process, user and system apart: on a virtual machine whose host
/// backs memory lazily, the system time is mostly the first touch of fresh pages, which
/// varies several-fold from run to run (see the README's Performance section).
#[derive(Clone, Copy, Default)]
struct Cpu {
    user: f64,
    sys: f64,
}

impl std::ops::Sub for Cpu {
    type Output = Cpu;
    fn sub(self, o: Cpu) -> Cpu {
        Cpu { user: self.user - o.user, sys: self.sys - o.sys }
    }
}

/// CPU seconds of this process so far (Linux; 0 elsewhere).
fn cpu_seconds() -> Cpu {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else { return Cpu::default() };
    // Fields after the parenthesised command name: utime is the 12th, stime the 13th.
    let rest = stat.rsplit_once(')').map(|(_, r)| r).unwrap_or("");
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |i: usize| f.get(i).and_then(|x| x.parse::<f64>().ok()).unwrap_or(0.0);
    Cpu { user: ticks(11) / 100.0, sys: ticks(12) / 100.0 }
}

/// A memory figure of `/proc/self/status` in bytes (`VmHWM:`, `VmRSS:`; Linux, 0 elsewhere).
fn status_bytes(field: &str) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map_or(0, |kb| kb * 1024)
}

/// Peak resident set size since the last reset.
fn peak_rss() -> u64 {
    status_bytes("VmHWM:")
}

/// Resident set size now.
fn current_rss() -> u64 {
    status_bytes("VmRSS:")
}

fn reset_peak_rss() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

/// Hands the memory freed by the phase that ended back to the system (glibc keeps freed
/// blocks below the top of its heap resident: without this, the next phase's peak
/// resident set would count the previous phase's temporaries). A few milliseconds.
fn release_free_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        extern "C" {
            fn malloc_trim(pad: usize) -> i32;
        }
        // SAFETY: malloc_trim only returns free heap pages to the kernel.
        unsafe {
            malloc_trim(0);
        }
    }
}

impl Meter {
    /// `tty`: draw progress; `timings`: record per-phase figures; `trace_rss`: print the
    /// memory as phases go.
    pub fn new(tty: bool, timings: bool, trace_rss: bool) -> Meter {
        let now = Instant::now();
        reset_peak_rss();
        let bar = tty.then(|| ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr_with_hz(10)));
        Meter {
            phase: "",
            bar,
            timings: timings.then(Vec::new),
            phase_start: (now, cpu_seconds()),
            trace_rss: trace_rss.then_some(now),
        }
    }

    /// With `--trace-rss`: the current and peak resident memory, with `what` happened.
    fn trace(&mut self, what: &str) {
        let Some(last) = &mut self.trace_rss else { return };
        *last = Instant::now();
        let mib = |b: u64| b as f64 / (1u64 << 20) as f64;
        let line = format!(
            "heapscope: rss: {what:<28} current {:>9.1} MiB, peak {:>9.1} MiB",
            mib(current_rss()),
            mib(peak_rss())
        );
        match &self.bar {
            Some(bar) => bar.println(line),
            None => eprintln!("{line}"),
        }
    }

    /// Erases the progress bar (before the output and messages).
    pub fn clear(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
    }

    /// Restyles the bar for a new phase.
    fn start_phase(&self, p: &ProgressInfo) {
        let Some(bar) = &self.bar else { return };
        let reads_input = matches!(p.phase, Phase::Pass1 | Phase::Pass2);
        let (template, length) = match (reads_input, p.bytes_total) {
            (true, Some(total)) => {
                ("{prefix:<14} [{wide_bar}] {decimal_bytes}/{decimal_total_bytes} {decimal_bytes_per_sec} ETA {eta} {msg:<18}", Some(total))
            }
            (true, None) => ("{prefix:<14} {spinner} {decimal_bytes} {decimal_bytes_per_sec} {msg}", None),
            (false, _) => ("{prefix:<14} {spinner} {elapsed} {msg}", None),
        };
        match length {
            Some(length) => bar.set_length(length),
            None => bar.unset_length(),
        }
        // A fresh phase: its rate and time left start from zero.
        bar.reset();
        bar.set_prefix(short_name(p.phase));
        let style = ProgressStyle::with_template(template).expect("valid template").progress_chars("=> ");
        bar.set_style(style);
        if !reads_input {
            bar.enable_steady_tick(Duration::from_millis(200));
        }
    }

    /// Ends the current phase's timing.
    pub fn close_phase(&mut self) {
        if !self.phase.is_empty() {
            let phase = self.phase;
            self.trace(&format!("{phase} ends"));
        }
        if let (Some(t), false) = (&mut self.timings, self.phase.is_empty()) {
            let now = Instant::now();
            let cpu = cpu_seconds();
            t.push((
                self.phase,
                now.duration_since(self.phase_start.0).as_secs_f64(),
                cpu - self.phase_start.1,
                peak_rss(),
            ));
            self.phase_start = (now, cpu);
        }
        // With or without timings: a phase's temporaries left resident would add to the
        // peak of the next (measured on the 1 GB dump: 464 MiB instead of 453).
        if !self.phase.is_empty() {
            release_free_memory();
        }
        if self.timings.is_some() {
            reset_peak_rss();
        }
    }

    pub fn print_timings(&mut self, objects: u64) {
        let Some(t) = &self.timings else { return };
        // Scripts read the last two columns (peak MiB, bytes per object): keep them last.
        eprintln!(
            "{:<28} {:>8} {:>8} {:>8} {:>8} {:>10} {:>9}",
            "phase", "wall s", "cpu s", "user s", "sys s", "peak MiB", "B/object"
        );
        let row = |name: &str, wall: f64, cpu: Cpu, rss: u64| {
            let per = if objects > 0 { rss as f64 / objects as f64 } else { 0.0 };
            let mib = rss as f64 / (1u64 << 20) as f64;
            eprintln!(
                "{name:<28} {wall:>8.2} {:>8.2} {:>8.2} {:>8.2} {mib:>10.1} {per:>9.1}",
                cpu.user + cpu.sys,
                cpu.user,
                cpu.sys
            );
        };
        for &(name, wall, cpu, rss) in t {
            row(name, wall, cpu, rss);
        }
        let wall: f64 = t.iter().map(|x| x.1).sum();
        let cpu = Cpu { user: t.iter().map(|x| x.2.user).sum(), sys: t.iter().map(|x| x.2.sys).sum() };
        let rss = t.iter().map(|x| x.3).max().unwrap_or(0);
        row("total", wall, cpu, rss);
        eprintln!("objects in the dump: {objects}");
    }
}

impl Progress for Meter {
    fn update(&mut self, p: &ProgressInfo) -> Result<(), Error> {
        if p.phase.name() != self.phase {
            self.close_phase();
            self.phase = p.phase.name();
            self.start_phase(p);
            let phase = self.phase;
            self.trace(&format!("{phase} starts"));
        } else if self.trace_rss.is_some_and(|t| t.elapsed() >= Duration::from_secs(2)) {
            let phase = self.phase;
            self.trace(phase);
        }
        if let Some(bar) = &self.bar {
            if matches!(p.phase, Phase::Pass1 | Phase::Pass2) {
                bar.set_position(p.bytes_done);
            }
            bar.set_message(format!("{} objects", HumanCount(p.objects)));
        }
        Ok(())
    }
}
