//! The native JSON schema: the report model as it is (see docs/json-schema.md).

use super::Exporter;
use crate::{RunReport, SuiteReport};

pub struct Json;

impl Exporter for Json {
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

    fn export_fsync(&self, f: &crate::FsyncReport) -> anyhow::Result<Vec<u8>> {
        let mut v = serde_json::to_vec_pretty(f)?;
        v.push(b'\n');
        Ok(v)
    }

    fn export_db(&self, d: &crate::DbReport) -> anyhow::Result<Vec<u8>> {
        let mut v = serde_json::to_vec_pretty(d)?;
        v.push(b'\n');
        Ok(v)
    }

    fn export_infer(&self, i: &crate::InferReport) -> anyhow::Result<Vec<u8>> {
        let mut v = serde_json::to_vec_pretty(i)?;
        v.push(b'\n');
        Ok(v)
    }
}
