//! Reading one side of a comparison from a file: a dump (`.hprof`, `.hprof.gz`, HotSpot
//! or Android) is analyzed and reduced to its annotated report, then dropped, so two
//! dumps are never in memory at once; a JSON report (`heapscope analyze --format json`)
//! is read as it is.

use std::io::Read;
use std::path::Path;

use super::Session;
use crate::analysis::{Options, Progress};
use crate::error::{Error, Result};
use crate::report::{Report, SourceInfo};
use crate::source::{auto_decompress, FileSource};

/// Whether the file starts like a JSON document (after optional white space).
pub fn looks_like_json(path: &Path) -> Result<bool> {
    let mut head = [0u8; 256];
    let mut f = std::fs::File::open(path).map_err(|e| Error::io(format!("cannot open {}: {e}", path.display())))?;
    let n = f.read(&mut head).map_err(|e| Error::io(format!("cannot read {}: {e}", path.display())))?;
    Ok(head[..n].iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{'))
}

/// The report of the dump or saved report at `path`. A dump's analysis uses `options`.
pub fn load(path: &Path, options: &Options, progress: &mut dyn Progress) -> Result<Report> {
    if looks_like_json(path)? {
        let text =
            std::fs::read_to_string(path).map_err(|e| Error::io(format!("cannot read {}: {e}", path.display())))?;
        return crate::compare::read_report_json(&text);
    }
    let file_bytes = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    let src = auto_decompress(Box::new(FileSource::open(path)?))?;
    let gzip = src.len().is_none();
    let info = SourceInfo { file_name: path.file_name().map(|n| n.to_string_lossy().into_owned()), file_bytes, gzip };
    let mut session = Session::open(src, options, progress, info)?;
    session.report().cloned()
}
