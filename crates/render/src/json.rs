//! The native JSON schema: the report model as it is (see docs/json-schema.md).

use super::Exporter;
use report::{RunReport, SuiteReport};

pub struct Json;

impl Exporter for Json {
    fn export_compare(&self, c: &report::compare::Comparison) -> anyhow::Result<Vec<u8>> {
        Ok((serde_json::to_string_pretty(c)? + "\n").into_bytes())
    }

    fn export(&self, report: &RunReport) -> anyhow::Result<Vec<u8>> {
        let mut v = serde_json::to_vec_pretty(report)?;
        v.push(b'\n');
        Ok(v)
    }

    fn export_suite(&self, suite: &SuiteReport) -> anyhow::Result<Vec<u8>> {
        let mut v = serde_json::to_vec_pretty(suite)?;
        v.push(b'\n');
        Ok(v)
    }

    fn export_fsync(&self, f: &report::FsyncReport) -> anyhow::Result<Vec<u8>> {
        let mut v = serde_json::to_vec_pretty(f)?;
        v.push(b'\n');
        Ok(v)
    }

    fn export_db(&self, d: &report::DbReport) -> anyhow::Result<Vec<u8>> {
        let mut v = serde_json::to_vec_pretty(d)?;
        v.push(b'\n');
        Ok(v)
    }

    fn export_infer(&self, i: &report::InferReport) -> anyhow::Result<Vec<u8>> {
        let mut v = serde_json::to_vec_pretty(i)?;
        v.push(b'\n');
        Ok(v)
    }

    fn export_durability(&self, d: &report::DurabilityReport) -> anyhow::Result<Vec<u8>> {
        let mut v = serde_json::to_vec_pretty(d)?;
        v.push(b'\n');
        Ok(v)
    }
}
