//! Output formats, one exporter each, behind one trait.

mod json;
mod text;

pub use json::Json;
pub use text::{fmt_count, fmt_ns, Text};

use crate::{RunReport, SuiteReport};

/// Turns a report into the bytes of one format.
pub trait Exporter {
    fn export(&self, report: &RunReport) -> anyhow::Result<Vec<u8>>;
    fn export_suite(&self, suite: &SuiteReport) -> anyhow::Result<Vec<u8>>;
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Normal,
    Json,
}

impl Format {
    pub const NAMES: [&'static str; 2] = ["normal", "json"];
    pub fn parse(s: &str) -> Option<Format> {
        match s {
            "normal" | "text" => Some(Format::Normal),
            "json" => Some(Format::Json),
            _ => None,
        }
    }
}

pub fn exporter(f: Format) -> Box<dyn Exporter> {
    match f {
        Format::Normal => Box::new(Text),
        Format::Json => Box::new(Json),
    }
}
