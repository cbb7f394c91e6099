//! Output formats, one exporter each, behind one trait.

mod csv;
pub mod fio_json;
pub mod html;
mod json;
mod markdown;
pub mod svg;
pub(crate) mod table;
mod text;

pub use csv::Csv;
pub use fio_json::FioJson;
pub use html::Html;
pub use json::Json;
pub use markdown::Markdown;
pub use text::{fmt_count, fmt_ns, Text};

use crate::{DbReport, FsyncReport, InferReport, RunReport, SuiteReport};

/// Turns a report into the bytes of one format.
pub trait Exporter {
    fn export(&self, report: &RunReport) -> anyhow::Result<Vec<u8>>;
    fn export_suite(&self, suite: &SuiteReport) -> anyhow::Result<Vec<u8>>;
    /// An fsync-cost report; formats that have no shape for it say which ones do.
    fn export_fsync(&self, _f: &FsyncReport) -> anyhow::Result<Vec<u8>> {
        anyhow::bail!(
            "this output format has no form for fsync reports: use normal, json, csv, md or html"
        )
    }
    /// A database benchmark report; formats that have no shape for it say which ones do.
    fn export_db(&self, _d: &DbReport) -> anyhow::Result<Vec<u8>> {
        anyhow::bail!(
            "this output format has no form for db reports: use normal, json, csv, md or html"
        )
    }
    /// A volume's inferred limits; formats that have no shape for it say which ones do.
    fn export_infer(&self, _i: &InferReport) -> anyhow::Result<Vec<u8>> {
        anyhow::bail!("this output format has no form for infer reports: use normal or json")
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Normal,
    Json,
    FioJson,
    Markdown,
    Csv,
    Html,
}

impl Format {
    pub const NAMES: [&'static str; 6] = ["normal", "json", "fio-json", "md", "csv", "html"];
    pub fn parse(s: &str) -> Option<Format> {
        match s {
            "normal" | "text" => Some(Format::Normal),
            "json" => Some(Format::Json),
            "fio-json" | "fio_json" => Some(Format::FioJson),
            "md" | "markdown" => Some(Format::Markdown),
            "csv" => Some(Format::Csv),
            "html" => Some(Format::Html),
            _ => None,
        }
    }
}

pub fn exporter(f: Format) -> Box<dyn Exporter> {
    match f {
        Format::Normal => Box::new(Text),
        Format::Json => Box::new(Json),
        Format::FioJson => Box::new(FioJson),
        Format::Markdown => Box::new(Markdown),
        Format::Csv => Box::new(Csv),
        Format::Html => Box::new(Html),
    }
}
