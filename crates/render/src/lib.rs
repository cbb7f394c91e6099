//! Documents into bytes: text, JSON, fio's JSON, CSV, Markdown, HTML with SVG charts, fio's
//! logs and comparison tables. Every format is a pure function of a `report::Document`, so
//! each is tested as one; only the binary depends on this crate (the runner and the store
//! know the data, never its rendering).

pub mod cloud;
pub mod compare;
mod csv;
mod curve;
mod db;
mod durability;
pub mod fio_json;
pub mod fio_logs;
#[cfg(test)]
mod format_tests;
mod fsync;
pub mod html;
mod infer;
mod json;
mod markdown;
mod pts;
pub mod repeats;
pub mod replay;
mod scaleout;
pub mod svg;
pub mod table;
mod text;

pub use csv::Csv;
pub use fio_json::FioJson;
pub use html::Html;
pub use json::Json;
pub use markdown::Markdown;
pub use text::Text;

use report::compare::Comparison;
use report::{
    DbReport, Document, DurabilityReport, FsyncReport, InferReport, RunReport, SuiteReport,
};

/// Turns a document into the bytes of one format, one method per kind of document.
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
    /// The power-cut loop's cycles and verdict; formats that have no shape for it say which
    /// ones do.
    fn export_durability(&self, _d: &DurabilityReport) -> anyhow::Result<Vec<u8>> {
        anyhow::bail!(
            "this output format has no form for durability cycle reports: use normal, json, md or html"
        )
    }
    /// Results side by side; formats that have no shape for it say which ones do.
    fn export_compare(&self, _c: &Comparison) -> anyhow::Result<Vec<u8>> {
        anyhow::bail!(
            "this output format has no form for a comparison: use normal, json, md, csv or html"
        )
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Normal,
    Json,
    FioJson,
    /// fio's `json+`: fio-json with each latency's histogram bins.
    FioJsonPlus,
    Markdown,
    Csv,
    Html,
}

impl Format {
    pub const NAMES: [&'static str; 7] =
        ["normal", "json", "fio-json", "json+", "md", "csv", "html"];
    pub fn parse(s: &str) -> Option<Format> {
        match s {
            "normal" | "text" => Some(Format::Normal),
            "json" => Some(Format::Json),
            "fio-json" | "fio_json" => Some(Format::FioJson),
            "json+" | "fio-json+" => Some(Format::FioJsonPlus),
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
        Format::FioJson => Box::new(FioJson { plus: false }),
        Format::FioJsonPlus => Box::new(FioJson { plus: true }),
        Format::Markdown => Box::new(Markdown),
        Format::Csv => Box::new(Csv),
        Format::Html => Box::new(Html),
    }
}

/// The one entry point: any document in any format.
pub fn render(doc: &Document, f: Format) -> anyhow::Result<Vec<u8>> {
    let e = exporter(f);
    match doc {
        Document::Run(r) => e.export(r),
        Document::Suite(s) => e.export_suite(s),
        Document::Fsync(f) => e.export_fsync(f),
        Document::Db(d) => e.export_db(d),
        Document::Infer(i) => e.export_infer(i),
        Document::Durability(d) => e.export_durability(d),
        Document::Compare(c) => e.export_compare(c),
    }
}
