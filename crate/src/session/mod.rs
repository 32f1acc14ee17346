//! An analyzed dump and everything asked of it since: the [`Session`], the one way the
//! command line, the page's worker and the warm-up get a report and answers.
//!
//! A session holds the core [`Analysis`], what its features computed beside it (the
//! thread overview, the waste report, the Android heaps, the leaks: [`Features`]), the caches later
//! questions fill (the referrer index of each tree asked about), the mapping applied, and
//! the report, built on first use and again after anything that changes it (another
//! tree, a mapping). Every question is a [`Query`], answered by [`Session::answer`].
//!
//! - [`query`]: the questions and their answers, as one enum each (and their JSON Schema);
//! - [`protocol`]: what the page and its worker say to each other (and its JSON Schema);
//! - [`input`]: one side of a comparison read from a file (a dump or a saved report).

#[cfg(not(target_arch = "wasm32"))]
pub mod input;
pub mod protocol;
pub mod query;

pub use query::{Answer, Query};

use crate::analysis::{self, Analysis, Options, Progress};
use crate::error::Result;
use crate::heaps::{self, HeapTracker, Heaps};
use crate::holders::{self, referrer_index::ReferrerIndex};
use crate::mapping::{self, Applied, Mapping};
use crate::model::leaks::Leaks;
use crate::model::threads::ThreadInfo;
use crate::model::waste::{AllocationSites, Waste};
use crate::model::{Detail, Reading, Report};
use crate::report::{self, BuildOptions, Sections, SourceInfo};
use crate::source::ByteSource;
use crate::waste::{Found, WasteSink};

/// What the features computed beside the analysis, in the tree in use.
#[derive(Default)]
pub struct Features {
    /// The thread overview (see [`crate::threads`]).
    pub threads: Vec<ThreadInfo>,
    /// Duplicate strings and arrays, empty collections, boxed numbers (see [`crate::waste`]).
    pub waste: Waste,
    /// Objects by allocation stack, where the dump recorded them.
    pub allocation_sites: AllocationSites,
    /// Each object's Android heap (empty on dumps that name none).
    pub heaps: Heaps,
    /// LeakCanary's reading (see [`crate::leaks`]): found on first use, in the tree in use
    /// and with the mapping applied (see [`Session::leaks`]).
    pub leaks: Option<Leaks>,
    /// What the waste report's grouping found: kept to build the waste report again (its
    /// samples' retained sizes) in another tree.
    found: Found,
}

/// An analyzed dump, its features, caches and report.
pub struct Session {
    pub analysis: Analysis,
    /// What the report says about the file.
    pub info: SourceInfo,
    features: Features,
    holders: holders::Cache,
    /// The mapping applied (its frames retrace the features' stacks) and what applying it
    /// changed.
    mapping: Option<(Mapping, Applied)>,
    report: Option<Report>,
    /// `--detail`'s caps for the report.
    detail: Detail,
}

impl Session {
    /// Analyzes `source` (with `options`, telling `progress`), and computes the features in
    /// the tree asked for. The report is built when first asked for.
    pub fn open(
        source: Box<dyn ByteSource>,
        options: &Options,
        progress: &mut dyn Progress,
        info: SourceInfo,
    ) -> Result<Session> {
        let (analysis, heaps, found) = if options.core_only {
            // The core on its own (benchmarks): no waste report.
            let mut sink = (HeapTracker::default(), ());
            let analysis = analysis::analyze(source, options, progress, &mut sink)?;
            (analysis, sink.0.into_heaps(), Found::default())
        } else {
            let mut sink = (HeapTracker::default(), WasteSink::default());
            let analysis = analysis::analyze(source, options, progress, &mut sink)?;
            (analysis, sink.0.into_heaps(), sink.1.found())
        };
        let features = Features { heaps, found, ..Features::default() };
        let mut session = Session {
            analysis,
            info,
            features,
            holders: holders::Cache::default(),
            mapping: None,
            report: None,
            detail: Detail::default(),
        };
        session.tree_sections()?;
        Ok(session)
    }

    /// The features computed beside the analysis.
    pub fn features(&self) -> &Features {
        &self.features
    }

    /// The sections whose sizes come from the tree in use: the threads (with their size
    /// in the strength-aware tree once both trees exist) and the waste report (its
    /// samples' retained sizes).
    fn tree_sections(&mut self) -> Result<()> {
        let a = &mut self.analysis;
        let mapping = self.mapping.as_ref().map(|(m, _)| m);
        let mut threads = crate::threads::collect(a, mapping)?;
        crate::threads::refresh_sizes(a, &mut threads);
        let (waste, sites) = crate::waste::build(a, self.features.found.clone(), mapping)?;
        self.features.threads = threads;
        self.features.waste = waste;
        self.features.allocation_sites = sites;
        self.features.leaks = None;
        self.report = None;
        Ok(())
    }

    /// Makes `reading`'s dominator tree the one every question and retained size answers
    /// from (computed on first use; the other is kept), with the features in it.
    pub fn set_reading(&mut self, reading: Reading) -> Result<()> {
        if reading == self.analysis.reading {
            return Ok(());
        }
        self.analysis.set_reading(reading)?;
        self.tree_sections()
    }

    /// Applies a ProGuard/R8 mapping (replacing one applied before); returns how many
    /// classes it renamed. The features that name classes or frames (threads, waste,
    /// allocation sites) are computed again with the original names and retraced frames.
    pub fn apply_mapping(&mut self, mapping: &Mapping) -> Result<u64> {
        let previous = self.mapping.take().map(|(_, a)| a);
        // The previous mapping's warning on its fit goes with it.
        if let Some(w) = previous.as_ref().and_then(|p| p.warning.as_ref()) {
            self.analysis.warnings.retain(|x| x != w);
        }
        let applied = mapping::apply(&mut self.analysis, mapping, previous);
        if let Some(w) = &applied.warning {
            self.analysis.warnings.push(w.clone());
        }
        let renamed = applied.renamed;
        self.mapping = Some((mapping.clone(), applied));
        // Leaks are found by the classes' and fields' original names.
        self.features.leaks = None;
        self.tree_sections()?;
        Ok(renamed)
    }

    /// Sets the caps of the report (`--detail`; the default's until set).
    pub fn set_detail(&mut self, detail: Detail) {
        if detail != self.detail {
            self.detail = detail;
            self.report = None;
        }
    }

    /// The report as `heapscope analyze` writes it (built on first use: with what a later
    /// comparison needs from the dump).
    pub fn report(&mut self) -> Result<&Report> {
        if self.report.is_none() {
            // A core-only analysis (benchmarks) reports no feature.
            if !self.analysis.options.core_only {
                self.leaks()?;
            }
            let heaps = heaps::summarize(&self.analysis, &self.features.heaps);
            let sections = Sections {
                threads: &self.features.threads,
                waste: &self.features.waste,
                allocation_sites: &self.features.allocation_sites,
                heaps: heaps.as_ref(),
                leaks: self.features.leaks.as_ref(),
            };
            let options = BuildOptions { detail: self.detail };
            self.report = Some(report::annotated_report_with(&mut self.analysis, &sections, &self.info, &options)?);
        }
        Ok(self.report.as_ref().expect("just built"))
    }

    /// What leaked, as LeakCanary reads the dump ([`crate::leaks::find`]): found on first use
    /// (one breadth-first search when the dump has watched or ended-lifecycle objects;
    /// a few class-name lookups otherwise), again after another tree or mapping.
    pub fn leaks(&mut self) -> Result<&Leaks> {
        if self.features.leaks.is_none() {
            self.features.leaks = Some(crate::leaks::find(&mut self.analysis)?);
        }
        Ok(self.features.leaks.as_ref().expect("just found"))
    }

    /// The referrer index of `tree` (None: the tree in use; another one is an error),
    /// built on the first question that needs it.
    pub fn referrer_index(&mut self, tree: Option<Reading>) -> Result<&ReferrerIndex> {
        let tree = holders::resolve(&self.analysis, tree)?;
        self.holders.index(&self.analysis, tree)
    }
}
