//! Reading a result back from the JSON volbench wrote (compare, report and chart inputs):
//! blamed by the field that is wrong, not by the format it is not.

use crate::Document;

/// The largest result document read back, from a file or unpacked from a store: far above any
/// real one (a 64-job, 100-point sweep is a few tens of MB), and a bound on what a damaged or
/// hostile input can make a reader allocate.
pub const MAX_DOCUMENT: u64 = 128 << 20;

/// A result from JSON volbench wrote. A report with a bad field is blamed by the field's path
/// (`status: unknown variant "weird"`), against the kind of report it most looks like; an
/// unknown schema_version or fio's JSON is named as such.
pub fn from_json(text: &str) -> std::result::Result<Document, String> {
    let mut v: serde_json::Value =
        serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
    // A file written before secrets were kept out of reports is read without them.
    crate::secrets::scrub_value(&mut v);
    if v.get("fio version").is_some() {
        return Err(
            "is fio's JSON; compare takes volbench's: write --output-format=volbench-json".into(),
        );
    }
    if let Some(n) = v.get("schema_version").and_then(|s| s.as_u64()) {
        if n != crate::SCHEMA_VERSION as u64 {
            return Err(format!(
                "schema_version {n} is not one this build reads ({}): use the volbench that wrote it",
                crate::SCHEMA_VERSION
            ));
        }
    }
    read_as_its_kind(&v)
}

/// Reads the JSON as the kind of report it looks like (a `kind` tag says it, else a kind's
/// own fields), so a bad field is blamed by its path (serde_path_to_error) within that kind.
fn read_as_its_kind(v: &serde_json::Value) -> std::result::Result<Document, String> {
    fn read<T: serde::de::DeserializeOwned>(
        v: &serde_json::Value,
        kind: &str,
    ) -> std::result::Result<T, String> {
        serde_path_to_error::deserialize(v)
            .map_err(|e| format!("as {kind}, field `{}`: {}", e.path(), e.inner()))
    }
    let has = |k: &str| v.get(k).is_some();
    if has("kind") {
        read(v, "a stored result")
    } else if has("engine") {
        // Before "runs": a db report has its own list of runs.
        read(v, "a db report").map(|r| Document::Db(Box::new(r)))
    } else if has("cases") {
        read(v, "an fsync report").map(|r| Document::Fsync(Box::new(r)))
    } else if has("cycles") {
        read(v, "a durability cycle report").map(|r| Document::Durability(Box::new(r)))
    } else if has("limits") {
        read(v, "an infer report").map(|r| Document::Infer(Box::new(r)))
    } else if has("runs") || has("suite") {
        read(v, "a sweep or suite report").map(|r| Document::Suite(Box::new(r)))
    } else {
        read(v, "a run report").map(|r| Document::Run(Box::new(r)))
    }
}
